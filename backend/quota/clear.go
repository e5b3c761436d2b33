package quota

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"time"
)

// NoResetHold is how long a rejected window that names no reset time (a
// 429 without retry-after, common among OpenAI-compatible providers)
// holds its runtime: after it, the window counts as reset until it is
// reported again. A later successful call on the same account clears it
// sooner, and a person can clear any window (Clear).
const NoResetHold = 15 * time.Minute

// MaxWindowsPerRuntime bounds one runtime's rows, so one runtime cannot
// evict the others' windows from the ledger.
const MaxWindowsPerRuntime = 50

// ErrNoWindow is a window the ledger does not hold.
var ErrNoWindow = errors.New("no such quota window")

// clearsAt is when w stops holding work back: its reset, or for a
// rejected window with none, NoResetHold after it was last seen.
func (w Window) clearsAt() *int64 {
	if w.ResetsAt != nil {
		return w.ResetsAt
	}
	if w.Status == "rejected" {
		t := w.SeenAt + NoResetHold.Milliseconds()
		return &t
	}
	return nil
}

func isReset(w Window, now int64) bool {
	c := w.clearsAt()
	return c != nil && *c <= now
}

// guessed is a rejected window whose end is our assumption, not the
// provider's word: the ones a success clears.
func guessed(w Window) bool { return w.Status == "rejected" && w.ResetsAt == nil }

// Clear forgets one window at a person's word (DELETE
// /api/quota/windows/…): work it held is tried again at once (and held
// again if another window still says so).
func (s *Service) Clear(ctx context.Context, runtime, account, window string) error {
	s.mu.Lock()
	w, ok := s.rows[Window{Runtime: runtime, Account: account, Window: window}.key()]
	s.mu.Unlock()
	if !ok {
		return ErrNoWindow
	}
	return s.forget(ctx, []Window{w})
}

// Succeeded records that a call on runtime (and account, "" for any)
// went through: the rejected windows with no reset time it had are
// cleared, since the provider has just answered.
func (s *Service) Succeeded(ctx context.Context, runtime, account string) {
	s.mu.Lock()
	var gone []Window
	for _, w := range s.rows {
		if w.Runtime == runtime && (account == "" || w.Account == account) && guessed(w) {
			gone = append(gone, w)
		}
	}
	s.mu.Unlock()
	if len(gone) > 0 {
		if err := s.forget(ctx, gone); err != nil {
			s.opts.Log.Warn("quota windows not cleared", "runtime", runtime, "err", err)
		}
	}
}

// forget deletes windows and wakes the work they held.
func (s *Service) forget(ctx context.Context, ws []Window) error {
	now := s.opts.Now().UnixMilli()
	err := s.opts.Store.InTx(ctx, func(tx *sql.Tx) error {
		for _, w := range ws {
			if _, err := tx.ExecContext(ctx, `DELETE FROM quota_windows WHERE runtime = ? AND account = ? AND window = ?`,
				w.Runtime, w.Account, w.Window); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE quota_deferrals SET until = ? WHERE runtime = ? AND window = ? AND until > ?`,
				now, w.Runtime, w.Window, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.mu.Lock()
	for _, w := range ws {
		delete(s.rows, w.key())
	}
	s.mu.Unlock()
	for _, w := range ws {
		s.publish(Event{Kind: "window", Runtime: w.Runtime})
	}
	s.poke()
	return nil
}

// evictions picks the rows to drop after w was added (s.mu held): the
// oldest of w's runtime beyond MaxWindowsPerRuntime, then the oldest of
// all beyond MaxWindows, never a rejected window still holding work
// (when nothing else can go, the new window itself is not kept: ok false).
func (s *Service) evictions(w Window, now int64) (out []Window, ok bool) {
	var mine, all []Window
	for _, r := range s.rows {
		if r.key() == w.key() || (r.Status == "rejected" && !isReset(r, now)) {
			continue
		}
		all = append(all, r)
		if r.Runtime == w.Runtime {
			mine = append(mine, r)
		}
	}
	byAge := func(ws []Window) {
		sort.Slice(ws, func(i, j int) bool { return ws[i].SeenAt < ws[j].SeenAt })
	}
	count := 0
	for _, r := range s.rows {
		if r.Runtime == w.Runtime {
			count++
		}
	}
	picked := map[string]bool{}
	if over := count - MaxWindowsPerRuntime; over > 0 {
		byAge(mine)
		for _, r := range mine[:min(over, len(mine))] {
			picked[r.key()] = true
			out = append(out, r)
		}
		if over > len(mine) {
			return out, false
		}
	}
	if over := len(s.rows) - len(out) - MaxWindows; over > 0 {
		byAge(all)
		for _, r := range all {
			if over == 0 {
				break
			}
			if !picked[r.key()] {
				out = append(out, r)
				over--
			}
		}
		if over > 0 {
			return out, false
		}
	}
	return out, true
}
