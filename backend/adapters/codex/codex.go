// Package codex is the Codex runtime: each run is hosted in its own
// `codex app-server` child (JSON-RPC over stdio, newline-delimited, no
// "jsonrpc" field), and falls back to `codex exec --json` (and `codex exec
// resume`) when app-server is unavailable.
//
// Invariants:
//   - One child per run, in its own process group, stopped (SIGTERM, then
//     SIGKILL to the group) on abort, crash, context end or quit; nothing
//     outlives the run by more than the grace period.
//   - Every run ends in exactly one done: a child that exits, hangs during
//     the handshake or floods without a result becomes a failed run with a
//     message, never a hang. Lines from the child are bounded (MaxLine),
//     and a slow host slows the child (no buffering without bound).
//   - Runs use approval policy never and sandbox danger-full-access
//     (exec: --dangerously-bypass-approvals-and-sandbox), the run's
//     working folder as cwd, and Clawboo's MCP servers.
//   - Cost is what Codex reports: token usage with no price (the host
//     estimates, ledger kind token-estimate), never invented USD.
//   - Each agent has a managed CODEX_HOME (see home.go); a run without an
//     agent gets a throwaway home, removed when the run ends.
//   - Secrets (the provider key, the MCP attach token) reach only the
//     child's environment: never an event, an argument, a file we write,
//     or a log line.
package codex

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
)

// Mode picks the transport.
type Mode int

// Modes.
const (
	// Auto uses app-server and falls back to exec when it is unavailable.
	Auto Mode = iota
	AppServer
	Exec
)

// MCP is a run's attachment to Clawboo's MCP servers.
type MCP struct {
	// TOML is the [mcp_servers.<name>] tables for config.toml.
	TOML string
	// URLs maps each server name to its URL, for the per-thread config.
	URLs map[string]string
	// TokenEnv names the environment variable holding the bearer token.
	TokenEnv string
	// Env is what the child needs for them (the attach token).
	Env map[string]string
}

// Options configure the adapter.
type Options struct {
	// Find locates the codex binary.
	Find func() (string, bool)
	// Home is Clawboo's home; managed homes live in runtimes/codex/<agent>.
	Home string
	// UserHome is the user's own CODEX_HOME (default $CODEX_HOME, else
	// ~/.codex).
	UserHome string
	// Environ is the server's environment (filtered by proc.AllowEnv).
	Environ func() []string
	// Key resolves a secret by its environment name ("" = none).
	Key func(ctx context.Context, name string) string
	// Attach returns the run's MCP attachment (nil = no MCP servers).
	Attach func(ctx context.Context, req executor.StartRequest) (*MCP, error)
	Mode   Mode
	Log    *slog.Logger
	// Grace is the SIGTERM→SIGKILL wait (default 3 s); Handshake bounds
	// initialize, thread/start and turn/start (default 30 s).
	Grace, Handshake time.Duration
	// MaxLine bounds one line from the child (default 8 MiB); MaxLines
	// bounds the lines of one run (default 2 million).
	MaxLine, MaxLines int

	// tap sees every protocol line in both directions (tests record
	// transcripts with it).
	tap func(in bool, line string)
}

// Adapter is the Codex runtime.
type Adapter struct {
	opts Options
	// live counts runs whose children are not yet reaped or whose
	// throwaway home is not yet removed; Wait waits for it.
	live sync.WaitGroup
}

// The host waits for Codex's children (and throwaway homes) at shutdown.
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
	if o.Grace <= 0 {
		o.Grace = 3 * time.Second
	}
	if o.Handshake <= 0 {
		o.Handshake = 30 * time.Second
	}
	if o.MaxLine <= 0 {
		o.MaxLine = 8 << 20
	}
	if o.MaxLines <= 0 {
		o.MaxLines = 2_000_000
	}
	if o.UserHome == "" {
		o.UserHome = DefaultUserHome(os.Getenv)
	}
	return &Adapter{opts: o}
}

// Wait blocks until every run's child is reaped and its throwaway home
// removed (both happen after the run's done), or ctx ends. A host that
// shuts down calls it after aborting its runs, so no codex process and no
// temporary CODEX_HOME outlives it.
func (a *Adapter) Wait(ctx context.Context) error { return executor.WaitGroup(ctx, &a.live) }

