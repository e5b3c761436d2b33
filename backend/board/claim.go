package board

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/clawboo/desktop/backend/store"
)

// ClaimSpec says who claims a task.
type ClaimSpec struct {
	AgentID string
	Runtime string
	// RunID is the run that will hold the claim; empty for a claim by hand
	// (an agent over MCP, a person).
	RunID string
}

// Claim moves a todo task whose dependencies are all done to in_progress
// for one claimer, in a single conditional statement: of any number of
// concurrent claimers exactly one wins. The losers get ErrConflict and must
// not retry; a missing task is ErrNotFound.
func (b *Board) Claim(ctx context.Context, id string, c ClaimSpec) (Task, error) {
	t, ok, err := b.claims.do(ctx, claimByID, id, c)
	if err != nil {
		return Task{}, fmt.Errorf("claim: %w", err)
	}
	if !ok {
		return Task{}, b.whyNotClaimed(ctx, id)
	}
	return b.claimed(ctx, t)
}

// ClaimNext claims the most urgent ready task (todo, dependencies done;
// highest priority, then oldest) of a team ("" for any), in the same single
// statement. It returns ErrNotFound when nothing is ready.
func (b *Board) ClaimNext(ctx context.Context, teamID string, c ClaimSpec) (Task, error) {
	t, ok, err := b.claims.do(ctx, claimNext, teamID, c)
	if err != nil {
		return Task{}, fmt.Errorf("claim: %w", err)
	}
	if !ok {
		return Task{}, fmt.Errorf("no ready task: %w", ErrNotFound)
	}
	return b.claimed(ctx, t)
}

const claimSet = `UPDATE tasks SET status = 'in_progress', assignee_agent_id = ?, assignee_runtime = ?, run_id = ?,
	heartbeat_at = ?, updated_at = ?, verification = NULL `

// claimByID and claimNext are the two claim statements; each is one
// conditional UPDATE … RETURNING, which is what makes a claim race-free.
var (
	claimByID = claimSet + `WHERE id = ? AND status = 'todo' AND run_id IS NULL AND ` + noOpenDeps + ` RETURNING ` + taskColumns
	claimNext = claimSet + `WHERE id = (SELECT id FROM tasks WHERE status = 'todo' AND run_id IS NULL AND (?6 = '' OR team_id = ?6)
		AND ` + noOpenDeps + ` ORDER BY priority DESC, created_at, id LIMIT 1) AND status = 'todo' AND run_id IS NULL RETURNING ` + taskColumns
)

func (b *Board) claimed(ctx context.Context, t Task) (Task, error) {
	deps, err := dependsOn(ctx, b.st.Read(), t.ID)
	if err != nil {
		return Task{}, err
	}
	t.DependsOn = deps
	b.publish(Event{Kind: "task", Task: &t})
	return t, nil
}

// whyNotClaimed tells a lost claim (ErrConflict) from a missing task and
// from one that waits on its dependencies, with one small read.
func (b *Board) whyNotClaimed(ctx context.Context, id string) error {
	var status string
	var run sql.NullString
	err := b.st.Read().QueryRowContext(ctx, `SELECT status, run_id FROM tasks WHERE id = ?`, id).Scan(&status, &run)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("task '%s': %w", id, ErrNotFound)
	}
	if err != nil {
		return err
	}
	if Status(status) == Todo && !run.Valid {
		return rule("waiting_on_dependencies", "task '%s' waits on tasks that are not done", id)
	}
	return fmt.Errorf("task '%s' is %s: %w", id, status, ErrConflict)
}

// Heartbeat keeps a run's claim alive.
func (b *Board) Heartbeat(ctx context.Context, id, runID string) error {
	_, err := b.st.Write().ExecContext(ctx, `UPDATE tasks SET heartbeat_at = ? WHERE id = ? AND run_id = ?`, b.ms(), id, runID)
	return err
}

