// Package native is clawboo-native, Clawboo's own agent loop: it streams
// turns from a model provider (through llm), runs the model's tool calls
// (file tools jailed to the run's working folder, and the in-process MCP
// servers) and reports everything as executor events.
//
// Invariants:
//   - Cache discipline: the system prompt is the agent's stable prompt plus
//     a date-only stamp; the tool list is built once before turn 1, sorted
//     by name; System and Tools are byte-identical on every request of a
//     run (and across runs of one agent on one day). The run context
//     arrives as the first user message; nothing volatile enters System.
//   - Every provider response emits one cost event with that turn's
//     deltas and the model and provider that served it.
//   - The rate-limit windows a turn's provider answers stated in their
//     headers (llm.WithRateLimits) are emitted as quota events, account
//     the provider id, when the turn's stream ends: before its cost
//     event, and a 429's rejected window before the run's error.
//   - Terminals: no tool calls → success; maxTurns → max_turns with a
//     handoff note for a fresh successor session; abort → aborted; provider
//     error or context overflow → error. Every terminal writes the
//     transcript atomically.
//   - Steering, context notes and model changes reach the model only at a
//     turn boundary; Abort cancels the in-flight stream at once.
//   - File tools never touch anything outside the working folder.
package native

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/llm"
	"github.com/clawboo/desktop/backend/mcp"
)

// ContextOverflowMessage is the error a run reports when its conversation
// no longer fits the model.
const ContextOverflowMessage = "The task was too large for the model's context window."

// MaxTokens is the reply budget of one turn.
const MaxTokens = 8192

// Options wire the adapter; the host supplies everything it cannot know.
type Options struct {
	// Hub serves the in-process MCP tools; nil means none.
	Hub *mcp.Hub
	// Home is Clawboo's home; transcripts live under
	// <Home>/runtimes/clawboo-native/<agentId>/sessions. Empty: not kept.
	Home string
	// Config loads an agent's config; nil (or an invalid result) means
	// DefaultConfig.
	Config func(ctx context.Context, agentID string) AgentConfig
	// Providers builds the provider (typically a fallback router) for a
	// config, with its keys resolved by the host.
	Providers func(ctx context.Context, cfg AgentConfig) (llm.Provider, error)
	// Ready reports, without a network call, whether any provider can be
	// routed to; nil means not ready.
	Ready func() bool
	// Ask puts a run_command to a person (the host wires the approvals
	// queue) and blocks until they answer, the request expires, or ctx
	// ends. nil means run_command is never offered.
	Ask func(ctx context.Context, req AskRequest) (AskAnswer, error)
	// CommandTimeout and CommandGrace override run_command's 5-minute
	// limit and 3-second SIGTERM→SIGKILL grace (tests); zero means default.
	CommandTimeout time.Duration
	CommandGrace   time.Duration
	Now            func() time.Time
	Log            *slog.Logger
}

// Adapter is the clawboo-native runtime.
type Adapter struct {
	opts Options
	// live counts runs whose loop has not returned; a run's shell commands
	// are reaped before its loop returns.
	live sync.WaitGroup
}

// The host waits for native runs (and their shell commands) at shutdown.
var _ executor.Waiter = (*Adapter)(nil)

// Wait blocks until every run's loop has returned, so no command a run
// started outlives the host, or ctx ends; a host that shuts down calls it
// after aborting its runs.
func (a *Adapter) Wait(ctx context.Context) error { return executor.WaitGroup(ctx, &a.live) }

// New returns the native runtime.
func New(o Options) *Adapter {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.CommandTimeout <= 0 {
		o.CommandTimeout = CommandTimeout
	}
	if o.CommandGrace <= 0 {
		o.CommandGrace = CommandGrace
	}
	return &Adapter{opts: o}
}

// ID implements executor.Adapter.
func (*Adapter) ID() executor.ID { return executor.Native }

// Name implements executor.Adapter.
func (*Adapter) Name() string { return "Clawboo Native" }

// Capabilities implements executor.Adapter. Tool approval: run_command
// asks a person before every command.
func (*Adapter) Capabilities() executor.Capabilities {
	return executor.Capabilities{
		Streaming: true, MCP: true, Worktrees: true, Resume: true, ToolApproval: true, Steering: true, ModelChange: true,
		RuntimeClass: executor.NativeClass, ContextWindow: 200000,
		Models: []string{"claude-haiku-4-5", "claude-sonnet-4-6", "gpt-4o-mini", "gpt-4o"},
	}
}

// Health implements executor.Adapter: healthy when the host says a
// provider is routable (a key resolves, or OLLAMA_BASE_URL is set). No
// network call.
func (a *Adapter) Health(context.Context) executor.Health {
	if a.opts.Ready != nil && a.opts.Ready() {
		return executor.Health{OK: true}
	}
	return executor.Health{OK: false, Message: "no provider key connected"}
}

