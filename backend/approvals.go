package backend

import (
	"context"
	"fmt"

	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/mcp/toolbroker"
)

// openApprovals opens the approvals queue (expiring what a previous run
// left pending) and returns clawboo-tools' Approver over it.
func (b *Backend) openApprovals(ctx context.Context) (toolbroker.Approver, error) {
	q, err := approval.Open(ctx, approval.Options{Store: b.Store, Log: b.log.With("part", "approval")})
	if err != nil {
		return nil, fmt.Errorf("open approvals: %w", err)
	}
	b.Approvals = q
	return &mcpApprovals{q: q}, nil
}

// startTools hands the tools broker the vault and connects the external
// MCP servers a person added, in the background.
func (b *Backend) startTools(ctx context.Context) {
	if b.Tools == nil {
		return
	}
	if err := b.Tools.Start(ctx, vaultSecrets{v: b.Vault}); err != nil {
		b.log.Warn("external MCP servers not started", "err", err)
	}
}

// closeApprovals expires the requests still waiting (their callers get
// "no") and ends the queue's event stream.
func (b *Backend) closeApprovals() {
	if b.Approvals != nil {
		b.Approvals.Close()
	}
}
