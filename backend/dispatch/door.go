// Package dispatch is the policy of the one door every piece of work enters
// through: admission at the supervisor's door (the quota governor, an
// agent's or team's fallback runtime), deferred work coming back at a
// window's reset, a routine's fire, the OpenClaw Gateway's cron listing
// beside the routines, and mission control's probes — and the one answer to
// "is runtime X ready?" that all of them read.
//
// Invariants:
//   - Work starts only through supervisor.Start (a task run, a resumed
//     deferral, a routine's task or Gateway turn) or the orchestrator's
//     ResumeHeld (a held team turn); nothing here runs an adapter itself.
//   - A person's stop is final: deferred work for a task a person stopped
//     is dropped, never started again.
//   - Ready is the only readiness rule: a catalog runtime is ready when its
//     adapter is registered and its card says ready; OpenClaw (no catalog
//     entry) while its Gateway is connected. Fallback routing uses it, so
//     OpenClaw may be a fallback and is taken only while connected.
//   - The Door's parts are set by the composition root while it wires, in
//     the order it builds them, before the API serves; a part still nil (no
//     teams, no approvals) is read as absent, never dereferenced.
package dispatch

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/orchestrate"
	"github.com/clawboo/desktop/backend/quota"
	"github.com/clawboo/desktop/backend/runtimes"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/teams"
)

// Door holds the parts the door's policy reads. The composition root fills
// it as it builds them (the supervisor is built with Gate, so the parts
// made after it are set later); see the package invariants.
type Door struct {
	Log          *slog.Logger
	Registry     *executor.Registry
	Catalog      *runtimes.Catalog
	Store        *store.Store
	Board        *board.Board
	Budget       *budget.Ledger
	Quota        *quota.Service
	Supervisor   *supervisor.Supervisor
	Agents       *agents.Service
	Teams        *teams.Service
	Orchestrator *orchestrate.Engine
	Approvals    *approval.Queue
	// HostWait says why the host an agent's work goes to (in the team
	// teamID's work, "" for none) cannot take it now (unreachable, or as
	// many runs there as it takes), with the window its wait is held
	// under; "" when it can, or the work runs here. nil: no hosts.
	HostWait func(ctx context.Context, agentID, teamID string) (window, why string)

	watchdog atomic.Int64 // an OpenClaw routine fire's limit, ns
}

// SetOpenClawTimeout bounds an OpenClaw routine fire (read at each fire).
func (d *Door) SetOpenClawTimeout(t time.Duration) { d.watchdog.Store(int64(t)) }

// OpenClawTimeout is the limit an OpenClaw routine fire runs under now.
func (d *Door) OpenClawTimeout() time.Duration { return time.Duration(d.watchdog.Load()) }

func (d *Door) log() *slog.Logger {
	if d.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return d.Log
}

// RuntimeName is a runtime's display name ("Claude Code"), its id when no
// adapter by that id is registered.
func (d *Door) RuntimeName(id string) string {
	if a, ok := d.Registry.Get(executor.ID(id)); ok {
		return a.Name()
	}
	return id
}

// Ready answers "can runtime rt take work now?", and why not in words: the
// one answer the agents' readiness, mission control's probes and the quota
// governor's fallback all read. A runtime in the catalog is ready when its
// adapter is registered and its card says ready; OpenClaw, which has no
// catalog entry, when its Gateway is connected.
//
// OpenClaw's place in fallback follows from it: an agent's or team's
// fallback runtime may be OpenClaw, and work is routed there while its
// Gateway is connected, like any ready runtime (the person chose it; the
// supervisor's door still checks what the task needs, such as a worktree).
func (d *Door) Ready(ctx context.Context, rt string) (bool, string) {
	if executor.ID(rt) == executor.OpenClaw {
		a, ok := d.Registry.Get(executor.OpenClaw)
		if r, can := a.(executor.Readier); ok && can && r.Ready() {
			return true, ""
		}
		return false, "the OpenClaw Gateway is not connected"
	}
	if d.Catalog == nil {
		return false, "runtime " + rt + " is not available"
	}
	e, ok := d.Catalog.Entry(ctx, executor.ID(rt))
	if !ok || !e.CanRun {
		return false, "runtime " + rt + " is not available"
	}
	if e.ConnectionState != runtimes.StateReady {
		return false, e.Name + " is not ready (" + string(e.ConnectionState) + ")"
	}
	return true, ""
}

// Probes are what mission control asks the rest of the backend: a
// runtime's readiness (Ready) and whether an agent waits on an approval.
func (d *Door) Probes() orchestrate.Probes {
	return orchestrate.Probes{Ready: d.Ready, Waiting: d.waiting}
}

func (d *Door) waiting(agentID string) bool {
	if d.Approvals == nil {
		return false
	}
	ps, err := d.Approvals.Pending(context.Background())
	if err != nil {
		return false
	}
	for _, p := range ps {
		if p.AgentID == agentID {
			return true
		}
	}
	return false
}
