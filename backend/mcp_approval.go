package backend

import (
	"context"
	"errors"

	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/mcp/toolbroker"
	"github.com/clawboo/desktop/backend/vault"
)

// mcpApprovals is clawboo-tools' Approver over the approvals queue: the
// broker's question becomes an approval request of kind "tool", and only
// "approved" comes back as yes.
type mcpApprovals struct {
	q *approval.Queue
}

func (a *mcpApprovals) Ask(ctx context.Context, r toolbroker.ApprovalRequest) (toolbroker.ApprovalAnswer, error) {
	if a.q == nil {
		return toolbroker.ApprovalAnswer{}, errors.New("no approvals queue")
	}
	res, err := a.q.Ask(ctx, approval.Request{
		Kind: approval.KindTool, Title: r.Title, Tool: r.Tool, Args: r.Args, Risk: string(r.Risk),
		AgentID: r.AgentID, TeamID: r.TeamID, RunID: r.RunID, Reason: r.Reason,
	}, r.TTL)
	if err != nil {
		return toolbroker.ApprovalAnswer{}, err
	}
	out := toolbroker.ApprovalAnswer{ID: res.ID, Note: res.Note, Outcome: toolbroker.ApprovalExpired}
	switch res.Status {
	case approval.Approved:
		out.Outcome = toolbroker.ApprovalApproved
	case approval.Denied:
		out.Outcome = toolbroker.ApprovalDenied
	}
	return out, nil
}

// vaultSecrets lets the broker find TAVILY_API_KEY, ${NAME}s in external
// servers' headers and the variables a stdio server may see: the process
// environment, then the vault, then OpenClaw's .env (vault.Resolve).
type vaultSecrets struct{ v *vault.Vault }

// toolsRuntime is the vault's runtime id for the broker's lookups; it is
// never disconnected, so the whole chain applies.
const toolsRuntime = "clawboo-tools"

func (s vaultSecrets) Has(name string) bool {
	return s.v != nil && s.v.Presence(toolsRuntime, name) != vault.SourceNone
}

func (s vaultSecrets) Get(ctx context.Context, name string) (string, bool) {
	if s.v == nil {
		return "", false
	}
	v, src := s.v.Resolve(ctx, toolsRuntime, name)
	return v, src != vault.SourceNone && v != ""
}
