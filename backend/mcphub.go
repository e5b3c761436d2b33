package backend

import (
	"context"
	"fmt"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/hosts"
	"github.com/clawboo/desktop/backend/mcp"
)

// mcpSecret reads one of the hub's secrets from the vault, making and
// storing it the first time (`clawboo mcp config` does the same).
func (b *Backend) mcpSecret(ctx context.Context, name string) (string, error) {
	return b.Vault.Minted(ctx, name, mcp.NewToken)
}

// openMCP builds the four MCP servers.
func (b *Backend) openMCP(ctx context.Context, version string) error {
	token, err := b.mcpSecret(ctx, mcp.TokenSlot)
	if err != nil {
		return err
	}
	key, err := b.mcpSecret(ctx, mcp.BindingKeySlot)
	if err != nil {
		return err
	}
	approvals, err := b.openApprovals(ctx)
	if err != nil {
		return err
	}
	h, err := mcp.New(mcp.Options{
		Token: token, BindingKey: []byte(key), Store: b.Store, Board: newMCPBoard(b.Board), Version: version,
		Log: b.log.With("part", "mcp"), Approvals: approvals, Team: teamHooks{b},
		// A rotated install token is stored before it is served; the
		// Gateway, whose token is derived from it, is registered again.
		SaveToken: func(ctx context.Context, tok string) error { return b.Vault.Set(ctx, mcp.TokenSlot, tok) },
		Rotated: func(ctx context.Context) {
			if b.openClaw != nil {
				b.openClaw.reregisterMCP(ctx)
			}
		},
	})
	if err != nil {
		return err
	}
	b.MCP = h
	b.Tools = h.Tools()
	b.startTools(ctx)
	return nil
}

// runAttach is a CLI run's attachment to the MCP servers: a run token
// bound to the run's team and agent, revoked when ctx ends. ctx is the
// context the supervisor starts the run with, which bounds the run's
// whole life (it is cancelled once the run is over), so the token works
// exactly while the run lives. ok is false when there is nothing to attach:
// the server is not listening (no URL a child could reach), or the run has
// neither a team nor an agent (a run token is never unbound, and the
// install token never goes to a runtime).
func (b *Backend) runAttach(ctx context.Context, req executor.StartRequest) (a mcp.Attach, ok bool, err error) {
	if req.MCPFrom != nil {
		return b.carriedAttach(ctx, *req.MCPFrom)
	}
	base := b.BaseURL()
	// A team leader's turn (the host gave it a Delegate) is signed
	// delegate=1, so its team_delegate tool exists; no other run's is.
	bind := mcp.Binding{TeamID: req.TeamID, AgentID: req.AgentID, Delegate: req.Delegate != nil && req.TeamID != "", RunID: string(req.RunID)}
	if b.MCP == nil || base == "" || !bind.Bound() {
		return mcp.Attach{}, false, nil
	}
	a, revoke, err := b.MCP.AttachRun(base, bind)
	if err != nil {
		return mcp.Attach{}, false, fmt.Errorf("attach the MCP servers: %w", err)
	}
	context.AfterFunc(ctx, revoke)
	return a, true, nil
}

// carriedAttach is the attachment a desktop sent with a run on this host
// (its servers, its run token), reached through a loopback relay to the
// socket the desktop's ssh forwards into this host's home, for the run's
// life (ctx). Only a host's server's API takes one (api's checkRunMCP).
func (b *Backend) carriedAttach(ctx context.Context, m executor.CarriedMCP) (mcp.Attach, bool, error) {
	base, err := hosts.RelayMCP(ctx, b.Config.Home, m.Socket)
	if err != nil {
		return mcp.Attach{}, false, fmt.Errorf("attach the desktop's MCP servers: %w", err)
	}
	a, err := mcp.Rebase(base, m.Token, m.Paths)
	if err != nil {
		return mcp.Attach{}, false, fmt.Errorf("attach the desktop's MCP servers: %w", err)
	}
	return a, true, nil
}
