package backend

import (
	"context"

	"github.com/clawboo/desktop/backend/mcp"
)

// Vault names of the MCP secrets, generated at first start.
const (
	mcpTokenName      = "CLAWBOO_MCP_TOKEN"
	mcpBindingKeyName = "CLAWBOO_MCP_BINDING_KEY"
)

// mcpSecret reads a secret from the vault, generating and storing it the
// first time (see MCPSecret, which `clawboo mcp config` shares).
func (b *Backend) mcpSecret(ctx context.Context, name string) (string, error) {
	return MCPSecret(ctx, b.Vault, name)
}

// openMCP builds the four MCP servers.
func (b *Backend) openMCP(ctx context.Context, version string) error {
	token, err := b.mcpSecret(ctx, mcpTokenName)
	if err != nil {
		return err
	}
	key, err := b.mcpSecret(ctx, mcpBindingKeyName)
	if err != nil {
		return err
	}
	approvals, err := b.openApprovals(ctx)
	if err != nil {
		return err
	}
	h, err := mcp.New(mcp.Options{
		Token: token, BindingKey: []byte(key), Store: b.Store, Board: newMCPBoard(b.Board), Version: version,
		Log: b.log.With("part", "mcp"), Approvals: approvals,
	})
	if err != nil {
		return err
	}
	b.MCP = h
	b.Tools = h.Tools()
	b.startTools(ctx)
	return nil
}
