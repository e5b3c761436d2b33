package dispatch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/routines"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
)

// Firer is the one door a routine's fire goes through: a task made from the
// template and run by the task runner (budgets, worktree, verify, the
// critic), or for an OpenClaw agent a turn in its Gateway session.
func (d *Door) Firer() routines.Firer { return firer{d} }

type firer struct{ d *Door }

func skipped(format string, a ...any) routines.FireResult {
	return routines.FireResult{Outcome: routines.OutcomeSkipped, Reason: "skipped: " + fmt.Sprintf(format, a...)}
}

func failed(format string, a ...any) routines.FireResult {
	return routines.FireResult{Outcome: routines.OutcomeFailed, Reason: fmt.Sprintf(format, a...)}
}

func (f firer) Fire(ctx context.Context, req routines.FireRequest) routines.FireResult {
	d, sc := f.d, req.Schedule
	ag, err := d.Agents.Get(ctx, sc.AgentID)
	if err != nil {
		return failed("the agent %s cannot be read: %v", sc.AgentID, err)
	}
	scopes := budget.Scopes{AgentID: ag.ID}
	if sc.TeamID != nil {
		scopes.TeamID = *sc.TeamID
	}
	var paused *budget.PausedError
	if err := d.Budget.Preflight(ctx, scopes); errors.As(err, &paused) {
		return skipped("the %s budget for %s is paused; raise or resume it", paused.Scope, paused.ScopeID)
	} else if err != nil {
		return failed("budgets unreadable: %v", err)
	}
	if executor.ID(ag.Runtime) == executor.OpenClaw {
		return f.fireOpenClaw(ctx, req, ag.Model)
	}
	t := sc.Template
	task, err := d.Board.Create(ctx, board.NewTask{
		Title: t.Title, Description: t.Description, Kind: board.Kind(t.Kind),
		Priority: t.Priority, TeamID: teamOf(sc.TeamID), RepoPath: f.repoOf(ctx, sc), AssigneeAgentID: ag.ID, AssigneeRuntime: ag.Runtime,
	})
	if err != nil {
		return failed("the task could not be made: %v", err)
	}
	req.Started("", task.ID)
	if t.MaxUSD > 0 {
		if _, err := d.Budget.SetBudget(ctx, budget.ScopeMission, task.ID, budget.FromUSD(t.MaxUSD), budget.ModeCap); err != nil {
			return f.abandon(task.ID, failed("the task's $%.2f cap could not be set: %v", t.MaxUSD, err))
		}
	}
	h, err := d.Supervisor.Start(ctx, supervisor.StartParams{
		RuntimeID: executor.ID(ag.Runtime), AgentID: ag.ID, TaskID: task.ID,
		Model: t.Model, Reason: "routine",
	})
	var refusal *supervisor.Refusal
	if errors.As(err, &refusal) && refusal.Reason == "budget_paused" {
		return f.abandon(task.ID, skipped("%s", refusal.Msg))
	}
	if errors.As(err, &refusal) && refusal.DeferralID != "" {
		// The quota governor holds the task until the window resets and
		// starts it then: the fire is not a failure, and its task stays.
		return routines.FireResult{Outcome: routines.OutcomeSkipped, Reason: "deferred: " + refusal.Msg, TaskID: task.ID}
	}
	if err != nil {
		return f.abandon(task.ID, failed("not started: %v", err))
	}
	req.Started(h.ID, task.ID)
	run, err := h.Wait(ctx)
	if err != nil && ctx.Err() != nil {
		return routines.FireResult{Outcome: routines.OutcomeInterrupted, Reason: "Clawboo shut down during this fire", RunID: h.ID, TaskID: task.ID}
	}
	// A run that reached its turn limit continues in successors (each may
	// hand on to the next); the fire ends when the task's last run does.
	last := run
	for next, hops := h.Successor(), 0; next != "" && hops <= supervisor.MaxSuccessors; hops++ {
		if last, err = f.waitRun(ctx, next); err != nil {
			break
		}
		next = f.successorOf(task.ID, next)
	}
	res := routines.FireResult{RunID: h.ID, TaskID: task.ID, CostNano: f.taskCost(task.ID)}
	final, err := d.Board.Get(context.Background(), task.ID)
	switch {
	case err != nil:
		res.Outcome, res.Reason = routines.OutcomeFailed, "the task cannot be read: "+err.Error()
	case last.Status == store.RunSucceeded && (final.Status == board.InReview || final.Status == board.Done):
		res.Outcome, res.Reason = routines.OutcomeSuccess, "task "+string(final.Status)
	default:
		res.Outcome, res.Reason = routines.OutcomeFailed, runWords(last, final)
	}
	return res
}

