package supervisor

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

// The setup phase's tool call in the run's timeline.
const (
	setupCallID   = "clawboo-setup"
	setupToolName = "clawboo.setup"
	// maxSetupLines bounds the live lines of one setup phase; the result
	// keeps the output's tail either way.
	maxSetupLines = 400
)

// setupPhase prepares a task's worktree before the agent starts: the base
// commit's .clawboo/include files are copied in, then its .clawboo/setup
// runs (once per worktree), with the task's ports. What it does streams
// into the run's timeline as host-made events (a tool call, status lines,
// its result) through the run's own emitter, so their sequence numbers
// are the run's. It reports false when the run must end before the agent
// starts: a failed setup (o.hostError holds its output) or an abort.
func (l *liveRun) setupPhase(ctx context.Context, o *outcome) bool {
	events := l.em.Events()
	failed := make(chan string, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				failed <- fmt.Sprintf("setup crashed: %v", p)
			}
		}()
		failed <- l.prepare(ctx)
	}()
	beat := time.NewTicker(l.s.opts.HeartbeatEvery)
	defer beat.Stop()
	for {
		select {
		case ev := <-events:
			l.take(o, ev)
		case <-beat.C:
			_ = l.s.opts.Board.Heartbeat(context.Background(), l.task.task.ID, l.id)
		case msg := <-failed:
			// Every Emit returned before prepare did: what it sent is queued.
			for drained := false; !drained; {
				select {
				case ev := <-events:
					l.take(o, ev)
				default:
					drained = true
				}
			}
			switch {
			case ctx.Err() != nil:
				o.notStarted = true
				return false
			case msg != "":
				o.hostError = msg
				return false
			}
			return true
		}
	}
}

// prepare copies the included files and runs setup, emitting the phase's
// events; it returns why the run cannot start, or "".
func (l *liveRun) prepare(ctx context.Context) string {
	wm, wt := l.s.opts.Worktrees, *l.task.wt
	opened := false
	emit := func(ev executor.Event) { _ = l.em.Emit(ctx, ev) }
	open := func() {
		if !opened {
			opened = true
			in, _ := json.Marshal(map[string]any{"include": ".clawboo/include", "script": ".clawboo/setup", "ports": l.task.ports})
			emit(executor.ToolCall(setupCallID, setupToolName, in))
		}
	}
	var report strings.Builder
	line := func(s string) {
		report.WriteString(s + "\n")
		open()
		emit(executor.Status(executor.PhaseRunning, "setup: "+s))
	}
	rep, err := wm.CopyIncludes(ctx, wt)
	for _, g := range rep.Refused {
		line("include refused " + g)
	}
	for _, p := range rep.Copied {
		line("included " + p)
	}
	for _, p := range rep.Skipped {
		line("include skipped " + p)
	}
	if err != nil {
		msg := "setup failed: could not copy the included files: " + err.Error()
		open()
		emit(executor.ToolResult(setupCallID, setupToolName, report.String()+msg, true))
		return msg
	}
	n := 0
	res := wm.Setup(ctx, wt, l.s.opts.SetupTimeout, func(s string) {
		if n++; n <= maxSetupLines {
			open()
			emit(executor.Status(executor.PhaseRunning, "setup: "+s))
		} else if n == maxSetupLines+1 {
			emit(executor.Status(executor.PhaseRunning, "setup: … (more output; the result keeps its end)"))
		}
	})
	if !res.Ran && res.Passed {
		if opened {
			emit(executor.ToolResult(setupCallID, setupToolName, report.String(), false))
		}
		return ""
	}
	open()
	out := report.String() + res.Output
	if res.Passed {
		emit(executor.ToolResult(setupCallID, setupToolName, out+fmt.Sprintf("\n[setup passed in %d ms]", res.DurationMs), false))
		return ""
	}
	emit(executor.ToolResult(setupCallID, setupToolName, out, true))
	why := fmt.Sprintf("setup failed (exit %d)", res.ExitCode)
	if res.TimedOut {
		why = "setup timed out"
	}
	return why + ": " + lastChars(strings.TrimSpace(res.Output), 1500)
}

func lastChars(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return "…" + string(r[len(r)-n:])
	}
	return s
}
