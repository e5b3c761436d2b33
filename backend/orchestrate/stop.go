package orchestrate

import (
	"context"
	"fmt"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/teams"
)

// A person's stop is final. Stop (all) and StopMember abort the live runs
// as the person's (supervisor.Abort), and mark the team's (or member's)
// delegations that have not started stopped too; a child whose run a
// person stopped — here, on the Runs page, in the drawer, or by cancelling
// its task — is marked stopped when it ends (childStopped). A stopped
// delegation is never dispatched by the pump, re-dispatched by a restart's
// recovery, reported in a [Task Update] or followed by its plan's next
// step; the room says "Stopped by you" naming the task and the member; the
// mission waits for the person. A person's Run again on the task brings it
// back (watch.go).

// Stop asks every live turn and delegated task run of the team to stop,
// as the person's stop, and returns how many runs were asked.
func (e *Engine) Stop(ctx context.Context, teamID string) int {
	return e.stopWhere(ctx, teamID, "")
}

// StopMember stops one member's live runs in the team, as the person's
// stop, and its delegations that wait to start.
func (e *Engine) StopMember(ctx context.Context, teamID, agentID string) int {
	return e.stopWhere(ctx, teamID, agentID)
}

func (e *Engine) stopWhere(ctx context.Context, teamID, agentID string) int {
	e.mu.Lock()
	e.stopped[key(teamID, agentID)] = e.o.Now().UnixMilli()
	e.mu.Unlock()
	// Waiting delegations first, so none starts between the aborts and
	// the marking.
	where, args := `team_id = ? AND status = 'pending'`, []any{teamID}
	if agentID != "" {
		where, args = where+` AND assignee_id = ?`, append(args, agentID)
	}
	if rows, err := e.delegationsWhere(ctx, where, args...); err == nil {
		for _, r := range rows {
			e.childStopped(ctx, r, store.Run{}, nil)
		}
	}
	var ids []string
	e.mu.Lock()
	for id, t := range e.turns {
		if t.teamID == teamID && (agentID == "" || t.agentID == agentID) {
			ids = append(ids, id)
		}
	}
	e.mu.Unlock()
	ts, err := e.o.Board.List(ctx, board.Filter{TeamID: teamID})
	if err == nil {
		for _, task := range ts {
			if task.RunID != nil && (agentID == "" || (task.AssigneeAgentID != nil && *task.AssigneeAgentID == agentID)) {
				ids = append(ids, *task.RunID)
			}
		}
	}
	n := 0
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		if e.o.Supervisor.Abort(ctx, id) == nil {
			n++
		}
	}
	return n
}

// childStopped records a person's stop of a delegation once: it is marked
// stopped (nothing automatic starts it again), the room and the mission
// are told, naming the task and the member, and the mission settles —
// waiting for the person, with no leader turn started by the stop.
func (e *Engine) childStopped(ctx context.Context, r delegationRow, run store.Run, task *board.Task) {
	res, err := e.o.Store.Writer().ExecContext(ctx, `UPDATE delegations SET status = 'stopped', outcome = ?,
		child_run_id = COALESCE(NULLIF(?, ''), child_run_id), updated_at = ? WHERE id = ? AND status IN ('pending','running')`,
		supervisor.StoppedByYou, run.ID, e.o.Now().UnixMilli(), r.id)
	if err != nil {
		e.o.Log.Warn("delegation stop not saved", "delegation", r.id, "err", err)
		return
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return // already settled
	}
	if task == nil {
		if t, err := e.o.Board.Get(ctx, r.taskID); err == nil {
			task = &t
		}
	}
	title := r.taskID
	closed := false
	if task != nil {
		title, closed = task.Title, task.Status == board.Cancelled
	}
	m, _ := e.member(ctx, r.teamID, r.assignee)
	body := fmt.Sprintf("Stopped by you: %q for @%s. It waits in To do until you run it again or close it; nothing starts it by itself.", title, m.Name)
	if closed {
		body = fmt.Sprintf("Stopped by you: %q for @%s, and closed.", title, m.Name)
	} else if run.ID == "" {
		body = fmt.Sprintf("Stopped by you: %q for @%s, before it started. It waits in To do until you run it again or close it.", title, m.Name)
	}
	e.postAbout(r.teamID, r.taskID, teams.KindStop, body)
	if _, err := e.o.Board.AddComment(ctx, r.mission, board.NewComment{AuthorType: "system", Body: body}); err != nil {
		e.o.Log.Warn("stop comment not added", "mission", r.mission, "err", err)
	}
	e.settleMission(ctx, r.mission)
}

// postAbout posts the orchestrator's own note about a task.
func (e *Engine) postAbout(teamID, taskID, kind, body string) {
	_, _ = e.post(context.Background(), teams.Post{TeamID: teamID, Author: teams.AuthorSystem, Kind: kind, Body: body, TaskID: taskID})
}

// settleMission moves a mission by its children: in progress while any
// is open (being worked, or waiting to start); else in review while any
// waits for a person (its work in review, or stopped by them); else done
// (every child landed or was closed). A mission whose leader's turn is
// live is left alone until the turn ends (it may delegate more).
func (e *Engine) settleMission(ctx context.Context, missionID string) {
	if e.missionLive(missionID) {
		return // its leader's turn may still delegate: settled when it ends
	}
	mt, err := e.o.Board.Get(ctx, missionID)
	if err != nil || mt.RunID != nil || (mt.Status != board.InProgress && mt.Status != board.InReview) {
		return
	}
	kids, err := e.o.Board.List(ctx, board.Filter{ParentID: missionID})
	if err != nil || len(kids) == 0 {
		return
	}
	stopped, err := e.stoppedTasks(ctx, missionID)
	if err != nil {
		return
	}
	to := board.Done
	for _, k := range kids {
		switch {
		case k.Status == board.Done || k.Status == board.Cancelled:
		case k.Status == board.InReview:
			if to == board.Done {
				to = board.InReview
			}
		case (k.Status == board.Todo || k.Status == board.Backlog) && stopped[k.ID]:
			if to == board.Done {
				to = board.InReview
			}
		default:
			to = board.InProgress
		}
	}
	if to == mt.Status {
		return
	}
	if _, err := e.o.Board.Update(ctx, missionID, board.Patch{Status: &to}); err != nil {
		e.o.Log.Warn("mission not settled", "mission", missionID, "err", err)
	}
}

// missionLive reports whether a live turn delegates under the mission.
func (e *Engine) missionLive(missionID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range e.turns {
		if t.mission == missionID {
			return true
		}
	}
	return false
}

// stoppedTasks are the tasks of a mission whose delegation a person stopped.
func (e *Engine) stoppedTasks(ctx context.Context, missionID string) (map[string]bool, error) {
	rows, err := e.delegationsWhere(ctx, `mission_id = ? AND status = 'stopped'`, missionID)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, r := range rows {
		out[r.taskID] = true
	}
	return out, nil
}
