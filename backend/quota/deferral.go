package quota

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"
)

// Deferral kinds.
const (
	KindTask     = "task"
	KindTeamTurn = "team-turn"
)

// Deferral is work the governor held back until a window resets.
type Deferral struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	TaskID  string `json:"taskId,omitempty"`
	TeamID  string `json:"teamId,omitempty"`
	AgentID string `json:"agentId,omitempty"`
	Title   string `json:"title"`
	Runtime string `json:"runtime"`
	Window  string `json:"window"`
	Until   int64  `json:"until"`
	Reason  string `json:"reason"`
	// Message is a team turn's message, or what a task run added to its
	// task (a fix run's findings, a send-back's comments); secrets are
	// scrubbed by the caller, and it is never sent to the UI.
	Message string `json:"-"`
	// Generation, Fixes and ContinueSession are a task run's place in its
	// chain (supervisor.Carry), so the run that comes back is the one held.
	Generation      int   `json:"-"`
	Fixes           int   `json:"-"`
	ContinueSession bool  `json:"-"`
	CreatedAt       int64 `json:"createdAt"`
}

// maxMessage bounds the message a deferral keeps.
const maxMessage = 64 << 10

// payload is how a deferral's message and chain are stored.
type payload struct {
	Message         string `json:"message,omitempty"`
	Generation      int    `json:"generation,omitempty"`
	Fixes           int    `json:"fixes,omitempty"`
	ContinueSession bool   `json:"continueSession,omitempty"`
}

func (d Deferral) payload() string {
	b, _ := json.Marshal(payload{Message: bound(d.Message), Generation: d.Generation, Fixes: d.Fixes, ContinueSession: d.ContinueSession})
	return string(b)
}

