package claudecode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
)

// TokenEnv carries the MCP attach token to the child; the --mcp-config
// headers name it as ${TokenEnv}, which the CLI expands.
const TokenEnv = "CLAWBOO_MCP_TOKEN"

// MCPServers are the MCP servers a run attaches: name → URL (with the
// run's signed binding), and the bearer token they all take.
type MCPServers struct {
	URLs  map[string]string
	Token string
}

// Options wire the adapter; the host supplies what it cannot know.
type Options struct {
	// Binary finds the claude program; nil looks it up on PATH.
	Binary func() (string, bool)
	// Key is the Anthropic API key for one run, resolved when the run
	// starts; "" leaves the CLI to the user's own login.
	Key func(ctx context.Context) string
	// MCP returns the servers a run attaches; nil attaches none.
	MCP func(ctx context.Context, req executor.StartRequest) (MCPServers, error)
	// Environ is the server's environment (nil: os.Environ). Only
	// allowlisted names reach the child (see childEnv).
	Environ func() []string
	// Env is added to every child's environment (tests: the fake API's
	// base URL and the offline switches).
	Env map[string]string
	// ScratchDir holds the working folders of runs that have none: one per
	// conversation (the CLI keeps a session per folder, so a resume must
	// come back to the same one), or a throwaway one. Default: under the
	// system temp folder.
	ScratchDir string
	// MaxTurns is passed as --max-turns when positive.
	MaxTurns int
	// AbortGrace is how long an interrupt has before the process group is
	// stopped (default 2 s); it is also the SIGTERM-to-SIGKILL grace.
	AbortGrace time.Duration
	// SteerWait bounds how long a finished turn waits for the CLI to take
	// up a steer it has not read yet (default 10 s).
	SteerWait time.Duration
	// MaxLine bounds one line of CLI output (default 1 MiB).
	MaxLine int
	Log     *slog.Logger
}

// Adapter is the claude-code runtime.
type Adapter struct {
	opts Options
	live sync.WaitGroup // runs whose child is not reaped yet
}

// The host waits for Claude Code's children at shutdown.
var _ executor.Waiter = (*Adapter)(nil)

// New returns the adapter.
func New(opts Options) *Adapter {
	if opts.AbortGrace <= 0 {
		opts.AbortGrace = 2 * time.Second
	}
	if opts.SteerWait <= 0 {
		opts.SteerWait = 10 * time.Second
	}
	if opts.MaxLine <= 0 {
		opts.MaxLine = 1 << 20
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ
	}
	if opts.ScratchDir == "" {
		opts.ScratchDir = filepath.Join(os.TempDir(), "clawboo-claude-code")
	}
	return &Adapter{opts: opts}
}

// ID implements executor.Adapter.
func (*Adapter) ID() executor.ID { return executor.ClaudeCode }

// Name implements executor.Adapter.
func (*Adapter) Name() string { return "Claude Code" }

// Capabilities implements executor.Adapter (seed 000's table: live
// steering, no model change mid-run, worktrees, MCP, resume).
func (*Adapter) Capabilities() executor.Capabilities {
	return executor.Capabilities{
		Streaming: true, MCP: true, Worktrees: true, Resume: true, ToolApproval: true, Steering: true,
		RuntimeClass: executor.WrappedOneShot, ContextWindow: 200000, Models: []string{"sonnet", "opus", "haiku"},
	}
}

// NotFound is the health message when no claude program is installed.
const NotFound = "claude not found: install it with npm install -g @anthropic-ai/claude-code"

// Health implements executor.Adapter: healthy when the program is found.
func (a *Adapter) Health(context.Context) executor.Health {
	if _, ok := a.binary(); !ok {
		return executor.Health{OK: false, Message: NotFound}
	}
	return executor.Health{OK: true}
}

func (a *Adapter) binary() (string, bool) {
	if a.opts.Binary != nil {
		return a.opts.Binary()
	}
	p, err := exec.LookPath("claude")
	return p, err == nil
}

// Start implements executor.Adapter. It fails only when the program is
// missing or cannot be started; everything after is events.
func (a *Adapter) Start(ctx context.Context, req executor.StartRequest) (executor.Run, error) {
	if req.Emitter == nil {
		return nil, errors.New("claude-code: start request has no emitter")
	}
	bin, ok := a.binary()
	if !ok {
		return nil, errors.New(NotFound)
	}
	dir, removeDir, err := a.workDir(req)
	if err != nil {
		return nil, err
	}
	var servers MCPServers
	if a.opts.MCP != nil {
		if servers, err = a.opts.MCP(ctx, req); err != nil {
			removeDir()
			return nil, fmt.Errorf("claude-code: attach MCP servers: %w", err)
		}
	}
	key := ""
	if a.opts.Key != nil {
		key = a.opts.Key(ctx)
	}
	mark := string(req.RunID) + "." + newUUID()[:8]
	r := &run{
		a: a, req: req, em: req.Emitter, bin: bin, dir: dir, removeDir: removeDir, mark: mark,
		args: a.args(req, servers), env: a.childEnv(key, servers.Token, mark, req.Env),
		scrub: newScrubber(key, servers.Token), abortReq: make(chan struct{}), reaped: make(chan struct{}), unread: map[string]bool{},
	}
	if err := r.launch(req.Resume); err != nil {
		removeDir()
		return nil, fmt.Errorf("claude-code: start %s: %w", bin, err)
	}
	a.live.Add(1)
	r.em.Go(func() {
		defer a.live.Done()
		r.loop()
	})
	return r, nil
}

