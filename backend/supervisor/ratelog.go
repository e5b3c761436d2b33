package supervisor

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// rateLimited is a slog.Handler that keeps a failure that repeats (a full
// disk fails every write of every run) from flooding the log: of warnings
// and errors with the same level, message and root error, the first is
// written, then at most one per window, carrying how many were held back
// ("repeated"). Records without an "err" attribute, and everything below
// Warn, pass untouched. It remembers at most maxRateKeys failures.
type rateLimited struct {
	next   slog.Handler
	state  *rateState
	attrEr string // the "err" text of an attribute added by WithAttrs
}

const (
	logWindow   = 10 * time.Second
	maxRateKeys = 128
)

type rateState struct {
	window time.Duration
	now    func() time.Time
	mu     sync.Mutex
	seen   map[string]*rateEntry
}

type rateEntry struct {
	last time.Time
	held int
}

func newRateLimited(next slog.Handler, window time.Duration, now func() time.Time) *rateLimited {
	return &rateLimited{next: next, state: &rateState{window: window, now: now, seen: map[string]*rateEntry{}}}
}

func (h *rateLimited) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *rateLimited) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.next = h.next.WithAttrs(as)
	for _, a := range as {
		if a.Key == "err" {
			c.attrEr = rootText(a.Value)
		}
	}
	return &c
}

func (h *rateLimited) WithGroup(name string) slog.Handler {
	c := *h
	c.next = h.next.WithGroup(name)
	return &c
}

func (h *rateLimited) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return h.next.Handle(ctx, r)
	}
	errText := h.attrEr
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "err" {
			errText = rootText(a.Value)
			return false
		}
		return true
	})
	if errText == "" {
		return h.next.Handle(ctx, r)
	}
	held, ok := h.state.admit(r.Level.String() + "\x00" + r.Message + "\x00" + errText)
	if !ok {
		return nil
	}
	if held > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int("repeated", held))
	}
	return h.next.Handle(ctx, r)
}

// admit says whether a record with key may be written now, and how many
// like it were held back since the last one written.
func (s *rateState) admit(key string) (held int, ok bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.seen[key]
	if e == nil {
		if len(s.seen) >= maxRateKeys {
			for k, old := range s.seen {
				if now.Sub(old.last) >= s.window {
					delete(s.seen, k)
				}
			}
			if len(s.seen) >= maxRateKeys {
				clear(s.seen) // many distinct failures at once: start over
			}
		}
		s.seen[key] = &rateEntry{last: now}
		return 0, true
	}
	if now.Sub(e.last) < s.window {
		e.held++
		return 0, false
	}
	held, e.held, e.last = e.held, 0, now
	return held, true
}

// rootText is the text of the innermost error an attribute holds, so the
// same failure wrapped with different run ids or seqs counts as one.
func rootText(v slog.Value) string {
	err, ok := v.Any().(error)
	if !ok {
		return v.String()
	}
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
