package backend

import (
	"context"
	"errors"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/quota"
	"github.com/clawboo/desktop/backend/redact"
	"github.com/clawboo/desktop/backend/supervisor"
)

// openQuota builds the quota ledger before the supervisor, which asks its
// governor at the door (quotaGate).
func (b *Backend) openQuota(ctx context.Context, clock func() time.Time) error {
	b.quotaEvents = bus.New[quota.Event](0)
	q, err := quota.New(ctx, quota.Options{Store: b.Store, Events: b.quotaEvents, Log: b.log.With("part", "quota"),
		Name: b.runtimeName, Now: clock})
	if err != nil {
		return err
	}
	b.Quota = q
	return nil
}

// QuotaEvents carries the ledger's changes (the tray's tooltip follows them).
func (b *Backend) QuotaEvents() *bus.Broker[quota.Event] { return b.quotaEvents }

// runtimeName is a runtime's display name ("Claude Code").
func (b *Backend) runtimeName(id string) string {
	if a, ok := b.Registry.Get(executor.ID(id)); ok {
		return a.Name()
	}
	return id
}

// startQuota starts the deferral timer: each deferred task or team turn
// goes back through the supervisor's door at its window's reset.
func (b *Backend) startQuota() {
	ctx, stop := context.WithCancel(context.Background())
	b.stopQuota = stop
	b.loops.Add(1)
	go func() {
		defer b.loops.Done()
		b.Quota.Run(ctx, b.resumeDeferred)
	}()
}

// resumeDeferred starts deferred work again. A task that was meanwhile
// run, finished or deleted is left alone; a window still spent defers it
// again (the door does that).
func (b *Backend) resumeDeferred(ctx context.Context, d quota.Deferral) error {
	switch d.Kind {
	case quota.KindTask:
		t, err := b.Board.Get(ctx, d.TaskID)
		if err != nil {
			return err
		}
		if t.Status != board.Todo {
			return nil
		}
		if b.Orchestrator != nil && b.Orchestrator.TaskStopped(ctx, d.TaskID) {
			return nil // a person stopped it since: their word is final
		}
		// The held run comes back as it was asked: its message (a fix
		// run's findings, a send-back's comments) and its place in the
		// task's chain of successors and fixes.
		_, err = b.Supervisor.Start(ctx, supervisor.StartParams{RuntimeID: executor.ID(d.Runtime), AgentID: d.AgentID,
			TaskID: d.TaskID, Message: d.Message, Reason: "quota-resume",
			Carry: supervisor.Carry{Generation: d.Generation, Fixes: d.Fixes, ContinueSession: d.ContinueSession}})
		return err
	case quota.KindTeamTurn:
		if b.Orchestrator == nil {
			return errors.New("no teams here")
		}
		_, err := b.Orchestrator.ResumeHeld(ctx, d.TeamID, d.AgentID, d.Message, d.CreatedAt)
		return err
	}
	return nil
}

// quotaGate is the governor at the supervisor's door.
type quotaGate struct{ b *Backend }

func (g quotaGate) Observe(ctx context.Context, runtime executor.ID, q executor.QuotaWindow) {
	g.b.Quota.Observe(ctx, string(runtime), q)
}

func (g quotaGate) Succeeded(ctx context.Context, runtime executor.ID) {
	g.b.Quota.Succeeded(ctx, string(runtime), "")
}

// ask is the governor's question for w: a native agent's windows are its
// provider's.
func (g quotaGate) ask(ctx context.Context, runtime executor.ID, w supervisor.QuotaWork) quota.Ask {
	a := quota.Ask{Runtime: string(runtime), AgentID: w.AgentID, TeamID: w.TeamID}
	if runtime == executor.Native && w.AgentID != "" && g.b.Agents != nil {
		if ag, err := g.b.Agents.Get(ctx, w.AgentID); err == nil {
			a.Account = ag.Provider
		}
	}
	return a
}

