// Package hermes is the Hermes Agent runtime (`hermes`): one
// `hermes chat -q <prompt> -Q --yolo --accept-hooks [-m M] [--resume ID]
// [--provider P]` process per run segment, its stdout lines reported as
// text, the `session_id:` line on stderr as the resume handle, and its exit
// code as the result.
//
// Invariants:
//   - One host run is one event stream ending in exactly one Done, however
//     many processes it took: a steer (mode next) stops the process and
//     resumes the same session with the steer's text, inside the same run.
//     A passive steer is refused, because it must never stop a run.
//   - Every child runs in its own process group and is reaped when the run
//     is aborted, crashes, floods, goes silent or the host's context ends;
//     such runs end in Done{error|aborted} with a message that says which.
//   - The child's environment is an allowlist plus HERMES_HOME and at most
//     one provider key: the chosen provider's. Keys and the MCP attach
//     token never appear in events, errors or logs.
//   - Each agent has a managed HERMES_HOME (<root>/<agentId>, 0700) whose
//     config.yaml is copied once from the user's and never overwritten or
//     copied back, and whose mcp.json (0600) names Clawboo's four MCP
//     servers and is rewritten every run. A run with no agent gets a
//     throwaway home, removed before its Done (one a crash left behind is
//     swept a day later).
//   - Hermes reports no cost, so the adapter emits no cost event; the host
//     estimates from characters. Every buffer is bounded.
package hermes

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

// Defaults of the bounds.
const (
	DefaultMaxOutput = 4 << 20 // bytes a process may write (both streams) before it is stopped
	DefaultGrace     = 3 * time.Second
	maxSummary       = 16 << 10
	maxLine          = 64 << 10
)

// Options configure the adapter.
type Options struct {
	// Root holds the managed homes: <clawboo home>/runtimes/hermes.
	Root string
	// UserConfig is the user's own Hermes config.yaml, copied into a home
	// that has none ("" copies nothing).
	UserConfig string
	// Find locates the hermes program (PATH and the pip/pipx user folders).
	Find func() (string, bool)
	// Environ is the server's environment; the child gets an allowlist of it.
	Environ func() []string
	// Key resolves a provider key by variable name ("" when not connected).
	Key func(ctx context.Context, envVar string) string
	// Attach returns the mcp.json text for a run's binding, "" when the MCP
	// servers are not reachable (then the home has no mcp.json).
	Attach func(ctx context.Context, req executor.StartRequest) (string, error)
	Log    *slog.Logger
	// Silence stops a process that writes nothing for this long (0: the
	// adapter sets no limit and the host's idle timeout applies; quiet mode
	// writes only when the turn ends, so a limit must allow a whole turn).
	Silence time.Duration
	// MaxOutput bounds what one process may write (default DefaultMaxOutput).
	MaxOutput int64
	// Grace is how long a stopped process has between SIGTERM and SIGKILL.
	Grace time.Duration
}

// Adapter is the Hermes runtime.
type Adapter struct {
	opts Options
	// live counts runs whose loop has not returned: their processes are
	// reaped and their throwaway home removed only then.
	live sync.WaitGroup
}

// The host waits for Hermes's processes at shutdown.
var _ executor.Waiter = (*Adapter)(nil)

// Wait blocks until every run's loop has returned (its last process
// reaped, its throwaway home removed), or ctx ends; a host that shuts down
// calls it after aborting its runs.
func (a *Adapter) Wait(ctx context.Context) error { return executor.WaitGroup(ctx, &a.live) }

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
		o.Find = func() (string, bool) { return "", false }
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.Root != "" {
		sweepThrowaway(o.Root, time.Now())
	}
	return &Adapter{opts: o}
}

// ID is "hermes".
func (*Adapter) ID() executor.ID { return executor.Hermes }

// Name is the display name.
func (*Adapter) Name() string { return "Hermes" }

// Capabilities: quiet mode gives the answer at the end (no streaming), the
// model is fixed per process, and steering is stop-and-resume.
func (*Adapter) Capabilities() executor.Capabilities {
	return executor.Capabilities{
		MCP: true, Worktrees: true, Resume: true, ToolApproval: true, Steering: true,
		RuntimeClass: executor.WrappedOneShot, Models: []string{},
	}
}

// Health is "the hermes program is found"; a lookup is a cached map read.
func (a *Adapter) Health(context.Context) executor.Health {
	if p, ok := a.opts.Find(); ok {
		return executor.Health{OK: true, Message: "hermes found at " + p}
	}
	return executor.Health{OK: false, Message: "hermes not found on PATH or in the pip/pipx user folders"}
}

// ErrNotInstalled is Start's error when no hermes program is found.
var ErrNotInstalled = errors.New("hermes is not installed (not found on PATH or in the pip/pipx user folders)")

// Start prepares the run's home and launches its first process. Only a
// missing program or an unusable home is an error; everything after is
// reported as events.
func (a *Adapter) Start(ctx context.Context, req executor.StartRequest) (executor.Run, error) {
	if req.Emitter == nil {
		return nil, errors.New("hermes: no emitter")
	}
	bin, ok := a.opts.Find()
	if !ok {
		return nil, ErrNotInstalled
	}
	mcpJSON := ""
	if a.opts.Attach != nil {
		text, err := a.opts.Attach(ctx, req)
		if err != nil {
			// Without the servers the run still works, minus the board tools.
			a.opts.Log.Warn("hermes run without Clawboo's MCP servers", "run", req.RunID, "err", err)
		}
		mcpJSON = text
	}
	h, err := prepareHome(a.opts.Root, req.AgentID, a.opts.UserConfig, mcpJSON)
	if err != nil {
		return nil, err
	}
	r := newRun(ctx, a, req, bin, h)
	a.live.Add(1)
	req.Emitter.Go(func() {
		defer a.live.Done()
		r.loop()
	})
	return r, nil
}

// configuredProvider reads the home's config.yaml provider.
func configuredProvider(homePath string) string {
	b, err := os.ReadFile(filepath.Join(homePath, "config.yaml"))
	if err != nil || len(b) > maxConfig {
		return ""
	}
	return ConfigProvider(string(b))
}
