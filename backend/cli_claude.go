package backend

import (
	"context"
	"path/filepath"

	"github.com/clawboo/desktop/backend/adapters/claudecode"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/mcp"
)

// claudeKeyName is the vault slot of the key a Claude Code run gets.
const claudeKeyName = "ANTHROPIC_API_KEY"

// openClaude builds the Claude Code runtime: the claude program from the
// resolver (PATH and the per-user install folders), the user's own home
// and Claude login (no managed home), the connected Anthropic key resolved
// from the vault at the start of each run, and Clawboo's four MCP servers
// bound to the run's team and agent (the attach token only in the child's
// environment). Runs without a folder of their own work in a per-
// conversation scratch folder under the Clawboo home, where the CLI finds
// the session again on resume.
func openClaude(b *Backend, opts Options) executor.Adapter {
	return claudecode.New(claudecode.Options{
		Binary: func() (string, bool) {
			if b.resolver == nil {
				return "", false
			}
			return b.resolver.Find("claude")
		},
		Key: func(ctx context.Context) string {
			if b.Vault == nil {
				return ""
			}
			k, _ := b.Vault.Resolve(ctx, string(executor.ClaudeCode), claudeKeyName)
			return k
		},
		MCP: func(ctx context.Context, req executor.StartRequest) (claudecode.MCPServers, error) {
			return b.claudeMCP(ctx, req)
		},
		Environ:    opts.Environ,
		ScratchDir: filepath.Join(config.RuntimeHome(b.Config.Home, string(executor.ClaudeCode)), "scratch"),
		Log:        b.log.With("part", "claude-code"),
	})
}

// claudeMCP is a run's attachment to the MCP servers: every server's URL
// with the run's signed binding, and the run's own token (revoked when
// the run ends). Nothing when there is nothing to attach (see runAttach).
func (b *Backend) claudeMCP(ctx context.Context, req executor.StartRequest) (claudecode.MCPServers, error) {
	a, ok, err := b.runAttach(ctx, req)
	if !ok || err != nil {
		return claudecode.MCPServers{}, err
	}
	return claudecode.MCPServers{URLs: a.URLs, Token: a.Clients[mcp.ClientCodex].Env[mcp.TokenEnv]}, nil
}
