package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/clawboo/desktop/backend/config"
)

// Candidate is one provider the Router may use: the primary first, then
// the agent's fallbacks. Key is the resolved secret; it is never printed.
type Candidate struct {
	Provider string
	Model    string
	Key      string `json:"-"`
}

// String names the candidate without its key.
func (c Candidate) String() string { return c.Provider + "/" + c.Model }

// Served says which candidate answered a turn: cost is attributed to it.
type Served struct {
	Index    int
	Provider string
	Model    string
}

// Router streams a conversation's turns through its candidates with seed
// 004's fallback: on an auth, rate_limit, overloaded or network error
// before any output the next candidate is tried; once output has been
// yielded, errors are surfaced as they are; the candidate that answers
// stays chosen for later turns. Safe for concurrent use, though one
// conversation streams one turn at a time.
type Router struct {
	mu        sync.Mutex
	cands     []Candidate
	providers []Provider
	sticky    int
}

// NewRouter builds a Router over cands, primary first. Candidates without
// a key are dropped except keyless Ollama; with none left the error is of
// class auth ("no provider key available (checked <primary's key
// variable> and fallbacks)"). Any unknown provider id fails with
// "unknown provider: <id>". getenv reads the base-URL overrides.
func NewRouter(cands []Candidate, getenv func(string) string) (*Router, error) {
	r := &Router{}
	for _, c := range cands {
		info, ok := config.ProviderByID(c.Provider)
		if !ok {
			return nil, fmt.Errorf("unknown provider: %s", c.Provider)
		}
		if c.Key == "" && !info.Keyless() {
			continue
		}
		p, err := New(c.Provider, c.Key, getenv)
		if err != nil {
			return nil, err
		}
		r.cands = append(r.cands, c)
		r.providers = append(r.providers, p)
	}
	if len(r.cands) == 0 {
		checked := "the primary key"
		if len(cands) > 0 {
			if p, _ := config.ProviderByID(cands[0].Provider); p.EnvVar != "" {
				checked = p.EnvVar
			}
		}
		return nil, &Error{Class: ClassAuth, msg: fmt.Sprintf("no provider key available (checked %s and fallbacks)", checked)}
	}
	return r, nil
}

// Candidates lists the usable candidates in order, keys blanked.
func (r *Router) Candidates() []Candidate {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Candidate, len(r.cands))
	for i, c := range r.cands {
		out[i] = Candidate{Provider: c.Provider, Model: c.Model}
	}
	return out
}

// Current is the candidate the next turn starts from.
func (r *Router) Current() Served {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.cands[r.sticky]
	return Served{Index: r.sticky, Provider: c.Provider, Model: c.Model}
}

// SetModel changes the model of the current candidate, keeping its
// provider (the loop's pending setModel, applied between turns).
func (r *Router) SetModel(model string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cands[r.sticky].Model = model
}

// Stream runs one turn. It returns once the serving candidate has yielded
// its first event (or every candidate it may try has failed); req.Model is
// replaced by each candidate's model. The returned stream replays that
// first event and then the rest; its errors are never retried.
func (r *Router) Stream(ctx context.Context, req Request) (*RoutedStream, error) {
	r.mu.Lock()
	start := r.sticky
	r.mu.Unlock()
	var last error
	for i := start; i < len(r.cands); i++ {
		r.mu.Lock()
		c := r.cands[i]
		r.mu.Unlock()
		req.Model = c.Model
		s, first, err := r.open(ctx, i, req)
		if err == nil {
			r.mu.Lock()
			r.sticky = i
			r.mu.Unlock()
			return &RoutedStream{s: s, first: &first, served: Served{Index: i, Provider: c.Provider, Model: c.Model}}, nil
		}
		last = err
		if ctx.Err() != nil || !Classify(err).Fallback() {
			return nil, err
		}
	}
	return nil, last
}

// open starts candidate i and waits for its first event.
func (r *Router) open(ctx context.Context, i int, req Request) (Stream, Event, error) {
	s, err := r.providers[i].Stream(ctx, req)
	if err != nil {
		return nil, Event{}, err
	}
	ev, ok := s.Next()
	if !ok {
		err := s.Err()
		s.Close()
		if err == nil {
			err = &Error{Class: ClassUnknown, Provider: r.providers[i].ID(), msg: "stream ended without a response"}
		}
		return nil, Event{}, err
	}
	return s, ev, nil
}

// RoutedStream is one turn's stream from the candidate that served it.
type RoutedStream struct {
	s      Stream
	first  *Event
	served Served
}

var _ Stream = (*RoutedStream)(nil)

// Served says which candidate is answering; cost goes to it.
func (rs *RoutedStream) Served() Served { return rs.served }

// Next yields the buffered first event, then the candidate's own.
func (rs *RoutedStream) Next() (Event, bool) {
	if rs.first != nil {
		ev := *rs.first
		rs.first = nil
		return ev, true
	}
	return rs.s.Next()
}

// Err is the serving candidate's error, surfaced without fallback.
func (rs *RoutedStream) Err() error { return rs.s.Err() }

// Close releases the connection.
func (rs *RoutedStream) Close() error { return rs.s.Close() }

// IsContextOverflow reports whether err says the request outgrew the
// model's context window.
func IsContextOverflow(err error) bool { return errors.Is(err, ErrContextOverflow) }
