package dispatch

import (
	"context"
	"errors"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/quota"
	"github.com/clawboo/desktop/backend/redact"
	"github.com/clawboo/desktop/backend/supervisor"
)

// Gate is the quota governor at the supervisor's door: it joins
// backend/quota's decision to the agent's and team's fallback runtimes.
func (d *Door) Gate() supervisor.QuotaGate { return gate{d} }

type gate struct{ d *Door }

func (g gate) Observe(ctx context.Context, runtime executor.ID, q executor.QuotaWindow) {
	g.d.Quota.Observe(ctx, string(runtime), q)
}

func (g gate) Succeeded(ctx context.Context, runtime executor.ID) {
	g.d.Quota.Succeeded(ctx, string(runtime), "")
}

// ask is the governor's question for w: a native agent's windows are its
// provider's.
func (g gate) ask(ctx context.Context, runtime executor.ID, w supervisor.QuotaWork) quota.Ask {
	a := quota.Ask{Runtime: string(runtime), AgentID: w.AgentID, TeamID: w.TeamID}
	if runtime == executor.Native && w.AgentID != "" && g.d.Agents != nil {
		if ag, err := g.d.Agents.Get(ctx, w.AgentID); err == nil {
			a.Account = ag.Provider
		}
	}
	return a
}

func (g gate) Admit(ctx context.Context, w supervisor.QuotaWork) (executor.ID, string, error) {
	d := g.d
	if d.HostWait != nil && w.AgentID != "" {
		if window, why := d.HostWait(ctx, w.AgentID, w.TeamID); why != "" {
			return "", "", g.holdFor(ctx, w, &quota.Hold{
				Runtime: string(w.Runtime), Window: quota.Window{Window: window}, Until: d.Quota.Now().Add(hostRetry).UnixMilli(), Reason: why,
			}, "; it waits in To do and starts when the host can take it")
		}
	}
	hold, err := d.Quota.Check(ctx, g.ask(ctx, w.Runtime, w))
	if err != nil {
		// An unreadable ledger must not stop all work: it is logged.
		d.log().Warn("quota ledger unreadable; the work starts", "err", err)
		return "", "", nil
	}
	if hold == nil {
		g.cancelTask(ctx, w)
		return "", "", nil
	}
	if fb := g.fallback(ctx, w); fb != "" {
		if h2, err := d.Quota.Check(ctx, g.ask(ctx, fb, w)); err == nil && h2 == nil {
			g.cancelTask(ctx, w)
			return fb, hold.Reason + "; routed to " + d.RuntimeName(string(fb)), nil
		}
	}
	return "", "", g.holdFor(ctx, w, hold, "; deferred until then")
}

// hostRetry is how often work waiting for a host is tried again when
// nothing wakes it sooner (the host coming back, a slot freeing there).
const hostRetry = time.Minute

// holdFor defers w under hold and answers the refusal that says so.
func (g gate) holdFor(ctx context.Context, w supervisor.QuotaWork, hold *quota.Hold, then string) error {
	held := heldWork(w)
	held.Kind = quota.KindTask
	if w.TaskID == "" {
		held.Kind = quota.KindTeamTurn
	}
	held, err := g.d.Quota.Defer(ctx, held, *hold)
	if err != nil {
		return &supervisor.Refusal{Reason: supervisor.ReasonQuota, Msg: hold.Reason + " (not deferred: " + err.Error() + ")"}
	}
	return &supervisor.Refusal{
		Reason: supervisor.ReasonQuota, Msg: hold.Reason + then,
		DeferralID: held.ID, Until: held.Until,
	}
}

// cancelTask drops a task's earlier deferral: the task starts now.
func (g gate) cancelTask(ctx context.Context, w supervisor.QuotaWork) {
	if w.TaskID != "" {
		g.d.Quota.CancelTask(ctx, w.TaskID)
	}
}

