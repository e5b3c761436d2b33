package backend

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"github.com/clawboo/desktop/backend/mcp"
)

// Vault names of the MCP secrets, generated at first start.
const (
	mcpTokenName      = "CLAWBOO_MCP_TOKEN"
	mcpBindingKeyName = "CLAWBOO_MCP_BINDING_KEY"
)

// mcpSecret reads a secret from the vault, generating and storing it the
// first time. A vault that cannot store it is an error: a token that
// changed on every start would break every attached client.
func (b *Backend) mcpSecret(ctx context.Context, name string) (string, error) {
	if s, ok := b.Vault.Get(ctx, name); ok && len(s) >= 32 {
		return s, nil
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	s := base64.RawURLEncoding.EncodeToString(raw)
	if err := b.Vault.Set(ctx, name, s); err != nil {
		return "", fmt.Errorf("store %s: %w", name, err)
	}
	return s, nil
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
	b.startTools(ctx)
	return nil
}
