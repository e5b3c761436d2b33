package orchestrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/teams"
)

// The room follows a delegated task past its first run, from the board's
// events: a merge of its work ("Merged "title" into main"), a send-back
// ("Sent back to @Name: …"), and a person's Run again after a stop or an
// end (the delegation is running again and its end is reported as usual).
// Each is posted with the task's id, addressed to the leader's mail
// without waking it, and the mission settles with each change.

// delegationOf is the delegation whose child task is taskID.
func (e *Engine) delegationOf(ctx context.Context, taskID string) (delegationRow, bool) {
	rows, err := e.delegationsWhere(ctx, `task_id = ?`, taskID)
	if err != nil || len(rows) == 0 {
		return delegationRow{}, false
	}
	return rows[0], true
}

// onTask acts on a team task's change.
func (e *Engine) onTask(t board.Task) {
	ctx := context.Background()
	d, ok := e.delegationOf(ctx, t.ID)
	if !ok {
		return
	}
	e.mu.Lock()
	sentBack := false
	switch t.Status {
	case board.InReview:
		e.inReview[t.ID] = true
	case board.InProgress:
		sentBack = e.inReview[t.ID] && t.RunID != nil
		delete(e.inReview, t.ID)
	case board.Done, board.Cancelled:
		delete(e.inReview, t.ID)
	}
	e.mu.Unlock()
	if t.Status == board.InProgress && t.RunID != nil {
		if sentBack {
			e.wg.Add(1)
			go func() {
				defer e.wg.Done()
				e.postSendBack(d, t)
			}()
		}
		e.reattach(ctx, d, *t.RunID)
	}
	if t.Status == board.Done && t.Merged != nil {
		e.postMerge(ctx, d, t, t.Merged.Base)
	}
	e.settleMission(ctx, d.mission)
}

// postMerge tells the room (and so the leader's mail) once that a
// delegated task's work is in its base branch.
func (e *Engine) postMerge(ctx context.Context, d delegationRow, t board.Task, base string) {
	e.mu.Lock()
	seen := e.merged[t.ID]
	e.merged[t.ID] = true
	e.mu.Unlock()
	if seen {
		return
	}
	body := fmt.Sprintf("Merged %q", t.Title)
	if base != "" {
		body += " into " + base
	}
	e.postAbout(d.teamID, t.ID, teams.KindMerge, body+".")
}

// postSendBack tells the room that a person sent a delegated task's work
// back to its member, with what they asked (the run's message, read once
// the run is registered: the claim that announced it comes first).
func (e *Engine) postSendBack(d delegationRow, t board.Task) {
	ctx := context.Background()
	m, _ := e.member(ctx, d.teamID, d.assignee)
	if t.AssigneeAgentID != nil {
		m, _ = e.member(ctx, d.teamID, *t.AssigneeAgentID)
	}
	asked := e.runPrompt(*t.RunID)
	body := fmt.Sprintf("Sent back to @%s: %q", m.Name, t.Title)
	if asked = strings.TrimSpace(asked); asked != "" {
		body += "\n" + clip(asked, 600)
	}
	e.postAbout(d.teamID, t.ID, teams.KindSystem, body)
}

// runPrompt is what a run was asked, once the supervisor or the ledger
// knows the run ("" when neither does within a few seconds).
func (e *Engine) runPrompt(runID string) string {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for {
		if run, ok := e.o.Supervisor.Live(runID); ok && run.Prompt != "" {
			return run.Prompt
		}
		if run, err := e.o.Store.GetRun(context.Background(), runID); err == nil {
			return run.Prompt
		}
		select {
		case <-e.root.Done():
			return ""
		case <-deadline:
			return ""
		case <-tick.C:
		}
	}
}

// reattach follows a run a person started on a delegated task that had
// ended or been stopped (Run again, a send-back): the delegation is
// running again, and its end is reported as any child's.
func (e *Engine) reattach(ctx context.Context, d delegationRow, runID string) {
	res, err := e.o.Store.Writer().ExecContext(ctx, `UPDATE delegations SET status = 'running', child_run_id = ?, failures = 0, updated_at = ?
		WHERE id = ? AND status IN ('stopped','ended','reported') AND COALESCE(child_run_id, '') <> ?`,
		runID, e.o.Now().UnixMilli(), d.id, runID)
	if err != nil {
		return
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return // the engine's own dispatch, or already followed
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.followRun(d.id, runID)
	}()
}

// followRun waits for a run this engine did not start to end, then
// reports it. The claim that announced the run comes a moment before the
// run is registered, so it is looked for until it is live or saved ended.
func (e *Engine) followRun(delegation, runID string) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(time.Minute)
	for {
		if h, ok := e.o.Supervisor.Handle(runID); ok {
			run, _ := h.Wait(e.root)
			if e.root.Err() != nil {
				return // shutting down: the next start's recovery settles it
			}
			e.childEnded(delegation, run, h.Task())
			return
		}
		run, err := e.o.Store.GetRun(context.Background(), runID)
		if err == nil && !run.Live() {
			e.childEnded(delegation, run, nil)
			return
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) && !strings.Contains(err.Error(), "not found") {
			return
		}
		select {
		case <-e.root.Done():
			return
		case <-deadline:
			e.o.Log.Warn("a run on a delegated task was not found", "run", runID)
			return
		case <-tick.C:
		}
	}
}