// repoOf is where a fire's task works: the template's repository, else its
// team's as the team has it now (so a routine follows its team's repository
// when that changes), else none.
func (f firer) repoOf(ctx context.Context, sc routines.Schedule) string {
	if sc.Template.RepoPath != "" || sc.TeamID == nil || f.d.Teams == nil {
		return sc.Template.RepoPath
	}
	if team, err := f.d.Teams.Get(ctx, *sc.TeamID); err == nil && team.RepoPath != nil {
		return *team.RepoPath
	}
	return ""
}

// abandon cancels a task a fire made but could not run, so a skipped
// fire leaves no orphan card on the board.
func (f firer) abandon(taskID string, res routines.FireResult) routines.FireResult {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st := board.Cancelled
	if _, err := f.d.Board.Update(ctx, taskID, board.Patch{Status: &st}); err != nil {
		f.d.log().Warn("a routine's unstarted task was not cancelled", "task", taskID, "err", err)
	}
	res.TaskID = taskID
	return res
}

func runWords(r store.Run, t board.Task) string {
	why := r.Error
	if why == "" {
		why = r.Summary
	}
	if len(why) > 500 {
		why = why[:500] + "…"
	}
	if why == "" {
		return fmt.Sprintf("run %s, task %s", r.Status, t.Status)
	}
	return fmt.Sprintf("run %s, task %s: %s", r.Status, t.Status, why)
}

// waitRun waits for a run the fire did not start (a successor) to end.
func (f firer) waitRun(ctx context.Context, id string) (store.Run, error) {
	for {
		wake, cancel := f.d.Supervisor.Watch(id)
		if !f.d.Supervisor.IsLive(id) {
			cancel()
			return f.d.Store.GetRun(context.Background(), id)
		}
		select {
		case <-wake:
		case <-time.After(time.Second):
		case <-ctx.Done():
			cancel()
			return store.Run{}, ctx.Err()
		}
		cancel()
	}
}

// successorOf is the run that took the task over from run prev (a
// successor claims the task before prev's end is reported), "" when none.
func (f firer) successorOf(taskID, prev string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	t, err := f.d.Board.Get(ctx, taskID)
	if err != nil || t.RunID == nil || *t.RunID == prev || t.Status != board.InProgress {
		return ""
	}
	return *t.RunID
}

// taskCost is everything the task's runs cost (its critic's included).
func (f firer) taskCost(taskID string) int64 {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	runs, err := f.d.Store.TaskRunsWithReviews(ctx, taskID, 200)
	if err != nil {
		return 0
	}
	var total budget.Nano
	for _, r := range runs {
		if n, _, err := f.d.Budget.RunSpend(ctx, r.ID); err == nil {
			total += n
		}
	}
	return int64(total)
}

// fireOpenClaw delivers the fire to the agent's Gateway session
// routine:<id> as an ad-hoc run (OpenClaw takes no board tasks), stopped
// after the watchdog. OpenClaw reports no cost: the supervisor charges a
// character estimate at the model that served (the routine's model when it
// names one, else the agent's).
func (f firer) fireOpenClaw(ctx context.Context, req routines.FireRequest, agentModel string) routines.FireResult {
	d, sc := f.d, req.Schedule
	msg := sc.Template.Title
	if sc.Template.Description != "" {
		msg += "\n\n" + sc.Template.Description
	}
	model := sc.Template.Model
	if model == "" {
		model = agentModel
	}
	h, err := d.Supervisor.Start(ctx, supervisor.StartParams{
		RuntimeID: executor.OpenClaw, AgentID: sc.AgentID, TeamID: teamOf(sc.TeamID),
		Message: msg, Model: model, SessionKey: "routine:" + sc.ID, Reason: "routine",
	})
	var refusal *supervisor.Refusal
	if errors.As(err, &refusal) && refusal.Reason == "budget_paused" {
		return skipped("%s", refusal.Msg)
	}
	if err != nil {
		return failed("not delivered to the Gateway: %v", err)
	}
	req.Started(h.ID, "")
	watchdog := f.d.OpenClawTimeout()
	wait, cancel := context.WithTimeout(ctx, watchdog)
	defer cancel()
	run, err := h.Wait(wait)
	timedOut := false
	if err != nil && ctx.Err() == nil {
		timedOut = true
		_ = d.Supervisor.AbortFor(context.Background(), h.ID, "the routine's watchdog ended the run")
		run, err = h.Wait(context.Background())
	}
	res := routines.FireResult{RunID: h.ID}
	if n, _, err := d.Budget.RunSpend(context.Background(), h.ID); err == nil {
		res.CostNano = int64(n)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		res.Outcome, res.Reason = routines.OutcomeInterrupted, "Clawboo shut down during this fire"
	case timedOut:
		res.Outcome, res.Reason = routines.OutcomeFailed, fmt.Sprintf("stopped by the %s watchdog", watchdog)
	case run.Status == store.RunSucceeded:
		res.Outcome, res.Reason = routines.OutcomeSuccess, "answered in the Gateway session"
	default:
		res.Outcome, res.Reason = routines.OutcomeFailed, runWords(run, board.Task{Status: "none"})
	}
	return res
}

func teamOf(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