// bound cuts a message to maxMessage bytes on a character boundary.
func bound(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	n := maxMessage
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// setPayload reads a stored payload; one that is not JSON is a bare
// message.
func (d *Deferral) setPayload(s string) {
	var p payload
	if json.Unmarshal([]byte(s), &p) != nil {
		d.Message = s
		return
	}
	d.Message, d.Generation, d.Fixes, d.ContinueSession = p.Message, p.Generation, p.Fixes, p.ContinueSession
}

func (d Deferral) target() string {
	if d.Kind == KindTask {
		return d.TaskID
	}
	return d.TeamID + ":" + d.AgentID
}

const deferralCols = `id, kind, task_id, team_id, agent_id, title, runtime, window, until, reason, payload, created_at`

func scanDeferral(sc interface{ Scan(...any) error }) (Deferral, error) {
	var d Deferral
	var pl string
	err := sc.Scan(&d.ID, &d.Kind, &d.TaskID, &d.TeamID, &d.AgentID, &d.Title, &d.Runtime, &d.Window, &d.Until, &d.Reason, &pl, &d.CreatedAt)
	d.setPayload(pl)
	return d, err
}

// Defer records work held back by h; a task (or a member's team turn)
// has at most one deferral, the latest.
func (s *Service) Defer(ctx context.Context, d Deferral, h Hold) (Deferral, error) {
	if d.Kind != KindTask && d.Kind != KindTeamTurn {
		return Deferral{}, fmt.Errorf("%w: deferral kind %q", ErrBadRequest, d.Kind)
	}
	if (d.Kind == KindTask && d.TaskID == "") || (d.Kind == KindTeamTurn && (d.TeamID == "" || d.AgentID == "")) {
		return Deferral{}, fmt.Errorf("%w: a deferral names its task, or its team and agent", ErrBadRequest)
	}
	d.ID, d.Runtime, d.Window, d.Until, d.Reason = ulid.Make().String(), h.Runtime, h.Window.Window, h.Until, h.Reason
	d.Title = clip(d.Title, 200)
	d.CreatedAt = s.opts.Now().UnixMilli()
	err := s.opts.Store.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM quota_deferrals WHERE kind = ? AND target = ?`, d.Kind, d.target()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO quota_deferrals (id, kind, target, task_id, team_id, agent_id, title, runtime, window, until, reason, payload, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, d.ID, d.Kind, d.target(), d.TaskID, d.TeamID, d.AgentID, d.Title,
			d.Runtime, d.Window, d.Until, d.Reason, d.payload(), d.CreatedAt)
		return err
	})
	if err != nil {
		return Deferral{}, err
	}
	s.poke()
	s.publish(Event{Kind: "deferred", Deferral: &d})
	return d, nil
}

// Deferred lists the deferrals, soonest first.
func (s *Service) Deferred(ctx context.Context) ([]Deferral, error) {
	rows, err := s.opts.Store.Reader().QueryContext(ctx, `SELECT `+deferralCols+` FROM quota_deferrals ORDER BY until, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Deferral{}
	for rows.Next() {
		d, err := scanDeferral(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// DeferredTask is the task's deferral, if it has one.
func (s *Service) DeferredTask(ctx context.Context, taskID string) (Deferral, bool) {
	d, err := scanDeferral(s.opts.Store.Reader().QueryRowContext(ctx,
		`SELECT `+deferralCols+` FROM quota_deferrals WHERE kind = 'task' AND target = ?`, taskID))
	return d, err == nil
}

// Cancel drops a deferral: its work is not started at the reset.
func (s *Service) Cancel(ctx context.Context, id string) error {
	d, err := s.take(ctx, `id = ?`, id)
	if err != nil {
		return err
	}
	if len(d) == 0 {
		return ErrNotFound
	}
	s.publish(Event{Kind: "cancelled", Deferral: &d[0]})
	return nil
}

// CancelTask drops a task's deferral (it was run, moved or deleted by hand).
func (s *Service) CancelTask(ctx context.Context, taskID string) {
	var one int
	if err := s.opts.Store.Reader().QueryRowContext(ctx, `SELECT 1 FROM quota_deferrals WHERE kind = 'task' AND target = ?`, taskID).Scan(&one); err != nil {
		return // none (the common case costs a read, not a write)
	}
	if d, err := s.take(ctx, `kind = 'task' AND target = ?`, taskID); err == nil && len(d) > 0 {
		s.publish(Event{Kind: "cancelled", Deferral: &d[0]})
	}
}

// take deletes and returns the deferrals matching where: whoever takes a
// row is the only one to act on it.
func (s *Service) take(ctx context.Context, where string, args ...any) ([]Deferral, error) {
	rows, err := s.opts.Store.Writer().QueryContext(ctx, `DELETE FROM quota_deferrals WHERE `+where+` RETURNING `+deferralCols, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Deferral
	for rows.Next() {
		d, err := scanDeferral(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

func (s *Service) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Dispatcher starts deferred work again; it goes through the same door as
// any start (so a window still spent defers it again).
type Dispatcher func(ctx context.Context, d Deferral) error

// maxSleep bounds the timer's sleep, so a clock change is noticed.
const maxSleep = time.Minute

// Run hands each deferral to dispatch when its time comes, until ctx ends.
// One timer: it sleeps until the soonest deferral (at most a minute).
func (s *Service) Run(ctx context.Context, dispatch Dispatcher) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-t.C:
		}
		s.fireDue(ctx, dispatch)
		sleep := maxSleep
		var next sql.NullInt64
		if err := s.opts.Store.Reader().QueryRowContext(ctx, `SELECT MIN(until) FROM quota_deferrals`).Scan(&next); err == nil && next.Valid {
			if d := time.Until(time.UnixMilli(next.Int64)); d < sleep {
				sleep = max(d, 0)
			}
		}
		// A fake clock (tests) steps in jumps: never sleep past a minute.
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(sleep)
	}
}

// FireDue dispatches every deferral whose time has come (the timer's
// step; tests with a fake clock call it directly).
func (s *Service) FireDue(ctx context.Context, dispatch Dispatcher) int {
	return s.fireDue(ctx, dispatch)
}

func (s *Service) fireDue(ctx context.Context, dispatch Dispatcher) int {
	due, err := s.take(ctx, `until <= ?`, s.opts.Now().UnixMilli())
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			s.opts.Log.Warn("deferred work unreadable", "err", err)
		}
		return 0
	}
	for _, d := range due {
		d := d
		s.publish(Event{Kind: "resumed", Deferral: &d})
		if err := dispatch(ctx, d); err != nil {
			s.opts.Log.Info("deferred work not restarted", "kind", d.Kind, "task", d.TaskID, "team", d.TeamID, "err", err)
		}
	}
	return len(due)
}

// Wake makes the deferrals held for window due now (a host that came
// back, a slot that freed there) and wakes the timer.
func (s *Service) Wake(ctx context.Context, window string) {
	res, err := s.opts.Store.Write().ExecContext(ctx, `UPDATE quota_deferrals SET until = ? WHERE window = ? AND until > ?`,
		s.opts.Now().UnixMilli(), window, s.opts.Now().UnixMilli())
	if err != nil {
		s.opts.Log.Warn("deferred work not woken", "window", window, "err", err)
		return
	}
	if n, _ := res.RowsAffected(); n > 0 {
		s.poke()
	}
}
