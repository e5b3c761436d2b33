// Package mock is clawboo-mock, the fault-injection runtime: a real runtime
// (not a test double) that reproduces silence, crashes, open tool calls,
// slow starts and floods through the same host paths a real runtime uses.
//
// Invariants:
//   - It executes nothing; every tool call is a synthesized event.
//   - Faults come only from directives in the run's message and context
//     (see Parse). With no directive a run ends done:success with summary
//     "mock run complete".
//   - Every delay is capped at ten minutes and every count is capped, so no
//     input can make a mock run unbounded except !abort, which waits for the
//     abort it asks for.
//   - The composition root offers it only when CLAWBOO_ENABLE_MOCK_RUNTIME is
//     exactly "1"; this package does not read the environment.
//   - It declares what seed 000 says: no worktrees, no resume, no steering.
//     NewWithWorktrees (CLAWBOO_MOCK_WORKTREES=1) is the one exception: a
//     mock that works in the run's folder, so board tests and the keyless
//     demo can leave a diff with !write; New's mock never touches a folder.
//
// Directives (the seed's set, plus !flood, our extension for load tests):
//
//	!ok <text>         emit text (default "ok"); the joined texts are the summary
//	!silent <ms>       emit nothing for that long (default 1000)
//	!toolcall <name>   a tool call that never gets a result (default "build")
//	!error <msg>       one fatal error with code "mock", then end without done
//	!abort             hold the run open until aborted, then done:aborted
//	!loop <n>          n identical tool call/result pairs (default 3, max 50)
//	!slowstart <ms>    delay Start (default 500)
//	!crash             panic inside the run's goroutine
//	!flood <n>         n text deltas as fast as possible (default 1000, max 1,000,000)
//	!cost <usd> [model]               a cost event with the runtime's own USD
//	!usage <in> <out> [model]         a cost event with tokens and no price
//	!localcost <in> <out> [model]     a cost event of a free local model
//	!quota <window> <pct> [status] [resets-in-s]  a usage window (quota.go)
//	!write <path> <text>              write text to a file in the working folder
//	!delegate <@member> [kind=<k>] [repo=<path>] <task>  a leader's delegation (a "delegate" tool call
//	                                  and its result); "\n" in the task is a new line,
//	                                  so the child's message can carry directives
//	!critic <json>                    a scripted critic's answer (see below); ignored by other runs
//	!hasenv <NAME>                    text saying whether the run was given NAME in its
//	                                  environment (and its length), never its value
//	!ask <command>                    a run_command tool call put to a person (the
//	                                  host's approvals queue, as native's is); its
//	                                  result and a text say the answer; never run
//
// A review run (the critic's: session key "review:<task>:<round>:<id>",
// whose message quotes the task's description) plays none of the task's
// directives: it answers with the argument of the round-th !critic line
// (the last one when there are fewer), or {"findings":[]} when there is
// none, so a task's description scripts each review of its change.
//
// The last five are ours too, so board tests can exercise every cost kind
// and a real diff without a model provider. !write is confined to the run's
// working folder and reports a tool error elsewhere.
package mock

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

// Adapter is the clawboo-mock runtime.
type Adapter struct {
	worktrees bool    // declares Worktrees and gives !write the run's folder
	ask       AskFunc // puts !ask's command to a person; nil: no one to ask
}

// Question is what !ask puts to a person: a command the run would run in
// its folder (the mock never runs it).
type Question struct {
	Command, Folder, RunID, AgentID, TeamID, TaskID string
}

// AskFunc puts a question to a person and answers true only when they
// allowed it; an error means no one was asked.
type AskFunc func(ctx context.Context, q Question) (allowed bool, note string, err error)

// WithAsk has !ask put its command to a person through f (the host's
// approvals queue), as the native runtime's run_command does.
func (a *Adapter) WithAsk(f AskFunc) *Adapter {
	a.ask = f
	return a
}

// New returns the mock runtime as seed 000 describes it.
func New() *Adapter { return &Adapter{} }

// NewWithWorktrees returns a mock that declares worktrees and works in the
// run's folder (!write), for board tests and the keyless demo; the host
// builds it only when CLAWBOO_MOCK_WORKTREES is exactly "1".
func NewWithWorktrees() *Adapter { return &Adapter{worktrees: true} }

// ID implements executor.Adapter.
func (*Adapter) ID() executor.ID { return executor.Mock }

// Name implements executor.Adapter.
func (*Adapter) Name() string { return "Mock (fault injection)" }

// Capabilities implements executor.Adapter: streaming only, as the seed's
// mock; worktrees too when built by NewWithWorktrees.
func (a *Adapter) Capabilities() executor.Capabilities {
	return executor.Capabilities{
		Streaming:    true,
		Worktrees:    a.worktrees,
		RuntimeClass: executor.EphemeralTestDouble,
		Models:       []string{"mock"},
	}
}

// Health implements executor.Adapter: always healthy.
func (*Adapter) Health(context.Context) executor.Health { return executor.Health{OK: true} }

// Start implements executor.Adapter. !slowstart delays it; the caller's
// context cancels the delay.
func (a *Adapter) Start(ctx context.Context, req executor.StartRequest) (executor.Run, error) {
	if req.Emitter == nil {
		return nil, fmt.Errorf("mock: start request has no emitter")
	}
	ds := Parse(req.Message + "\n" + req.Context)
	if round, ok := reviewRound(req.SessionKey); ok {
		ds = criticScript(ds, round)
	}
	var delay time.Duration
	for _, d := range ds {
		if d.Name == "slowstart" {
			delay += delayArg(d.Arg, DefaultSlowStart)
		}
	}
	if delay > MaxDelay {
		delay = MaxDelay
	}
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
	r := &run{em: req.Emitter, ctx: ctx, aborted: make(chan struct{}), resume: req.Resume, delegate: req.Delegate, env: req.Env, ask: a.ask, req: req}
	if a.worktrees {
		r.workDir = req.WorkDir // without worktrees the mock has no folder to write in
	}
	r.em.Go(func() { r.play(ds) })
	return r, nil
}

