package routines

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

const scheduleCols = `id, agent_id, team_id, spec, timezone, template, status, next_run_at, last_run_at,
	last_outcome, last_error, failures, created_at, updated_at`

type scanner interface{ Scan(...any) error }

// row is a schedule as stored.
type row struct {
	Schedule
	template string
}

func scanSchedule(sc scanner) (row, error) {
	var r row
	var team, lastOutcome, lastError sql.NullString
	var next, last sql.NullInt64
	err := sc.Scan(&r.ID, &r.AgentID, &team, &r.Spec, &r.Timezone, &r.template, &r.Status, &next, &last,
		&lastOutcome, &lastError, &r.Failures, &r.CreatedAt, &r.UpdatedAt)
	if err != nil {
		return r, err
	}
	r.Source = SourceRoutine
	r.Template = decodeTemplate(r.template)
	r.TeamID = nullStr(team)
	r.LastOutcome = nullStr(lastOutcome)
	r.LastError = nullStr(lastError)
	r.NextRunAt = nullInt(next)
	r.LastRunAt = nullInt(last)
	return r, nil
}

func nullStr(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	v := s.String
	return &v
}

func nullInt(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	v := n.Int64
	return &v
}

func optStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

const fireCols = `id, schedule_id, due_at, started_at, ended_at, outcome, reason, run_id, task_id, cost_nano, manual`

func scanFire(sc scanner) (Fire, error) {
	var f Fire
	var started, ended sql.NullInt64
	var run, task sql.NullString
	var cost int64
	var manual int
	err := sc.Scan(&f.ID, &f.ScheduleID, &f.DueAt, &started, &ended, &f.Outcome, &f.Reason, &run, &task, &cost, &manual)
	f.StartedAt, f.EndedAt = nullInt(started), nullInt(ended)
	f.RunID, f.TaskID = nullStr(run), nullStr(task)
	f.CostUSD = float64(cost) / 1e9
	f.Manual = manual != 0
	return f, err
}

func (s *Service) getRow(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id string,
) (row, error) {
	r, err := scanSchedule(q.QueryRowContext(ctx, `SELECT `+scheduleCols+` FROM schedules WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, ErrNotFound
	}
	return r, err
}

// earliestDue is the first armed due time (false: none).
func (s *Service) earliestDue(ctx context.Context) (time.Time, bool, error) {
	var at sql.NullInt64
	err := s.db.Reader().QueryRowContext(ctx,
		`SELECT MIN(next_run_at) FROM schedules WHERE status = 'idle' AND next_run_at IS NOT NULL`).Scan(&at)
	if err != nil || !at.Valid {
		return time.Time{}, false, err
	}
	due := time.UnixMilli(at.Int64)
	s.mu.Lock()
	free := s.throttledUntil
	s.mu.Unlock()
	if due.Before(free) {
		due = free // over the fire rate: not before the minute frees up
	}
	return due, true, nil
}

// claimDue moves the schedules due at now through the reference's status
// moves: idle → queued (the due pass), then queued → claimed for this
// process. Each is one UPDATE, so with several processes on one database
// a schedule is claimed by exactly one (a lost claim is simply not
// returned).
func (s *Service) claimDue(ctx context.Context, now time.Time) ([]row, error) {
	ms := now.UnixMilli()
	lease := ms + leaseFor.Milliseconds()
	room, free, err := s.fireRoom(ctx, now)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.throttledUntil = free
	s.mu.Unlock()
	if room == 0 {
		return nil, nil // what is due waits for the minute to free up
	}
	if _, err := s.db.Writer().ExecContext(ctx, `UPDATE schedules SET status = 'queued', lease_until = ?, updated_at = ?
		WHERE id IN (SELECT id FROM schedules WHERE status = 'idle' AND next_run_at IS NOT NULL AND next_run_at <= ?
		             ORDER BY next_run_at LIMIT ?)
		  AND status = 'idle'`, lease, ms, ms, min(room, 100)); err != nil {
		return nil, err
	}
	rows, err := s.db.Writer().QueryContext(ctx, `UPDATE schedules SET status = 'claimed', owner = ?, lease_until = ?, updated_at = ?
		WHERE status = 'queued' RETURNING `+scheduleCols, s.owner, lease, ms)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []row
	for rows.Next() {
		r, err := scanSchedule(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// renewLeases keeps this process's claims and running fires its own.
func (s *Service) renewLeases(ctx context.Context, now time.Time) error {
	until := now.Add(leaseFor).UnixMilli()
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE schedules SET lease_until = ? WHERE owner = ? AND status IN ('claimed','running')`, until, s.owner); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE schedule_fires SET lease_until = ? WHERE owner = ? AND outcome = 'running'`, until, s.owner)
		return err
	})
}

// sweepLapsed records the fires whose owner stopped renewing as
// interrupted and hands their schedules back to the timer.
func (s *Service) sweepLapsed(ctx context.Context, now time.Time) ([]string, error) {
	ms := now.UnixMilli()
	var ids []string
	err := s.db.InTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `UPDATE schedule_fires SET outcome = 'interrupted', ended_at = ?, owner = NULL,
			reason = CASE WHEN reason = '' THEN ? ELSE reason || ' · ' || ? END
			WHERE outcome = 'running' AND lease_until < ? RETURNING schedule_id`,
			ms, lapsedReason, lapsedReason, ms)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		res, err := tx.QueryContext(ctx, `UPDATE schedules SET status = 'idle',
			owner = NULL, lease_until = NULL, updated_at = ?, last_outcome = 'interrupted'
			WHERE status IN ('claimed','running','queued') AND lease_until < ? RETURNING id`, ms, ms)
		if err != nil {
			return err
		}
		defer res.Close()
		for res.Next() {
			var id string
			if err := res.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return res.Err()
	})
	return ids, err
}

const lapsedReason = "Clawboo stopped during this fire (its process ended or lost its lease)"