// Wait blocks until every run's child is reaped (a run's done goes out
// before its CLI has exited), or ctx ends. A host that shuts down calls it
// after aborting its runs, so no CLI outlives it.
func (a *Adapter) Wait(ctx context.Context) error { return executor.WaitGroup(ctx, &a.live) }

// workDir is the run's working folder: its own, else one per
// conversation under ScratchDir (kept, for resume), else a throwaway one
// (removed when the run is over).
func (a *Adapter) workDir(req executor.StartRequest) (string, func(), error) {
	keep := func() {}
	if req.WorkDir != "" {
		if st, err := os.Stat(req.WorkDir); err != nil || !st.IsDir() {
			return "", nil, fmt.Errorf("claude-code: working folder %s is not a folder", req.WorkDir)
		}
		return req.WorkDir, keep, nil
	}
	if err := os.MkdirAll(a.opts.ScratchDir, 0o700); err != nil {
		return "", nil, fmt.Errorf("claude-code: scratch folder: %w", err)
	}
	if req.SessionKey != "" {
		sum := sha256.Sum256([]byte(req.SessionKey))
		dir := filepath.Join(a.opts.ScratchDir, hex.EncodeToString(sum[:8]))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", nil, fmt.Errorf("claude-code: scratch folder: %w", err)
		}
		return dir, keep, nil
	}
	dir, err := os.MkdirTemp(a.opts.ScratchDir, "run-")
	if err != nil {
		return "", nil, fmt.Errorf("claude-code: scratch folder: %w", err)
	}
	return dir, func() { _ = os.RemoveAll(dir) }, nil
}

// args are the CLI flags of a run, without --resume (launch adds it).
func (a *Adapter) args(req executor.StartRequest, servers MCPServers) []string {
	args := []string{
		"--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
		"--replay-user-messages", "--permission-mode", "bypassPermissions",
	}
	if req.Model != "" {
		args = append(args, "--model", req.Model)
	}
	if a.opts.MaxTurns > 0 {
		args = append(args, "--max-turns", strconv.Itoa(a.opts.MaxTurns))
	}
	if len(servers.URLs) > 0 {
		args = append(args, "--mcp-config", mcpConfig(servers))
	}
	return args
}

// mcpConfig is the inline --mcp-config JSON: every server over HTTP with
// the bearer token named, not written (the CLI expands ${CLAWBOO_MCP_TOKEN}
// from its environment), so the token is never on a command line.
func mcpConfig(s MCPServers) string {
	servers := map[string]any{}
	for name, u := range s.URLs {
		srv := map[string]any{"type": "http", "url": u}
		if s.Token != "" {
			srv["headers"] = map[string]string{"Authorization": "Bearer ${" + TokenEnv + "}"}
		}
		servers[name] = srv
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	return string(b)
}

// A child gets proc's base set, TLS trust and the XDG folders from the
// server's environment (childEnv). passPrefixes pass the user's own Claude
// Code settings (CLAUDE_CONFIG_DIR, ANTHROPIC_BASE_URL, CLAUDE_CODE_*,
// DISABLE_*); proc drops any name in them that looks like a credential, so
// a key reaches the child only as resolved for the run.
var passPrefixes = []string{"CLAUDE_", "ANTHROPIC_", "DISABLE_"}

func (a *Adapter) childEnv(key, token, mark string, reqEnv map[string]string) []string {
	extra := map[string]string{}
	for k, v := range a.opts.Env {
		extra[k] = v
	}
	for k, v := range reqEnv {
		extra[k] = v
	}
	extra[MarkerEnv] = mark
	if key != "" {
		extra["ANTHROPIC_API_KEY"] = key
	}
	if token != "" {
		extra[TokenEnv] = token
	}
	if os.Geteuid() == 0 {
		// As root the CLI refuses bypassPermissions unless told it is
		// sandboxed.
		extra["IS_SANDBOX"] = "1"
	}
	allow := slices.Concat(proc.BaseEnv(), proc.TLSEnv(), proc.XDGEnv())
	return proc.AllowEnv(a.opts.Environ(), allow, passPrefixes, extra)
}