// Outcome is how a run leaves the task it held.
type Outcome struct {
	To           Status        // todo (released), in_review, done or blocked
	Verification *Verification // stored when set
	// KeepAssignee keeps the assignee of a task going back to todo (a
	// person stopped its run: the card still says whose it is, and Run
	// again needs no choosing); otherwise todo releases it.
	KeepAssignee bool
	Comment      *NewComment // added in the same transaction
}

// Finish moves a task off the run that held it, only while that run still
// holds it (a task someone cancelled meanwhile stays cancelled). Moving to
// todo releases the claim (the assignee too, unless KeepAssignee); any
// other target keeps the assignee for the record.
func (b *Board) Finish(ctx context.Context, id, runID string, o Outcome) (Task, error) {
	return b.changeTask(ctx, id, func(q store.Querier) error {
		t, err := getTask(ctx, q, id)
		if err != nil {
			return err
		}
		if t.RunID == nil || *t.RunID != runID {
			return nil // no longer ours: leave it as it is
		}
		now := b.ms()
		sets := []string{"status = ?", "run_id = NULL", "heartbeat_at = NULL", "updated_at = ?"}
		args := []any{string(o.To), now}
		if o.To == Todo && !o.KeepAssignee {
			sets = append(sets, "assignee_agent_id = NULL", "assignee_runtime = NULL")
		}
		if o.To.Terminal() {
			sets, args = append(sets, "completed_at = ?"), append(args, now)
		}
		if o.Verification != nil {
			raw, _ := json.Marshal(o.Verification)
			sets, args = append(sets, "verification = ?"), append(args, string(raw))
		}
		args = append(args, id)
		if _, err := q.ExecContext(ctx, `UPDATE tasks SET `+strings.Join(sets, ", ")+` WHERE id = ?`, args...); err != nil {
			return err
		}
		if o.Comment != nil {
			c := Comment{
				ID: newID(), TaskID: id, AuthorType: o.Comment.AuthorType, AuthorID: optional(o.Comment.AuthorID),
				Body: strings.TrimSpace(o.Comment.Body), CreatedAt: now,
			}
			if c.AuthorType == "" {
				c.AuthorType = "system"
			}
			if c.Body != "" {
				return insertComment(ctx, q, c)
			}
		}
		return nil
	})
}

// Release gives a claimed task back to todo with a note saying why.
func (b *Board) Release(ctx context.Context, id, runID, why string) (Task, error) {
	return b.Finish(ctx, id, runID, Outcome{To: Todo, Comment: &NewComment{AuthorType: "system", Body: why}})
}

// ReleaseDead releases every in_progress task held by a run that is not
// live (isLive false) and whose heartbeat is older than stale milliseconds
// (0: any age), then the checkout locks (work in place) of runs that are
// neither live nor hold a claim. It returns the released task ids. It is
// the stale sweep and,
// at start-up, the recovery of claims a crash left behind.
func (b *Board) ReleaseDead(ctx context.Context, staleMs int64, isLive func(runID string) bool) ([]string, error) {
	cutoff := b.ms() - staleMs
	rows, err := b.st.Read().QueryContext(ctx, `SELECT id, run_id FROM tasks
		WHERE status = 'in_progress' AND run_id IS NOT NULL AND COALESCE(heartbeat_at, 0) <= ?`, cutoff)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	type held struct{ id, run string }
	var cands []held
	for rows.Next() {
		var h held
		if err := rows.Scan(&h.id, &h.run); err != nil {
			rows.Close()
			return nil, err
		}
		cands = append(cands, h)
	}
	rows.Close()
	var released []string
	for _, h := range cands {
		if isLive(h.run) {
			continue
		}
		if _, err := b.Release(ctx, h.id, h.run, "Released: the run working on it ("+h.run+") stopped without finishing."); err != nil {
			return released, err
		}
		released = append(released, h.id)
	}
	return released, b.releaseDeadCheckouts(ctx, isLive)
}