// Start implements executor.Adapter. It fails only when the working folder
// cannot be opened; a missing provider ends the run with done:error.
func (a *Adapter) Start(ctx context.Context, req executor.StartRequest) (executor.Run, error) {
	if req.Emitter == nil {
		return nil, fmt.Errorf("native: start request has no emitter")
	}
	cfg := DefaultConfig()
	if a.opts.Config != nil {
		cfg = effective(a.opts.Config(ctx, req.AgentID))
	}
	model := cfg.PrimaryModel
	if m := strings.TrimSpace(req.Model); m != "" {
		model = m
	}
	binding := mcp.Binding{TeamID: req.TeamID, AgentID: req.AgentID, ReadOnly: cfg.Tools.Tasks == TasksRead, RunID: string(req.RunID)}
	var r *run
	var shell *shellTool
	if shellAvailable(cfg, req.WorkDir, a.opts.Ask) {
		shell = &shellTool{
			dir: req.WorkDir, ask: a.opts.Ask, timeout: a.opts.CommandTimeout, grace: a.opts.CommandGrace,
			environ: func() []string { return commandEnv(req.Env) },
			info: AskRequest{
				Folder: req.WorkDir, AgentID: req.AgentID, TeamID: req.TeamID,
				TaskID: taskOf(req.SessionKey), RunID: string(req.RunID),
			},
			emit: func(ev executor.Event) bool { return r.emit(ev) },
		}
	}
	tools, warns, err := buildTools(ctx, a.opts.Hub, req.WorkDir, cfg, binding, shell, req.Delegate)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	r = &run{
		a: a, req: req, cfg: cfg, model: model, tools: tools, warns: warns,
		em: req.Emitter, ctx: runCtx, cancel: cancel,
	}
	a.live.Add(1)
	r.em.Go(func() {
		defer a.live.Done()
		r.loop()
	})
	return r, nil
}

// taskOf is the board task of a run's session key ("task:<id>"), if any.
func taskOf(sessionKey string) string {
	id, ok := strings.CutPrefix(sessionKey, "task:")
	if !ok {
		return ""
	}
	return id
}

// run is one live native run.
type run struct {
	a      *Adapter
	req    executor.StartRequest
	cfg    AgentConfig
	tools  *toolset
	warns  []string
	em     *executor.Emitter
	ctx    context.Context // cancelled by Abort and by the host's context
	cancel context.CancelFunc

	mu        sync.Mutex
	model     string   // the model of the next turn
	nextModel string   // a SetModel waiting for the next turn
	pending   []string // steers and context notes for the next turn
	aborted   bool
	ended     bool
	// denyStreak counts policy denials in a row; the second trips the
	// repeat-denial breaker.
	denyStreak int
}

func (r *run) ID() executor.RunID            { return r.em.RunID() }
func (r *run) Events() <-chan executor.Event { return r.em.Events() }

// Abort cancels the in-flight stream (or tool call) at once; the run
// ends with done:aborted.
func (r *run) Abort(context.Context) error {
	r.mu.Lock()
	r.aborted = true
	r.mu.Unlock()
	r.cancel()
	return nil
}

// SetModel switches the model for the turns after the current one; the
// provider stays.
func (r *run) SetModel(_ context.Context, model string) error {
	model = strings.TrimSpace(model)
	if model == "" {
		return fmt.Errorf("native: empty model")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return nil
	}
	r.nextModel = model
	return nil
}

// WriteContext hands the model a note at the next turn boundary.
func (r *run) WriteContext(_ context.Context, key, value string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.ended {
		r.pending = append(r.pending, fmt.Sprintf("[context] %s: %s", key, value))
	}
	return nil
}

// Steer queues text for the next turn boundary. Both modes queue: a steer
// never interrupts a turn in flight.
func (r *run) Steer(_ context.Context, s executor.Steer) (executor.SteerResult, error) {
	text := strings.TrimSpace(s.Text)
	if text == "" {
		return executor.SteerRejected, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended || r.aborted {
		return executor.SteerRunEnded, nil
	}
	r.pending = append(r.pending, text)
	return executor.SteerQueued, nil
}

// boundary takes what waits for the next turn: the model to use and the
// queued user texts. ok is false once the run was aborted.
func (r *run) boundary() (model string, texts []string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.aborted || r.ctx.Err() != nil {
		return "", nil, false
	}
	if r.nextModel != "" {
		r.model, r.nextModel = r.nextModel, ""
	}
	texts, r.pending = r.pending, nil
	return r.model, texts, true
}

func (r *run) isAborted() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.aborted || r.ctx.Err() != nil
}

// emit delivers one event; the host drains or abandons the stream, so
// this cannot block forever.
func (r *run) emit(ev executor.Event) bool {
	return r.em.Emit(context.Background(), ev) == nil
}