// DefaultUserHome is the user's CODEX_HOME as the CLI resolves it.
func DefaultUserHome(getenv func(string) string) string {
	if h := getenv("CODEX_HOME"); h != "" {
		return h
	}
	return filepath.Join(getenv("HOME"), ".codex")
}

// ID is "codex".
func (*Adapter) ID() executor.ID { return executor.Codex }

// Name is the display name.
func (*Adapter) Name() string { return "Codex" }

// Capabilities are the runtime's static facts.
func (*Adapter) Capabilities() executor.Capabilities {
	return executor.Capabilities{
		Streaming: true, MCP: true, Worktrees: true, Resume: true, ToolApproval: true,
		Steering: true, RuntimeClass: executor.WrappedOneShot, Models: []string{"gpt-5-codex", "gpt-5"},
	}
}

// Health is "the codex binary is found"; it never runs it.
func (a *Adapter) Health(context.Context) executor.Health {
	if a.opts.Find == nil {
		return executor.Health{Message: "codex is not installed"}
	}
	if p, ok := a.opts.Find(); ok {
		return executor.Health{OK: true, Message: "codex found at " + p}
	}
	return executor.Health{Message: "codex is not installed (npm install -g @openai/codex)"}
}

// childEnvNames is what a codex child gets from the server's environment:
// proc's base set plus the certificate settings a proxied network needs.
func childEnvNames() []string { return append(proc.BaseEnv(), proc.TLSEnv()...) }

// Compiled on first use: a counted repetition compiles to a state per
// count, which cost start-up time as a package-level var.
var safeID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`) })

// Start prepares the agent's home and launches the run's child.
func (a *Adapter) Start(ctx context.Context, req executor.StartRequest) (executor.Run, error) {
	if req.Emitter == nil {
		return nil, errors.New("codex: no emitter")
	}
	bin, ok := "", false
	if a.opts.Find != nil {
		bin, ok = a.opts.Find()
	}
	if !ok {
		return nil, errors.New("codex is not installed (npm install -g @openai/codex)")
	}
	var mcp *MCP
	if a.opts.Attach != nil {
		m, err := a.opts.Attach(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("attach the MCP servers: %w", err)
		}
		mcp = m
	}
	home, throwaway := "", false
	if req.AgentID != "" && safeID().MatchString(req.AgentID) {
		home = filepath.Join(config.RuntimeHome(a.opts.Home, string(executor.Codex)), req.AgentID)
	} else {
		dir, err := os.MkdirTemp("", "clawboo-codex-")
		if err != nil {
			return nil, fmt.Errorf("codex home: %w", err)
		}
		home, throwaway = dir, true
	}
	keys := map[string]string{}
	hasKey := func(name string) bool {
		if _, ok := keys[name]; !ok {
			keys[name] = a.opts.Key(ctx, name)
		}
		return keys[name] != ""
	}
	setup := homeSetup{Dir: home, UserHome: a.opts.UserHome, HasKey: hasKey}
	if mcp != nil {
		setup.MCP = mcp.TOML
	}
	prov, err := prepareHome(setup)
	if err != nil {
		if throwaway {
			os.RemoveAll(home)
		}
		return nil, err
	}
	extra := map[string]string{}
	for k, v := range req.Env {
		extra[k] = v
	}
	// The host's own variables win over the run's (a task's secrets).
	extra["CODEX_HOME"] = home
	for _, name := range []string{"OPENAI_API_KEY", "CODEX_API_KEY", prov.ProviderEnv} {
		if name != "" && hasKey(name) {
			extra[name] = keys[name]
		}
	}
	if mcp != nil {
		for k, v := range mcp.Env {
			extra[k] = v
		}
	}
	model := req.Model
	if model == "" {
		model = prov.Model
	}
	r := &run{
		a: a, req: req, em: req.Emitter, bin: bin, home: home, throwaway: throwaway, mcp: mcp, model: model,
		env:     proc.AllowEnv(a.opts.Environ(), childEnvNames(), nil, extra),
		ctl:     make(chan control),
		aborted: make(chan struct{}),
		ended:   make(chan struct{}),
	}
	r.handle = DecodeHandle(req.Resume)
	r.ctx, r.cancel = context.WithCancel(ctx)
	a.live.Add(1)
	r.em.Go(r.main)
	return r, nil
}
