package orchestrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/teams"
)

// delegationRow is one row of the delegations table.
type delegationRow struct {
	id, teamID, assignee, mission, taskID, status string
	failures                                      int
	outcome                                       string
}

func (e *Engine) loadDelegation(ctx context.Context, id string) (delegationRow, error) {
	rows, err := e.delegationsWhere(ctx, `id = ?`, id)
	if err != nil {
		return delegationRow{}, err
	}
	if len(rows) == 0 {
		return delegationRow{}, sql.ErrNoRows
	}
	return rows[0], nil
}

func (e *Engine) delegationsWhere(ctx context.Context, where string, args ...any) ([]delegationRow, error) {
	rows, err := e.o.Store.Reader().QueryContext(ctx, `SELECT id, team_id, assignee_id, mission_id, task_id, status, failures,
		COALESCE(outcome, '') FROM delegations WHERE `+where+` ORDER BY created_at, id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []delegationRow
	for rows.Next() {
		var r delegationRow
		if err := rows.Scan(&r.id, &r.teamID, &r.assignee, &r.mission, &r.taskID, &r.status, &r.failures, &r.outcome); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// errWaiting is a pending delegation whose plan predecessor has not ended.
var errWaiting = errors.New("waiting for the step before it")

// dispatch starts a pending delegation's child task on its member's
// runtime. A start that fails counts a failure; the third gives up and
// reports the delegation ended.
func (e *Engine) dispatch(ctx context.Context, id string) error {
	if _, busy := e.dispatching.LoadOrStore(id, struct{}{}); busy {
		return nil // another dispatch is starting it; it re-reads the state
	}
	defer e.dispatching.Delete(id)
	r, err := e.loadDelegation(ctx, id)
	if err != nil {
		return err
	}
	if r.status != "pending" {
		return nil
	}
	if e.isClosed() {
		return ErrClosed
	}
	task, err := e.o.Board.Get(ctx, r.taskID)
	if err != nil {
		return err
	}
	switch task.Status {
	case board.Todo, board.Backlog:
	default:
		return nil // someone else moved it (a person, a claim): not ours to start
	}
	for _, dep := range task.DependsOn {
		dt, err := e.o.Board.Get(ctx, dep)
		if err != nil || (dt.Status != board.Done && dt.Status != board.InReview) {
			return errWaiting
		}
	}
	m, team := e.member(ctx, r.teamID, r.assignee)
	if m.Runtime == "" {
		return e.startFailed(ctx, r, fmt.Errorf("@%s is no longer a member of the team", m.Name), false)
	}
	mail, _ := e.digest(ctx, team, m, DigestBudget)
	p := supervisor.StartParams{
		RuntimeID: executor.ID(m.Runtime), AgentID: m.AgentID, TaskID: r.taskID,
		Context: e.turnContext(ctx, team, m, mail), Reason: "delegation", IdleTimeout: IdleWatchdog, IdleToolOpen: IdleToolOpen,
	}
	if m.Runtime != string(executor.Native) {
		p.Model = m.Model
	}
	h, err := e.o.Supervisor.Start(ctx, p)
	if errors.Is(err, supervisor.ErrClosed) || e.isClosed() && err != nil {
		return ErrClosed
	}
	if err != nil {
		// A claim by someone else (another process on this home) between
		// the read above and the start is not this delegation's failure.
		if now, gerr := e.o.Board.Get(ctx, r.taskID); gerr == nil && now.Status != board.Todo && now.Status != board.Backlog {
			return nil
		}
		return e.startFailed(ctx, r, err, false)
	}
	e.markDelivered(ctx, team.ID, m.AgentID, mail.seqs, "digest")
	now := e.o.Now().UnixMilli()
	res, err := e.o.Store.Writer().ExecContext(ctx, `UPDATE delegations SET status = 'running', child_run_id = ?, updated_at = ? WHERE id = ? AND status = 'pending'`,
		h.ID, now, r.id)
	if err != nil {
		e.o.Log.Warn("delegation state not saved", "delegation", r.id, "err", err)
	} else if n, _ := res.RowsAffected(); n == 0 {
		// A person stopped it while it was starting: their word holds.
		_ = e.o.Supervisor.Abort(ctx, h.ID)
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		run, _ := h.Wait(context.Background())
		e.childEnded(r.id, run, h.Task())
	}()
	return nil
}

// startFailed counts a failed try of a delegation: a run that never
// started (started false) or one that ended without finishing. The third
// gives up and reports the delegation ended.
func (e *Engine) startFailed(ctx context.Context, r delegationRow, cause error, started bool) error {
	n := r.failures + 1
	now := e.o.Now().UnixMilli()
	m, _ := e.member(ctx, r.teamID, r.assignee)
	title := e.taskTitle(ctx, r.taskID)
	if n >= MaxFailures {
		outcome := "not started: "
		if started {
			outcome = "not finished: "
		}
		res, err := e.o.Store.Writer().ExecContext(ctx, `UPDATE delegations SET failures = ?, status = 'ended', outcome = ?, updated_at = ?
			WHERE id = ? AND status = 'pending'`, n, outcome+words(cause), now, r.id)
		if err == nil {
			if k, _ := res.RowsAffected(); k == 1 {
				e.postAbout(r.teamID, r.taskID, teams.KindSystem, fmt.Sprintf("Gave up on %q for @%s after %d tries: %s", title, m.Name, n, words(cause)))
				e.scheduleUpdate(r.teamID)
			}
		}
		return cause
	}
	_, _ = e.o.Store.Writer().ExecContext(ctx, `UPDATE delegations SET failures = ?, updated_at = ? WHERE id = ? AND status = 'pending'`, n, now, r.id)
	what := "did not start"
	if started {
		what = "stopped before it finished"
	}
	e.postAbout(r.teamID, r.taskID, teams.KindSystem, fmt.Sprintf("%q for @%s %s (attempt %d of %d): %s. It will be tried again.",
		title, m.Name, what, n, MaxFailures, words(cause)))
	return cause
}

// taskTitle is a task's title as people read it (its id only when it is gone).
func (e *Engine) taskTitle(ctx context.Context, id string) string {
	if t, err := e.o.Board.Get(ctx, id); err == nil {
		return t.Title
	}
	return id
}

// childEnded records a child's end once, reports it up (a comment on the
// mission and a post in the room), starts what waited for it, and queues
// the leader's [Task Update].
func (e *Engine) childEnded(id string, run store.Run, task *board.Task) {
	ctx := context.Background()
	if e.isClosed() && run.Status != store.RunSucceeded {
		return // ended by the shutdown: the next start's recovery settles it
	}
	r, err := e.loadDelegation(ctx, id)
	if err != nil {
		return
	}
	if task == nil {
		if t, err := e.o.Board.Get(ctx, r.taskID); err == nil {
			task = &t
		}
	}
	if supervisor.StoppedByPerson(run) {
		e.childStopped(ctx, r, run, task)
		return
	}
	status := "ended"
	title := r.taskID
	if task != nil {
		status, title = string(task.Status), task.Title
	}
	if task != nil && (task.Status == board.Todo || task.Status == board.Backlog) && run.Status != store.RunSucceeded {
		// Released back to the board (the run failed to finish): another try,
		// up to the failure limit.
		_, _ = e.o.Store.Writer().ExecContext(ctx, `UPDATE delegations SET status = 'pending', updated_at = ? WHERE id = ? AND status = 'running'`,
			e.o.Now().UnixMilli(), id)
		r.status = "pending"
		_ = e.startFailed(ctx, r, errors.New(runWords(run)), run.StartedAt != nil)
		return
	}
	summary := strings.TrimSpace(run.Summary)
	if summary == "" {
		summary = strings.TrimSpace(run.Error)
	}
	outcome := outcomeWords(status, run.Status)
	res, err := e.o.Store.Writer().ExecContext(ctx, `UPDATE delegations SET status = 'ended', outcome = ?, child_run_id = COALESCE(child_run_id, ?),
		updated_at = ? WHERE id = ? AND status IN ('running','pending')`, clip(outcome+": "+summary, maxSummaryShown), run.ID, e.o.Now().UnixMilli(), id)
	if err != nil {
		e.o.Log.Warn("delegation end not saved", "delegation", id, "err", err)
		return
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return // already reported (a restart's recovery got there first)
	}
	m, _ := e.member(ctx, r.teamID, r.assignee)
	// People read this one: the task by its title (the [Task Update] to the
	// leader carries the id, for its tools).
	report := fmt.Sprintf("Report on %q: %s.", title, outcome)
	if summary != "" {
		report += "\n" + clip(summary, maxSummaryShown)
	}
	if _, err := e.o.Board.AddComment(ctx, r.mission, board.NewComment{AuthorType: "agent", AuthorID: r.assignee, Body: report}); err != nil {
		e.o.Log.Warn("report-up comment not added", "mission", r.mission, "err", err)
	}
	_, _ = e.post(ctx, teams.Post{TeamID: r.teamID, Author: m.AgentID, Kind: teams.KindPeer, Body: report, TaskID: r.taskID})
	e.settleMission(ctx, r.mission)
	e.dispatchWaiting(ctx, r.teamID)
	e.scheduleUpdate(r.teamID)
}

// outcomeWords says how a child ended: where its task is now, and how its
// run ended when that was not a success.
func outcomeWords(taskStatus, runStatus string) string {
	out := strings.ReplaceAll(taskStatus, "_", " ")
	switch runStatus {
	case store.RunSucceeded, "":
	case store.RunTimedOut:
		out += ", the run timed out"
	default:
		out += ", the run " + strings.ReplaceAll(runStatus, "_", " ")
	}
	return out
}

// runWords is how a run ended, in words: its status and its error.
func runWords(run store.Run) string {
	st := strings.ReplaceAll(run.Status, "_", " ")
	if st == "" {
		st = "ended"
	}
	msg := firstLine(run.Error)
	if w, ok := strings.CutPrefix(msg, "quota:"); ok {
		msg = "the runtime's " + strings.ReplaceAll(w, "_", "-") + " quota window was used up"
	} else if scope, ok := strings.CutPrefix(msg, "budget_paused:"); ok {
		msg = "the " + scope + " budget is used up"
	}
	if msg != "" {
		return "the run " + st + ": " + strings.TrimSuffix(msg, ".")
	}
	return "the run " + st
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return clip(l, 300)
}

// dispatchWaiting starts the team's pending delegations that can start.
func (e *Engine) dispatchWaiting(ctx context.Context, teamID string) {
	rows, err := e.delegationsWhere(ctx, `team_id = ? AND status = 'pending'`, teamID)
	if err != nil {
		return
	}
	for _, r := range rows {
		_ = e.dispatch(ctx, r.id)
	}
}

// scheduleUpdate arms the team's [Task Update] batch (one per window).
func (e *Engine) scheduleUpdate(teamID string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed || e.batch[teamID] != nil {
		return
	}
	e.batch[teamID] = time.AfterFunc(e.o.UpdateWindow, func() {
		e.mu.Lock()
		delete(e.batch, teamID)
		closed := e.closed
		e.mu.Unlock()
		if !closed {
			e.fireUpdate(teamID)
		}
	})
}

// fireUpdate sends every ended, unreported delegation of the team to its
// leader as one [Task Update] per mission, in a follow-up turn. Each is
// marked reported first, so none is sent twice.
func (e *Engine) fireUpdate(teamID string) {
	ctx := context.Background()
	if e.leaderBusy(teamID) {
		// One turn of the leader at a time: the update waits for the live
		// one to end.
		e.scheduleUpdate(teamID)
		return
	}
	rows, err := e.delegationsWhere(ctx, `team_id = ? AND status = 'ended'`, teamID)
	if err != nil || len(rows) == 0 {
		return
	}
	byMission := map[string][]delegationRow{}
	var order []string
	for _, r := range rows {
		if byMission[r.mission] == nil {
			order = append(order, r.mission)
		}
		byMission[r.mission] = append(byMission[r.mission], r)
	}
	for _, mission := range order {
		var lines []string
		for _, r := range byMission[mission] {
			res, err := e.o.Store.Writer().ExecContext(ctx, `UPDATE delegations SET status = 'reported', updated_at = ? WHERE id = ? AND status = 'ended'`,
				e.o.Now().UnixMilli(), r.id)
			if err != nil {
				continue
			}
			if n, _ := res.RowsAffected(); n == 0 {
				continue
			}
			m, _ := e.member(ctx, teamID, r.assignee)
			// The outcome carries the child's own summary: quoted, so a
			// member's text cannot pose as the update's frame.
			status, summary, _ := strings.Cut(r.outcome, ": ")
			line := fmt.Sprintf("- @%s, task %s: %s", m.Name, r.taskID, status)
			if strings.TrimSpace(summary) != "" {
				line += "\n" + teams.Quote(summary, "  ")
			}
			lines = append(lines, line)
		}
		if len(lines) == 0 {
			continue
		}
		e.followUp(ctx, teamID, mission, "[Task Update]\n"+strings.Join(lines, "\n"))
	}
}

// followUp gives the leader an automatic turn, within the limit.
func (e *Engine) followUp(ctx context.Context, teamID, mission, message string) {
	team, err := e.o.Teams.Get(ctx, teamID)
	if err != nil {
		return
	}
	// The update goes to the leader there is now (it may have changed
	// since the delegation).
	lead, ok := team.Leader()
	if !ok {
		e.system(teamID, "A [Task Update] has no leader to go to; choose a leader and ask for a summary.")
		return
	}
	e.mu.Lock()
	e.fires[mission]++
	n := e.fires[mission]
	e.mu.Unlock()
	if n > MaxAutoFires {
		e.system(teamID, fmt.Sprintf("@%s was not woken for this [Task Update]: a mission gets at most %d automatic follow-ups. Ask the leader when you want it to continue.",
			lead.Name, MaxAutoFires))
		return
	}
	if _, err := e.startTurn(ctx, team, lead, turnSpec{message: message, mission: mission}); err != nil {
		e.system(teamID, fmt.Sprintf("@%s did not take its follow-up turn: %s", lead.Name, words(err)))
	}
}
