package routines

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// Start runs the timer until Close: first the fires due while Clawboo
// was not running (coalesced, or recorded missed), then one timer armed
// at the earliest due time, at most MaxSleep ahead.
func (s *Service) Start() {
	// The first pass reads everything; a change made before it needs no
	// second one.
	select {
	case <-s.wake:
	default:
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.loop()
	}()
}

// Close stops the timer and waits for running fires to end (the caller
// stops the runs first); a fire cut short is recorded interrupted.
func (s *Service) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
}

func (s *Service) loop() {
	for {
		s.Tick(s.root, s.clock.Now())
		// Measured after the pass: a slow pass must not make a late timer.
		now := s.clock.Now()
		sleep := MaxSleep
		if at, ok, err := s.earliestDue(s.root); err == nil && ok {
			if d := at.Sub(now); d < sleep {
				sleep = max(d, 0)
			}
		}
		t := s.clock.NewTimer(sleep)
		select {
		case <-s.root.Done():
			t.Stop()
			return
		case <-t.C():
		case <-s.wake:
			t.Stop()
		}
	}
}

// Tick is one pass of the timer at now: renew this process's leases,
// sweep fires whose owner died, claim what is due and fire it.
func (s *Service) Tick(ctx context.Context, now time.Time) {
	if err := s.renewLeases(ctx, now); err != nil && ctx.Err() == nil {
		s.log.Warn("routine leases not renewed", "err", err)
	}
	if ids, err := s.sweepLapsed(ctx, now); err != nil && ctx.Err() == nil {
		s.log.Warn("routine sweep failed", "err", err)
	} else {
		for _, id := range uniq(ids) {
			_, _ = s.changed(ctx, id)
		}
	}
	due, err := s.claimDue(ctx, now)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("routine claim failed", "err", err)
		}
		return
	}
	grace := s.grace(ctx)
	for _, r := range due {
		s.dispatch(ctx, r, now, grace)
	}
}

