package backend

import (
	"fmt"

	"github.com/clawboo/desktop/backend/executor"
)

// cliOpeners build the CLI-driven runtimes (Claude Code, Codex, Hermes).
// Each runtime's wiring lives in its own file (cli_<name>.go) and adds its
// opener here from an init function, so the runtimes stay independent of
// one another; they register in file-name order.
var cliOpeners []func(b *Backend, opts Options) executor.Adapter

// registerCLIs adds the CLI runtimes to the registry. It runs after the MCP
// hub and the runtime catalog exist (the adapters attach the MCP servers and
// resolve binaries and keys through them).
func (b *Backend) registerCLIs(opts Options) error {
	for _, open := range cliOpeners {
		a := open(b, opts)
		if err := b.Registry.Register(a); err != nil {
			return fmt.Errorf("register %s: %w", a.ID(), err)
		}
	}
	return nil
}
