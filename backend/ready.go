package backend

import (
	"context"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/runtimes"
)

// ready answers "can runtime rt take work now?", and why not in words: the
// one answer the agents' readiness, mission control's probes and the quota
// governor's fallback all read. A runtime in the catalog is ready when its
// adapter is registered and its card says ready; OpenClaw, which has no
// catalog entry, when its Gateway is connected.
//
// OpenClaw's place in fallback follows from it: an agent's or team's
// fallback runtime may be OpenClaw, and work is routed there while its
// Gateway is connected, like any ready runtime (the person chose it; the
// supervisor's door still checks what the task needs, such as a worktree).
func (b *Backend) ready(ctx context.Context, rt string) (bool, string) {
	if executor.ID(rt) == executor.OpenClaw {
		a, ok := b.Registry.Get(executor.OpenClaw)
		if r, can := a.(executor.Readier); ok && can && r.Ready() {
			return true, ""
		}
		return false, "the OpenClaw Gateway is not connected"
	}
	e, ok := b.Catalog.Entry(ctx, executor.ID(rt))
	if !ok || !e.CanRun {
		return false, "runtime " + rt + " is not available"
	}
	if e.ConnectionState != runtimes.StateReady {
		return false, e.Name + " is not ready (" + string(e.ConnectionState) + ")"
	}
	return true, ""
}
