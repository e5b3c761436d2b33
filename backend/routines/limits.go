package routines

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Bounds on routines: a home keeps at most MaxSchedules, and the timer
// begins at most MaxFiresPerMinute fires in any minute. Fires over the
// limit are not dropped: they stay due and begin as the minute frees up
// (recorded as fired late, or missed past the grace window). A person's
// "Run now" is not counted against it.
const (
	MaxSchedules      = 100
	MaxFiresPerMinute = 20
)

// checkRoom refuses a new schedule beyond MaxSchedules.
func (s *Service) checkRoom(ctx context.Context) error {
	var n int
	if err := s.db.Reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM schedules`).Scan(&n); err != nil {
		return err
	}
	if n >= MaxSchedules {
		return fmt.Errorf("%w: Clawboo keeps at most %d routines; delete one before adding another", ErrBadRequest, MaxSchedules)
	}
	return nil
}

// checkMember refuses a schedule whose team does not hold its agent (by
// name, as a person reads them). An unknown team is the insert's to refuse.
func (s *Service) checkMember(ctx context.Context, agentID, teamID string) error {
	if teamID == "" {
		return nil
	}
	var team, agent sql.NullString
	var member bool
	err := s.db.Reader().QueryRowContext(ctx, `SELECT t.name, (SELECT name FROM agents WHERE id = ?),
		EXISTS (SELECT 1 FROM team_members m WHERE m.team_id = t.id AND m.agent_id = ?) OR t.leader_agent_id = ?
		FROM teams t WHERE t.id = ?`, agentID, agentID, agentID, teamID).Scan(&team, &agent, &member)
	if err == sql.ErrNoRows {
		return fmt.Errorf("%w: unknown team '%s'", ErrBadRequest, teamID)
	}
	if err != nil {
		return err
	}
	if !member {
		return fmt.Errorf("%w: %s is not in the team %s: a routine's agent works for its team (add it to the team, or choose another)",
			ErrBadRequest, agent.String, team.String)
	}
	return nil
}

// fireRoom is how many fires the timer may begin now, and when the next
// one may begin if none may now.
func (s *Service) fireRoom(ctx context.Context, now time.Time) (int, time.Time, error) {
	since := now.Add(-time.Minute).UnixMilli()
	var n int
	var oldest sql.NullInt64
	err := s.db.Reader().QueryRowContext(ctx, `SELECT COUNT(*), MIN(started_at) FROM schedule_fires
		WHERE manual = 0 AND started_at IS NOT NULL AND started_at > ?`, since).Scan(&n, &oldest)
	if err != nil {
		return 0, time.Time{}, err
	}
	if room := MaxFiresPerMinute - n; room > 0 {
		return room, time.Time{}, nil
	}
	return 0, time.UnixMilli(oldest.Int64).Add(time.Minute), nil
}