func uniq(ids []string) []string {
	seen := map[string]bool{}
	out := ids[:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// dispatch turns one claimed schedule into a fire, a missed row or a skip,
// and re-arms it from now.
func (s *Service) dispatch(ctx context.Context, r row, now time.Time, grace time.Duration) {
	spec, err := ParseSpec(r.Spec, r.Timezone)
	due := time.UnixMilli(*r.NextRunAt)
	if err != nil {
		// Stored specs were checked on the way in; one that no longer
		// parses (a timezone the machine lost) disarms with the reason.
		s.record(ctx, Fire{ID: ulid.Make().String(), ScheduleID: r.ID, DueAt: due.UnixMilli(), Outcome: OutcomeFailed, Reason: err.Error()}, now)
		s.disarm(ctx, r.ID, err.Error())
		return
	}
	var next *int64
	if t, ok := spec.Next(now); ok {
		ms := t.UnixMilli()
		next = &ms
	}
	late := now.Sub(due)
	if late > grace {
		// Missed: one row saying how many times, re-armed, never a burst.
		n := spec.countBetween(due.Add(-time.Millisecond), now, 10000)
		reason := fmt.Sprintf("missed: due %s while Clawboo was not running, outside the %s grace window", due.In(spec.Location()).Format("Mon 2 Jan 15:04 MST"), humanDur(grace))
		if n > 1 {
			reason = fmt.Sprintf("missed %d times since %s while Clawboo was not running (outside the %s grace window)", n, due.In(spec.Location()).Format("Mon 2 Jan 15:04 MST"), humanDur(grace))
		}
		fire := Fire{ID: ulid.Make().String(), ScheduleID: r.ID, DueAt: due.UnixMilli(), Outcome: OutcomeMissed, Reason: reason}
		s.record(ctx, fire, now)
		s.release(ctx, r.ID, next, OutcomeMissed, "")
		return
	}
	reason := ""
	if late > MaxSleep {
		if n := spec.countBetween(due.Add(-time.Millisecond), now, 10000); n > 1 {
			reason = fmt.Sprintf("%d due times since %s coalesced into this one fire", n, due.In(spec.Location()).Format("Mon 2 Jan 15:04 MST"))
		} else {
			reason = fmt.Sprintf("fired late: due %s", due.In(spec.Location()).Format("Mon 2 Jan 15:04 MST"))
		}
	}
	fire, err := s.begin(ctx, r.ID, due, now, reason, false, next)
	if errors.Is(err, ErrConflict) {
		skip := Fire{
			ID: ulid.Make().String(), ScheduleID: r.ID, DueAt: due.UnixMilli(), Outcome: OutcomeSkipped,
			Reason: "skipped: the previous fire is still running",
		}
		s.record(ctx, skip, now)
		s.release(ctx, r.ID, next, OutcomeSkipped, "")
		return
	}
	if err != nil {
		s.log.Warn("routine fire not recorded", "schedule", r.ID, "err", err)
		s.release(ctx, r.ID, next, "", "")
		return
	}
	s.run(r.Schedule, fire)
}

func humanDur(d time.Duration) string {
	if d >= time.Hour && d%time.Hour == 0 {
		if d == time.Hour {
			return "one-hour"
		}
		return fmt.Sprintf("%d-hour", d/time.Hour)
	}
	return fmt.Sprintf("%d-minute", d/time.Minute)
}

// RunNow fires a schedule at once, whatever its status; ErrConflict while
// a fire is running.
func (s *Service) RunNow(ctx context.Context, id string) (Fire, error) {
	r, err := s.getRow(ctx, s.db.Reader(), id)
	if err != nil {
		return Fire{}, err
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return Fire{}, fmt.Errorf("%w: Clawboo is shutting down", ErrConflict)
	}
	now := s.clock.Now()
	fire, err := s.begin(ctx, id, now, now, "", true, nil) // Manual says it was a run now
	if err != nil {
		return Fire{}, err
	}
	s.run(r.Schedule, fire)
	return fire, nil
}

// begin records a running fire (at most one per schedule: ErrConflict)
// and, for a due fire, moves the schedule to running with its next time.
func (s *Service) begin(ctx context.Context, id string, due, now time.Time, reason string, manual bool, next *int64) (Fire, error) {
	fire := Fire{ID: ulid.Make().String(), ScheduleID: id, DueAt: due.UnixMilli(), Outcome: OutcomeRunning, Reason: reason, Manual: manual}
	ms := now.UnixMilli()
	fire.StartedAt = &ms
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO schedule_fires (id, schedule_id, due_at, started_at, outcome, reason, manual, owner, lease_until)
			VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?)`, fire.ID, id, fire.DueAt, ms, reason, manual, s.owner, ms+leaseFor.Milliseconds())
		if err != nil && strings.Contains(err.Error(), "UNIQUE") {
			return fmt.Errorf("%w: a fire of this schedule is already running", ErrConflict)
		}
		if err != nil {
			return err
		}
		if manual {
			// An idle schedule shows the fire as running (and goes back to
			// idle after it); a paused or failed one keeps its status.
			_, err = tx.ExecContext(ctx, `UPDATE schedules SET
				owner = CASE WHEN status = 'idle' THEN ? ELSE owner END,
				lease_until = CASE WHEN status = 'idle' THEN ? ELSE lease_until END,
				status = CASE WHEN status = 'idle' THEN 'running' ELSE status END,
				last_run_at = ?, last_outcome = 'running', updated_at = ? WHERE id = ?`, s.owner, ms+leaseFor.Milliseconds(), ms, ms, id)
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE schedules SET status = 'running', next_run_at = ?, last_run_at = ?, last_outcome = 'running', updated_at = ? WHERE id = ? AND status = 'claimed'`,
			next, ms, ms, id)
		return err
	})
	if err != nil {
		return Fire{}, err
	}
	s.Events.PublishMust(Event{Fire: &fire})
	_, _ = s.changed(ctx, id)
	return fire, nil
}

// run carries out a fire in the background through the Firer.
func (s *Service) run(sc Schedule, fire Fire) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		view := s.view(sc)
		res := s.firer.Fire(s.root, FireRequest{Schedule: view, FireID: fire.ID, Manual: fire.Manual, Started: func(runID, taskID string) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, _ = s.db.Writer().ExecContext(ctx, `UPDATE schedule_fires SET run_id = COALESCE(?, run_id), task_id = COALESCE(?, task_id) WHERE id = ?`,
				optStr(runID), optStr(taskID), fire.ID)
			s.publishFire(ctx, fire.ID)
		}})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if s.root.Err() != nil && res.Outcome != OutcomeSuccess {
			res.Outcome, res.Reason = OutcomeInterrupted, "Clawboo shut down during this fire"
		}
		s.finish(ctx, sc.ID, fire, res)
	}()
}
