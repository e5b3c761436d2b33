package acp

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/jail"
	"github.com/clawboo/desktop/backend/proc"
)

// run is one host run: one agent process, one session, one or more turns.
type run struct {
	a      *Adapter
	req    executor.StartRequest
	em     *executor.Emitter
	ctx    context.Context
	bin    string
	tmp    string // a throwaway working folder, removed at the end
	jail   *jail.Dir
	mapper *mapper
	terms  *terminals

	replaying atomic.Bool  // a loaded session's history is being replayed
	frames    atomic.Int64 // JSON-RPC frames read from the agent
	out       atomic.Int64 // bytes read from the agent's stdout

	// stopped is closed when a person (or the host) stops the run, so a
	// question still waiting for a person is withdrawn.
	stopped  chan struct{}
	stopOnce sync.Once
	// inFlight holds a token per update handed to the SDK and not yet
	// mapped; quit is closed when the run is over.
	inFlight chan struct{}
	quit     chan struct{}
	quitOnce sync.Once

	mu      sync.Mutex
	child   *proc.Child
	conn    *acpsdk.ClientSideConnection
	session acpsdk.SessionId
	models  bool // the session offers set_model
	inTurn  bool
	aborted bool
	ended   bool
	steers  []string
	fault   string
	stderr  []string
	always  map[string]bool // tools allowed for the rest of the session
}

func newRun(ctx context.Context, a *Adapter, req executor.StartRequest, bin string) *run {
	r := &run{
		a: a, req: req, em: req.Emitter, ctx: ctx, bin: bin, mapper: newMapper(), always: map[string]bool{}, stopped: make(chan struct{}),
		inFlight: make(chan struct{}, maxInFlight), quit: make(chan struct{}),
	}
	r.terms = newTerminals(r)
	return r
}

func (r *run) ID() executor.RunID            { return r.req.RunID }
func (r *run) Events() <-chan executor.Event { return r.em.Events() }

// WriteContext writes .clawboo/context/<key>.md in the working folder.
func (r *run) WriteContext(_ context.Context, key, value string) error {
	return executor.WriteContextFile(r.req.WorkDir, key, value)
}

// childEnv is proc's allowlist, the host's non-secret extras, and the
// Spec's keys from the vault (or the host's request).
func (r *run) childEnv() []string {
	extra := map[string]string{}
	for k, v := range r.req.Env {
		if !proc.IsCredentialName(k) && !proc.HostOwned(k) {
			extra[k] = v
		}
	}
	for _, name := range r.a.opts.Spec.EnvVars {
		v := r.req.Env[name]
		if v == "" {
			v = r.a.opts.Key(r.ctx, name)
		}
		if v != "" {
			extra[name] = v
		}
	}
	// PassEnv is the catalog's (never a person's), so it may name a
	// runtime's own settings (ANTHROPIC_BASE_URL, CLAUDE_CONFIG_DIR) that
	// a person's variable could not; a credential's name still never passes.
	var pass []string
	for _, n := range r.a.opts.Spec.PassEnv {
		if !proc.IsCredentialName(n) {
			pass = append(pass, n)
		}
	}
	names := slices.Concat(proc.BaseEnv(), proc.TLSEnv(), proc.XDGEnv(), pass)
	return proc.AllowEnv(r.a.opts.Environ(), names, nil, extra)
}

// open starts the process and the connection over its stdio.
// A run without a working folder gets a throwaway one (removed when the
// run ends): the protocol needs an absolute folder, and the agent must not
// be pointed at the person's own.
func (r *run) open() error {
	if r.req.WorkDir == "" {
		dir, err := os.MkdirTemp("", "clawboo-acp-")
		if err != nil {
			return err
		}
		r.req.WorkDir, r.tmp = dir, dir
	}
	j, err := jail.Open(r.req.WorkDir)
	if err != nil {
		return err
	}
	r.jail = j
	c, err := proc.Start(r.ctx, proc.Spec{
		Path: r.bin, Args: r.a.opts.Spec.Args, Dir: r.req.WorkDir, Env: r.childEnv(),
		Grace: r.a.opts.Grace, MaxLine: maxStderrLine, Stdin: true, RawStdout: true,
	})
	if err != nil {
		return err
	}
	go r.readStderr(c)
	out := newFrames(r, c)
	conn := acpsdk.NewClientSideConnection(&client{r: r}, c.Stdin(), out)
	// The SDK's diagnostics quote raw frames, which can hold secrets. Its
	// reader starts at once; frames hands it nothing before the logger is
	// set, so it cannot log (and race) before.
	conn.SetLogger(slog.New(slog.DiscardHandler))
	close(out.ready)
	r.mu.Lock()
	r.child, r.conn = c, conn
	r.mu.Unlock()
	return nil
}

// stoppedEarly ends a run a person stopped before its first turn.
func (r *run) stoppedEarly() bool {
	if !r.stopping() {
		return false
	}
	r.end(executor.DoneAborted, "aborted before the agent began")
	return true
}

// stopping says a person (or the host) is ending the run.
func (r *run) stopping() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.aborted || r.ctx.Err() != nil
}

func (r *run) alwaysAllowed(tool string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.always[tool]
}

func (r *run) allowAlways(tool string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.always) < 256 {
		r.always[tool] = true
	}
}

// prompt is the first turn's text: the context above the message.
func (r *run) prompt() string {
	if c := strings.TrimSpace(r.req.Context); c != "" {
		return c + "\n\n" + r.req.Message
	}
	return r.req.Message
}

func isAbs(p string) bool { return filepath.IsAbs(p) }
