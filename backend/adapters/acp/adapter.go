package acp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

// Bounds and defaults.
const (
	DefaultGrace       = 3 * time.Second
	DefaultInitTimeout = 60 * time.Second // an npx-started agent may fetch itself first
	DefaultMaxOutput   = 256 << 20        // bytes the agent may write on stdout in one run
	DefaultMaxFrame    = 8 << 20          // one JSON-RPC line (a file write carries its content)
	MaxToolText        = 4000             // a tool call's input or result in an event, as OpenClaw's
	maxSummary         = 16 << 10
	maxStderrLines     = 20
	maxStderrLine      = 500
)

// Spec is one ACP agent program.
type Spec struct {
	ID   executor.ID // "acp-" and a name
	Name string      // the display name people read
	// Command is the program: a name found on PATH (or the npm folders)
	// or an absolute path. Args follow it; no shell is involved.
	Command string
	Args    []string
	// EnvVars are the names of keys the agent reads (GEMINI_API_KEY, ...),
	// resolved from the vault into the child's environment only.
	EnvVars []string
	// PassEnv are settings of the server's environment the agent reads
	// (a provider's base URL, its config folder), passed when set; never
	// a credential's name.
	PassEnv []string
}

// BridgeTokenEnv carries the run's token to the stdio bridge.
const BridgeTokenEnv = "CLAWBOO_MCP_TOKEN"

// MCP is where a run's agent reaches Clawboo's MCP servers: each server's
// URL (its binding signed in) and the run's own bearer token.
type MCP struct {
	URLs  map[string]string
	Token string
}

// Options configure one agent's adapter.
type Options struct {
	Spec Spec
	// Find locates a program by name (the binary resolver); an absolute
	// Command is used as it is.
	Find func(name string) (string, bool)
	// Environ is the server's environment; the child gets an allowlist.
	Environ func() []string
	// Key resolves a key by variable name ("" when not connected).
	Key func(ctx context.Context, envVar string) string
	// Attach returns the run's MCP servers; ok false when there are none.
	Attach func(ctx context.Context, req executor.StartRequest) (m MCP, ok bool, err error)
	// Bridge is the argv prefix of the stdio bridge (`clawboo mcp bridge`),
	// given to an agent that takes MCP servers only as stdio children: each
	// server is then Bridge + its URL, with the run's token in the child's
	// BridgeTokenEnv. Empty: such an agent runs without the servers.
	Bridge []string
	// Ask puts a permission or a terminal command to a person; nil refuses
	// every one (nothing is allowed without a person).
	Ask func(ctx context.Context, q Question) (Answer, error)
	Log *slog.Logger
	// Grace is how long a cancelled turn, or a stopped process, has.
	Grace time.Duration
	// InitTimeout bounds the start: `initialize` and the session answered.
	InitTimeout time.Duration
	MaxOutput   int64
	MaxFrame    int
}

// Adapter is one ACP agent as a runtime.
type Adapter struct {
	opts Options
	live sync.WaitGroup
}

var _ executor.Waiter = (*Adapter)(nil)

// New builds the adapter.
func New(o Options) *Adapter {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Environ == nil {
		o.Environ = os.Environ
	}
	if o.Key == nil {
		o.Key = func(context.Context, string) string { return "" }
	}
	if o.Find == nil {
		o.Find = func(string) (string, bool) { return "", false }
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.InitTimeout <= 0 {
		o.InitTimeout = DefaultInitTimeout
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.MaxFrame <= 0 {
		o.MaxFrame = DefaultMaxFrame
	}
	return &Adapter{opts: o}
}

// ID is the agent's runtime id ("acp-…").
func (a *Adapter) ID() executor.ID { return a.opts.Spec.ID }

// Name is the agent's display name.
func (a *Adapter) Name() string { return a.opts.Spec.Name }

// Capabilities are what every ACP v1 agent can do through this client:
// streaming updates, MCP servers, worktrees, permission requests as
// approvals, and steering by cancel-and-prompt. Resume and the model are
// the agent's to offer per session (session/load or resume, set_model),
// so they are declared false here and used when a session offers them.
func (a *Adapter) Capabilities() executor.Capabilities {
	return executor.Capabilities{
		Streaming: true, MCP: true, Worktrees: true, ToolApproval: true, Steering: true,
		RuntimeClass: executor.WrappedOneShot, Models: []string{},
	}
}

// Health is "the program is found"; a lookup is a cached map read.
func (a *Adapter) Health(context.Context) executor.Health {
	if p, ok := a.program(); ok {
		return executor.Health{OK: true, Message: a.opts.Spec.Name + " found at " + p}
	}
	return executor.Health{OK: false, Message: a.notInstalled().Error()}
}

func (a *Adapter) program() (string, bool) {
	c := a.opts.Spec.Command
	if isAbs(c) {
		if st, err := os.Stat(c); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return c, true
		}
		return "", false
	}
	return a.opts.Find(c)
}

func (a *Adapter) notInstalled() error {
	return fmt.Errorf("%s is not installed (%s not found)", a.opts.Spec.Name, a.opts.Spec.Command)
}

// Wait blocks until every run's process is reaped, or ctx ends.
func (a *Adapter) Wait(ctx context.Context) error { return executor.WaitGroup(ctx, &a.live) }

// Start launches the agent for one run. Only a missing program is an
// error; everything after is reported as events.
func (a *Adapter) Start(ctx context.Context, req executor.StartRequest) (executor.Run, error) {
	if req.Emitter == nil {
		return nil, errors.New("acp: no emitter")
	}
	bin, ok := a.program()
	if !ok {
		return nil, a.notInstalled()
	}
	r := newRun(ctx, a, req, bin)
	a.live.Add(1)
	req.Emitter.Go(func() {
		defer a.live.Done()
		r.loop()
	})
	return r, nil
}
