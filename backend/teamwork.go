package backend

import (
	"context"
	"errors"

	"github.com/clawboo/desktop/backend/orchestrate"
	"github.com/clawboo/desktop/backend/teams"
)

// openTeams builds the teams service and the orchestrator; the orchestrator
// starts (recovering delegations a previous process left) once every
// runtime is registered.
func (b *Backend) openTeams(ctx context.Context) error {
	b.Teams = teams.New(b.Store, nil)
	b.Orchestrator = orchestrate.New(orchestrate.Options{
		Store: b.Store, Teams: b.Teams, Board: b.Board, BoardEvents: b.boardEvents, Supervisor: b.Supervisor,
		Budget: b.Budget, Log: b.log.With("part", "orchestrate"), PumpEvery: b.Config.PumpEvery,
	})
	return b.Orchestrator.Start(ctx)
}

// teamHooks hand the TeamChat MCP server's posts and signed delegations to
// the orchestrator (built after the hub, so looked up per call).
type teamHooks struct{ b *Backend }

func (h teamHooks) Delegate(ctx context.Context, teamID, agentID, assignee, task string) (string, error) {
	if h.b.Orchestrator == nil {
		return "", errors.New("delegation is unavailable: the orchestrator is not running")
	}
	return h.b.Orchestrator.DelegateFromMCP(ctx, teamID, agentID, assignee, task)
}

func (h teamHooks) Posted(teamID string, seq int64) {
	if h.b.Orchestrator != nil {
		h.b.Orchestrator.Posted(teamID, seq)
	}
}

func (h teamHooks) Mail(ctx context.Context, teamID, agentID string, max int) string {
	if h.b.Orchestrator == nil {
		return ""
	}
	return h.b.Orchestrator.Piggyback(ctx, teamID, agentID, max)
}