func (g quotaGate) Admit(ctx context.Context, w supervisor.QuotaWork) (executor.ID, string, error) {
	b := g.b
	hold, err := b.Quota.Check(ctx, g.ask(ctx, w.Runtime, w))
	if err != nil {
		// An unreadable ledger must not stop all work: it is logged.
		b.log.Warn("quota ledger unreadable; the work starts", "err", err)
		return "", "", nil
	}
	if hold == nil {
		if w.TaskID != "" {
			b.Quota.CancelTask(ctx, w.TaskID)
		}
		return "", "", nil
	}
	if fb := g.fallback(ctx, w); fb != "" {
		if h2, err := b.Quota.Check(ctx, g.ask(ctx, fb, w)); err == nil && h2 == nil {
			if w.TaskID != "" {
				b.Quota.CancelTask(ctx, w.TaskID)
			}
			return fb, hold.Reason + "; routed to " + b.runtimeName(string(fb)), nil
		}
	}
	d := heldWork(w)
	d.Kind = quota.KindTask
	if w.TaskID == "" {
		d.Kind = quota.KindTeamTurn
	}
	d, err = b.Quota.Defer(ctx, d, *hold)
	if err != nil {
		return "", "", &supervisor.Refusal{Reason: supervisor.ReasonQuota, Msg: hold.Reason + " (not deferred: " + err.Error() + ")"}
	}
	return "", "", &supervisor.Refusal{Reason: supervisor.ReasonQuota, Msg: hold.Reason + "; deferred until then",
		DeferralID: d.ID, Until: d.Until}
}

// fallback is the agent's fallback runtime, else its team's, when it is a
// different runtime that is ready now (b.ready: OpenClaw too, while its
// Gateway is connected), "" otherwise.
func (g quotaGate) fallback(ctx context.Context, w supervisor.QuotaWork) executor.ID {
	b := g.b
	var fb string
	if w.AgentID != "" && b.Agents != nil {
		if ag, err := b.Agents.Get(ctx, w.AgentID); err == nil && ag.FallbackRuntime != nil {
			fb = *ag.FallbackRuntime
		}
	}
	if fb == "" && w.TeamID != "" && b.Teams != nil {
		if t, err := b.Teams.Get(ctx, w.TeamID); err == nil && t.FallbackRuntime != nil {
			fb = *t.FallbackRuntime
		}
	}
	if fb == "" || executor.ID(fb) == w.Runtime {
		return ""
	}
	if ok, _ := b.ready(ctx, fb); !ok {
		return ""
	}
	return executor.ID(fb)
}

func (g quotaGate) Paused(ctx context.Context, w supervisor.QuotaWork, q executor.QuotaWindow) string {
	b := g.b // the run's own report of q is already in the ledger (Observe)
	hold, err := b.Quota.Check(ctx, g.ask(ctx, w.Runtime, w))
	if err != nil || hold == nil {
		// The window is rejected by the run's own report; hold it until
		// its reset even if the ledger reads otherwise.
		until := b.Quota.Now().Add(15 * time.Minute).UnixMilli()
		if q.ResetsAt > 0 {
			until = q.ResetsAt
		}
		hold = &quota.Hold{Runtime: string(w.Runtime), Window: quota.Window{Window: q.Window}, Until: until,
			Reason: b.runtimeName(string(w.Runtime)) + " " + quota.WindowLabel(q.Window) + " window rejected"}
	}
	d := heldWork(w)
	d.Kind = quota.KindTask
	_, err = b.Quota.Defer(ctx, d, *hold)
	if err != nil {
		return "Paused: " + hold.Reason + ". It could not be deferred (" + err.Error() + "); run it again after the reset."
	}
	return "Paused: " + hold.Reason + ". The task starts again then, continuing its session."
}

// heldWork is the deferral of w: who and what it is, its message with keys
// scrubbed, and a task run's place in its chain.
func heldWork(w supervisor.QuotaWork) quota.Deferral {
	return quota.Deferral{TaskID: w.TaskID, TeamID: w.TeamID, AgentID: w.AgentID, Title: w.Title, Message: redact.Secrets(w.Message),
		Generation: w.Carry.Generation, Fixes: w.Carry.Fixes, ContinueSession: w.Carry.ContinueSession}
}
