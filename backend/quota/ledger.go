package quota

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
)

// Bounds on what the ledger keeps.
const (
	MaxWindows  = 200 // rows kept; the oldest seen go first (MaxWindowsPerRuntime each)
	maxWord     = 40
	maxAccount  = 80
	maxSource   = 80
	rewriteEach = 30 * time.Second // an unchanged window is rewritten at most this often
)

// ErrBadRequest is a malformed setting, limit or window.
var ErrBadRequest = errors.New("invalid quota request")

// Window is one row of the ledger.
type Window struct {
	Runtime     string   `json:"runtime"`
	Account     string   `json:"account"`
	Window      string   `json:"window"`
	Status      string   `json:"status"`
	Utilization *float64 `json:"utilization"`
	ResetsAt    *int64   `json:"resetsAt"`
	SeenAt      int64    `json:"seenAt"`
	Source      string   `json:"source"`
	// Reset is true once the reset time has passed since it was seen: the
	// window then holds nothing back until it is reported again.
	Reset bool `json:"reset"`
	// ClearsAt is set on a rejected window that named no reset time: when
	// it stops holding work if nothing says otherwise (NoResetHold after
	// it was seen; a successful call on the account clears it sooner).
	ClearsAt *int64 `json:"clearsAt,omitempty"`
}

func (w Window) key() string { return w.Runtime + "\x00" + w.Account + "\x00" + w.Window }

// Event is what the ledger publishes when something changes; the API
// forwards it as the "quota" server-sent event.
type Event struct {
	Kind string `json:"kind"` // window, deferred, resumed, cancelled, settings, limit
	// Runtime is set for window events.
	Runtime string `json:"runtime,omitempty"`
	// Deferral is set for deferred, resumed and cancelled events.
	Deferral *Deferral `json:"deferral,omitempty"`
}

// Options configure a Service.
type Options struct {
	Store  *store.Store
	Events *bus.Broker[Event]
	Log    *slog.Logger
	Now    func() time.Time
	// Name is a runtime's display name ("Claude Code"), for reasons.
	Name func(runtime string) string
}

// Service is the ledger, the governor and the deferral timer.
type Service struct {
	opts Options
	mu   sync.Mutex
	rows map[string]Window // the ledger, read once at open
	wake chan struct{}     // the timer re-reads its earliest deferral
}

// New opens the ledger.
func New(ctx context.Context, opts Options) (*Service, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Name == nil {
		opts.Name = func(r string) string { return r }
	}
	s := &Service{opts: opts, rows: map[string]Window{}, wake: make(chan struct{}, 1)}
	rows, err := opts.Store.Reader().QueryContext(ctx,
		`SELECT runtime, account, window, status, utilization, resets_at, seen_at, source FROM quota_windows`)
	if err != nil {
		return nil, fmt.Errorf("read quota windows: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var w Window
		var u sql.NullFloat64
		var r sql.NullInt64
		if err := rows.Scan(&w.Runtime, &w.Account, &w.Window, &w.Status, &u, &r, &w.SeenAt, &w.Source); err != nil {
			return nil, err
		}
		if u.Valid {
			w.Utilization = &u.Float64
		}
		if r.Valid {
			w.ResetsAt = &r.Int64
		}
		s.rows[w.key()] = w
	}
	return s, rows.Err()
}

// Now is the ledger's clock.
func (s *Service) Now() time.Time { return s.opts.Now() }

func (s *Service) publish(ev Event) {
	if s.opts.Events != nil {
		s.opts.Events.PublishMust(ev)
	}
}

// plainWord is a snake_case window name.
func plainWord(s string) bool {
	if s == "" || len(s) > maxWord {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '_' && (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
	if len(s) > n {
		s = s[:n]
	}
	return s
}

// Observe records a window a run of runtime reported. A malformed window
// is dropped (false); an unchanged one is not rewritten more than every
// 30 seconds, so a runtime reporting on every request costs no writes.
func (s *Service) Observe(ctx context.Context, runtime string, q executor.QuotaWindow) bool {
	if !plainWord(strings.ReplaceAll(runtime, "-", "_")) || !plainWord(q.Window) {
		return false
	}
	switch q.Status {
	case executor.QuotaAllowed, executor.QuotaAllowedWarning, executor.QuotaRejected:
	default:
		return false
	}
	now := s.opts.Now().UnixMilli()
	w := Window{
		Runtime: runtime, Account: clip(q.Account, maxAccount), Window: q.Window, Status: q.Status,
		SeenAt: now, Source: clip(q.Source, maxSource),
	}
	if u := q.Utilization; u != nil && !math.IsNaN(*u) && !math.IsInf(*u, 0) {
		v := math.Max(0, math.Min(*u, 10))
		w.Utilization = &v
	}
	if q.ResetsAt > 0 {
		r := q.ResetsAt
		w.ResetsAt = &r
	}
	s.mu.Lock()
	old, had := s.rows[w.key()]
	if had && same(old, w) && now-old.SeenAt < rewriteEach.Milliseconds() {
		s.mu.Unlock()
		return true
	}
	s.rows[w.key()] = w
	evict, keep := s.evictions(w, now)
	if !keep {
		if had {
			s.rows[w.key()] = old
		} else {
			delete(s.rows, w.key())
		}
		s.mu.Unlock()
		s.opts.Log.Warn("quota window dropped: the ledger is full of windows still holding work", "runtime", runtime, "window", w.Window)
		return false
	}
	for _, e := range evict {
		delete(s.rows, e.key())
	}
	s.mu.Unlock()
	err := s.opts.Store.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO quota_windows (runtime, account, window, status, utilization, resets_at, seen_at, source)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (runtime, account, window) DO UPDATE SET status = excluded.status,
			utilization = excluded.utilization, resets_at = excluded.resets_at, seen_at = excluded.seen_at, source = excluded.source`,
			w.Runtime, w.Account, w.Window, w.Status, nullF(w.Utilization), nullI(w.ResetsAt), w.SeenAt, w.Source); err != nil {
			return err
		}
		for _, e := range evict {
			if _, err := tx.ExecContext(ctx, `DELETE FROM quota_windows WHERE runtime = ? AND account = ? AND window = ?`,
				e.Runtime, e.Account, e.Window); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		s.opts.Log.Warn("quota window not saved", "runtime", runtime, "window", w.Window, "err", err)
	}
	if !had || !same(old, w) {
		s.publish(Event{Kind: "window", Runtime: runtime})
	}
	if w.Status != executor.QuotaRejected {
		// The provider answered on this account: its guessed holds are over.
		s.Succeeded(ctx, runtime, w.Account)
	}
	return true
}

func same(a, b Window) bool {
	return a.Status == b.Status && eqF(a.Utilization, b.Utilization) && eqI(a.ResetsAt, b.ResetsAt) && a.Source == b.Source
}

func eqF(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return math.Abs(*a-*b) < 0.0005
}

func eqI(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func nullF(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func nullI(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// Windows lists the ledger, by runtime, account and window name.
func (s *Service) Windows() []Window {
	now := s.opts.Now().UnixMilli()
	s.mu.Lock()
	out := make([]Window, 0, len(s.rows))
	for _, w := range s.rows {
		w.Reset = isReset(w, now)
		if guessed(w) {
			w.ClearsAt = w.clearsAt()
		}
		out = append(out, w)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out
}
