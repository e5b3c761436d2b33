package backend

import (
	"fmt"

	"github.com/clawboo/desktop/backend/executor"
)

// opener builds one runtime adapter from the backend's parts. Each
// runtime's wiring lives in its own file (cli_<name>.go, openclaw.go), so
// the runtimes stay independent of one another; New lists them.
type opener func(b *Backend, opts Options) executor.Adapter

// register adds the runtimes that run outside the process (Claude Code,
// Codex, Hermes, OpenClaw) to the registry, in the order given. It runs
// after the MCP hub and the runtime catalog exist (the adapters attach the
// MCP servers and resolve binaries and keys through them).
func (b *Backend) register(opts Options, openers ...opener) error {
	for _, open := range openers {
		a := open(b, opts)
		if err := b.Registry.Register(a); err != nil {
			return fmt.Errorf("register %s: %w", a.ID(), err)
		}
	}
	return nil
}
