package backend

import (
	"context"
	"path/filepath"

	"github.com/clawboo/desktop/backend/adapters/hermes"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/mcp"
)

// openHermes builds the Hermes runtime: managed homes under
// <home>/runtimes/hermes, seeded from the user's own Hermes config
// ($HERMES_HOME, else ~/.hermes), the program found by the binary
// resolver, provider keys from the vault as the "hermes" runtime, and the
// four MCP servers bound to each run's agent and team.
func openHermes(b *Backend, opts Options) executor.Adapter {
	getenv := opts.Getenv
	userHome := getenv("HERMES_HOME")
	if userHome == "" && getenv("HOME") != "" {
		userHome = filepath.Join(getenv("HOME"), ".hermes")
	}
	userConfig := ""
	if userHome != "" {
		userConfig = filepath.Join(userHome, "config.yaml")
	}
	return hermes.New(hermes.Options{
		Root:       config.RuntimeHome(b.Config.Home, string(executor.Hermes)),
		UserConfig: userConfig,
		Find: func() (string, bool) {
			if b.resolver == nil {
				return "", false
			}
			return b.resolver.Find("hermes")
		},
		Environ: opts.Environ,
		Key: func(ctx context.Context, envVar string) string {
			k, _ := b.Vault.Resolve(ctx, string(executor.Hermes), envVar)
			return k
		},
		// The run's own token, revoked when the run ends: the mcp.json
		// left in the managed home holds a token that no longer works.
		Attach: func(ctx context.Context, req executor.StartRequest) (string, error) {
			a, ok, err := b.runAttach(ctx, req)
			if !ok || err != nil {
				return "", err
			}
			return a.Clients[mcp.ClientHermes].Text, nil
		},
		Log: b.log.With("part", "hermes"),
	})
}
