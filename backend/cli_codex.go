package backend

import (
	"context"

	"github.com/clawboo/desktop/backend/adapters/codex"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/mcp"
)

// openCodex builds the Codex runtime: the binary from the resolver (PATH
// and the per-user install folders), managed homes under the Clawboo
// home seeded from the user's own CODEX_HOME, keys from the vault, and
// Clawboo's MCP servers attached for the run's team and agent (the run's
// own token travels only in the child's environment).
func openCodex(b *Backend, opts Options) executor.Adapter {
	return codex.New(codex.Options{
		Find:     func() (string, bool) { return b.resolver.Find("codex") },
		Home:     b.Config.Home,
		UserHome: codex.DefaultUserHome(opts.Getenv),
		Environ:  opts.Environ,
		Key: func(ctx context.Context, name string) string {
			if b.Vault == nil {
				return ""
			}
			k, _ := b.Vault.Resolve(ctx, string(executor.Codex), name)
			return k
		},
		Attach: func(ctx context.Context, req executor.StartRequest) (*codex.MCP, error) {
			return b.codexMCP(ctx, req)
		},
		Log: b.log.With("part", "codex"),
	})
}

// codexMCP is a run's attachment to the MCP servers with the run's own
// token (revoked when the run ends), or nil when there is nothing to
// attach (see runAttach).
func (b *Backend) codexMCP(ctx context.Context, req executor.StartRequest) (*codex.MCP, error) {
	a, ok, err := b.runAttach(ctx, req)
	if !ok || err != nil {
		return nil, err
	}
	cc := a.Clients[mcp.ClientCodex]
	return &codex.MCP{TOML: cc.Text, URLs: a.URLs, TokenEnv: mcp.TokenEnv, Env: cc.Env}, nil
}
