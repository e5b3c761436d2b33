package routines

import (
	"context"
	"database/sql"
	"time"
)

// record stores a fire that ended as it was made (missed, skipped).
func (s *Service) record(ctx context.Context, f Fire, now time.Time) {
	ms := now.UnixMilli()
	f.EndedAt = &ms
	f.Reason = bound(f.Reason)
	if _, err := s.db.Writer().ExecContext(ctx, `INSERT INTO schedule_fires (id, schedule_id, due_at, ended_at, outcome, reason, manual)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, f.ID, f.ScheduleID, f.DueAt, ms, f.Outcome, f.Reason, f.Manual); err != nil {
		s.log.Warn("routine fire not recorded", "schedule", f.ScheduleID, "outcome", f.Outcome, "err", err)
		return
	}
	s.Events.PublishMust(Event{Fire: &f})
}

// release hands a claimed schedule back to the timer, armed at next.
func (s *Service) release(ctx context.Context, id string, next *int64, outcome, errText string) {
	now := s.clock.Now().UnixMilli()
	_, err := s.db.Writer().ExecContext(ctx, `UPDATE schedules SET status = 'idle', next_run_at = ?, owner = NULL, lease_until = NULL,
		last_outcome = COALESCE(?, last_outcome), updated_at = ? WHERE id = ? AND status = 'claimed'`, next, optStr(outcome), now, id)
	if err != nil {
		s.log.Warn("routine not re-armed", "schedule", id, "err", err)
	}
	_, _ = s.changed(ctx, id)
}

// disarm moves a schedule to error with the reason.
func (s *Service) disarm(ctx context.Context, id, reason string) {
	now := s.clock.Now().UnixMilli()
	_, err := s.db.Writer().ExecContext(ctx, `UPDATE schedules SET status = 'error', next_run_at = NULL, owner = NULL, lease_until = NULL,
		last_outcome = 'failed', last_error = ?, updated_at = ? WHERE id = ?`, bound(reason), now, id)
	if err != nil {
		s.log.Warn("routine not disarmed", "schedule", id, "err", err)
	}
	_, _ = s.changed(ctx, id)
}

// finish records how a fire ended and moves its schedule: a success
// clears the failure count, a failure adds one (three in a row: error),
// a skip or an interruption changes neither.
func (s *Service) finish(ctx context.Context, id string, f Fire, res FireResult) {
	now := s.clock.Now().UnixMilli()
	switch res.Outcome {
	case OutcomeSuccess, OutcomeFailed, OutcomeSkipped, OutcomeInterrupted:
	default:
		res.Outcome = OutcomeFailed
		if res.Reason == "" {
			res.Reason = "the fire ended without an outcome"
		}
	}
	reason := f.Reason
	if res.Reason != "" {
		if reason != "" {
			reason += " · "
		}
		reason += res.Reason
	}
	reason = bound(reason)
	failed := res.Outcome == OutcomeFailed
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE schedule_fires SET outcome = ?, reason = ?, ended_at = ?, run_id = COALESCE(?, run_id),
			task_id = COALESCE(?, task_id), cost_nano = ?, owner = NULL, lease_until = NULL WHERE id = ?`,
			res.Outcome, reason, now, optStr(res.RunID), optStr(res.TaskID), res.CostNano, f.ID); err != nil {
			return err
		}
		var lastErr any
		if failed {
			lastErr = reason
		}
		failures := `failures`
		switch res.Outcome {
		case OutcomeSuccess:
			failures = `0`
		case OutcomeFailed:
			failures = `failures + 1`
		}
		// A due fire's schedule is running and goes back to idle; a run
		// now leaves the status alone. Either way a third failure in a
		// row disarms it (a paused schedule stays paused).
		_, err := tx.ExecContext(ctx, `UPDATE schedules SET
			failures = `+failures+`,
			status = CASE WHEN status IN ('running','idle','claimed') AND `+failures+` >= ? THEN 'error'
			              WHEN status = 'running' AND owner = ? THEN 'idle' ELSE status END,
			next_run_at = CASE WHEN status IN ('running','idle','claimed') AND `+failures+` >= ? THEN NULL ELSE next_run_at END,
			owner = CASE WHEN status = 'running' AND owner = ? THEN NULL ELSE owner END,
			lease_until = CASE WHEN status = 'running' AND owner = ? THEN NULL ELSE lease_until END,
			last_outcome = ?, last_error = CASE WHEN ? THEN ? WHEN ? = 'success' THEN NULL ELSE last_error END, updated_at = ?
			WHERE id = ?`,
			FailuresToError, s.owner, FailuresToError, s.owner, s.owner, res.Outcome, failed, lastErr, res.Outcome, now, id)
		return err
	})
	if err != nil {
		s.log.Warn("routine fire end not recorded", "schedule", id, "fire", f.ID, "err", err)
	}
	if failed {
		s.log.Warn("routine fire failed", "schedule", id, "fire", f.ID, "reason", reason)
	}
	s.publishFire(ctx, f.ID)
	_, _ = s.changed(ctx, id)
}

// Fire is one fire.
func (s *Service) Fire(ctx context.Context, id string) (Fire, error) {
	f, err := scanFire(s.db.Reader().QueryRowContext(ctx, `SELECT `+fireCols+` FROM schedule_fires WHERE id = ?`, id))
	if err == sql.ErrNoRows {
		return f, ErrNotFound
	}
	return f, err
}

func (s *Service) publishFire(ctx context.Context, id string) {
	if f, err := s.Fire(ctx, id); err == nil {
		s.Events.PublishMust(Event{Fire: &f})
	}
}