// fallback is the agent's fallback runtime, else its team's, when it is a
// different runtime that is ready now (Ready: OpenClaw too, while its
// Gateway is connected), "" otherwise.
func (g gate) fallback(ctx context.Context, w supervisor.QuotaWork) executor.ID {
	d := g.d
	var fb string
	if w.AgentID != "" && d.Agents != nil {
		if ag, err := d.Agents.Get(ctx, w.AgentID); err == nil && ag.FallbackRuntime != nil {
			fb = *ag.FallbackRuntime
		}
	}
	if fb == "" && w.TeamID != "" && d.Teams != nil {
		if t, err := d.Teams.Get(ctx, w.TeamID); err == nil && t.FallbackRuntime != nil {
			fb = *t.FallbackRuntime
		}
	}
	if fb == "" || executor.ID(fb) == w.Runtime {
		return ""
	}
	if ok, _ := d.Ready(ctx, fb); !ok {
		return ""
	}
	return executor.ID(fb)
}

func (g gate) Paused(ctx context.Context, w supervisor.QuotaWork, q executor.QuotaWindow) string {
	d := g.d // the run's own report of q is already in the ledger (Observe)
	hold, err := d.Quota.Check(ctx, g.ask(ctx, w.Runtime, w))
	if err != nil || hold == nil {
		// The window is rejected by the run's own report; hold it until
		// its reset even if the ledger reads otherwise.
		until := d.Quota.Now().Add(15 * time.Minute).UnixMilli()
		if q.ResetsAt > 0 {
			until = q.ResetsAt
		}
		hold = &quota.Hold{
			Runtime: string(w.Runtime), Window: quota.Window{Window: q.Window}, Until: until,
			Reason: d.RuntimeName(string(w.Runtime)) + " " + quota.WindowLabel(q.Window) + " window rejected",
		}
	}
	held := heldWork(w)
	held.Kind = quota.KindTask
	if _, err = d.Quota.Defer(ctx, held, *hold); err != nil {
		return "Paused: " + hold.Reason + ". It could not be deferred (" + err.Error() + "); run it again after the reset."
	}
	return "Paused: " + hold.Reason + ". The task starts again then, continuing its session."
}

// heldWork is the deferral of w: who and what it is, its message with keys
// scrubbed, and a task run's place in its chain.
func heldWork(w supervisor.QuotaWork) quota.Deferral {
	return quota.Deferral{
		TaskID: w.TaskID, TeamID: w.TeamID, AgentID: w.AgentID, Title: w.Title, Message: redact.Secrets(w.Message),
		Generation: w.Carry.Generation, Fixes: w.Carry.Fixes, ContinueSession: w.Carry.ContinueSession,
	}
}

// RunDeferrals is the deferral timer: each deferred task or team turn goes
// back through the supervisor's door at its window's reset, until ctx ends.
func (d *Door) RunDeferrals(ctx context.Context) { d.Quota.Run(ctx, d.Resume) }

// Resume starts deferred work again. A task that was meanwhile run,
// finished or deleted is left alone, and so is one a person stopped; a
// window still spent defers it again (the door does that).
func (d *Door) Resume(ctx context.Context, held quota.Deferral) error {
	switch held.Kind {
	case quota.KindTask:
		t, err := d.Board.Get(ctx, held.TaskID)
		if err != nil {
			return err
		}
		if t.Status != board.Todo {
			return nil
		}
		if d.Orchestrator != nil && d.Orchestrator.TaskStopped(ctx, held.TaskID) {
			return nil // a person stopped it since: their word is final
		}
		// The held run comes back as it was asked: its message (a fix
		// run's findings, a send-back's comments) and its place in the
		// task's chain of successors and fixes.
		_, err = d.Supervisor.Start(ctx, supervisor.StartParams{
			RuntimeID: executor.ID(held.Runtime), AgentID: held.AgentID,
			TaskID: held.TaskID, Message: held.Message, Reason: "quota-resume",
			Carry: supervisor.Carry{Generation: held.Generation, Fixes: held.Fixes, ContinueSession: held.ContinueSession},
		})
		return err
	case quota.KindTeamTurn:
		if d.Orchestrator == nil {
			return errors.New("no teams here")
		}
		_, err := d.Orchestrator.ResumeHeld(ctx, held.TeamID, held.AgentID, held.Message, held.CreatedAt)
		return err
	}
	return nil
}