type run struct {
	em        *executor.Emitter
	ctx       context.Context
	workDir   string
	resume    string // the session the host asked to continue
	aborted   chan struct{}
	abortOnce sync.Once
	toolSeq   int
	texts     []string
	delegate  executor.DelegateFunc // a leader's turn only (see !delegate)
	ask       AskFunc               // see !ask
	req       executor.StartRequest // who and where, for !ask
	env       map[string]string     // what the host gave the run's environment (!hasenv)
}

func (r *run) ID() executor.RunID            { return r.em.RunID() }
func (r *run) Events() <-chan executor.Event { return r.em.Events() }

// Abort ends the run with done:aborted at its next step.
func (r *run) Abort(context.Context) error {
	r.abortOnce.Do(func() { close(r.aborted) })
	return nil
}

func (r *run) SetModel(context.Context, string) error             { return nil }
func (r *run) WriteContext(context.Context, string, string) error { return nil }
func (r *run) Steer(context.Context, executor.Steer) (executor.SteerResult, error) {
	return executor.SteerRejected, nil
}

// stopped reports whether the run was aborted or its context ended.
func (r *run) stopped() bool {
	select {
	case <-r.aborted:
		return true
	case <-r.ctx.Done():
		return true
	default:
		return false
	}
}

// wait sleeps for d, returning false when the run was stopped first.
func (r *run) wait(d time.Duration) bool {
	if d <= 0 {
		return !r.stopped()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.aborted:
		return false
	case <-r.ctx.Done():
		return false
	}
}

// emit delivers one event; the host always drains or abandons the stream,
// so waiting here cannot hang forever.
func (r *run) emit(ev executor.Event) bool {
	return r.em.Emit(context.Background(), ev) == nil
}

func (r *run) summary(def string) string {
	if len(r.texts) == 0 {
		return def
	}
	return strings.Join(r.texts, "\n")
}

func (r *run) finishAborted() {
	r.emit(executor.Done(executor.DoneAborted, r.summary("mock run aborted")))
}

func (r *run) nextToolID() string {
	r.toolSeq++
	return fmt.Sprintf("mock-tool-%d", r.toolSeq)
}

func (r *run) play(ds []Directive) {
	init := executor.Event{Kind: executor.KindStatus, Phase: executor.PhaseInit, Model: "mock"}
	if r.resume != "" {
		init.Detail = "resuming " + r.resume
	}
	if !r.emit(init) {
		return
	}
	for _, d := range ds {
		if r.stopped() {
			r.finishAborted()
			return
		}
		if !r.step(d) {
			return
		}
	}
	if r.stopped() {
		r.finishAborted()
		return
	}
	r.emit(executor.Done(executor.DoneSuccess, r.summary("mock run complete")))
}

// step plays one directive; false means the run has ended.
func (r *run) step(d Directive) bool {
	switch d.Name {
	case "ok":
		text := d.Arg
		if text == "" {
			text = "ok"
		}
		r.texts = append(r.texts, text)
		return r.emit(executor.Text(text))
	case "silent":
		if !r.wait(delayArg(d.Arg, DefaultSilent)) {
			r.finishAborted()
			return false
		}
	case "toolcall":
		name := d.Arg
		if name == "" {
			name = "build"
		}
		return r.emit(executor.ToolCall(r.nextToolID(), name, nil))
	case "error":
		msg := d.Arg
		if msg == "" {
			msg = "mock error"
		}
		r.emit(executor.Error("mock", msg, true))
		r.em.Close() // the seed's fault: the stream ends with no done
		return false
	case "abort":
		select {
		case <-r.aborted:
		case <-r.ctx.Done():
		}
		r.finishAborted()
		return false
	case "loop":
		for i := countArg(d.Arg, DefaultLoop, MaxLoop); i > 0; i-- {
			id := r.nextToolID()
			if !r.emit(executor.ToolCall(id, "noop", nil)) || !r.emit(executor.ToolResult(id, "noop", "ok", false)) {
				return false
			}
		}
	case "crash":
		panic("mock crash requested by !crash")
	case "cost", "usage", "localcost":
		return r.emit(costEvent(d))
	case "session":
		return r.emit(executor.SessionStarted(strings.TrimSpace(d.Arg), "mock"))
	case "quota":
		if ev, ok := quotaEvent(d.Arg, time.Now()); ok {
			return r.emit(ev)
		}
	case "write":
		return r.write(d.Arg)
	case "hasenv":
		name := strings.TrimSpace(d.Arg)
		text := name + " is not set"
		if v, ok := r.env[name]; ok {
			text = fmt.Sprintf("%s is set (%d bytes)", name, len(v))
		}
		r.texts = append(r.texts, text)
		return r.emit(executor.Text(text))
	case "delegate":
		return r.delegateTo(d.Arg)
	case "ask":
		return r.askPerson(strings.TrimSpace(d.Arg))
	case "flood":
		n := countArg(d.Arg, DefaultFlood, MaxFlood)
		for i := 0; i < n; i++ {
			if i&1023 == 0 && r.stopped() {
				r.finishAborted()
				return false
			}
			if !r.emit(executor.Text("x")) {
				return false
			}
		}
	}
	return true
}
