package codex

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
)

// The `codex exec --json` fallback, on the real codex.

// TestExecPath: a turn with a tool call, then a resumed turn charged only
// its own share of exec's cumulative usage; a steer is refused.
func TestExecPath(t *testing.T) {
	w := newWorld(t,
		shellRule("run a shell", "echo exec-ok", "Shell said: {result}"),
		fakeresponses.Rule{Match: "again", Steps: []fakeresponses.Step{{Text: "Again.", Input: 900, Output: 9}}})
	w.mode = Exec
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run := w.start(ctx, w.adapter(), executor.StartRequest{AgentID: "agent-x", Message: "run a shell command", WorkDir: dir})
	var first []executor.Event
	steered := executor.SteerResult("")
	for ev := range run.Events() {
		first = append(first, ev)
		if steered == "" && ev.Kind == executor.KindStatus {
			steered, _ = run.Steer(ctx, executor.Steer{Text: "x", Mode: executor.SteerNext})
		}
	}
	if steered != executor.SteerRejected {
		t.Fatalf("steer on exec: %q", steered)
	}
	if d := executortest.Done(t, first); d.Reason != executor.DoneSuccess || !strings.Contains(d.Summary, "exec-ok") {
		t.Fatalf("first: %s", executortest.Describe(first))
	}
	tools := 0
	for _, e := range first {
		if (e.Kind == executor.KindToolCall || e.Kind == executor.KindToolResult) && e.Name == "shell" {
			tools++
		}
	}
	if tools != 2 {
		t.Fatalf("tool events: %s", executortest.Describe(first))
	}
	h1 := DecodeHandle(handleOf(first))
	u1 := costOf(t, first)
	if h1.Thread == "" || h1.Totals.Input != u1.InputTokens {
		t.Fatalf("handle %+v usage %+v", h1, u1)
	}
	second := w.runToEnd(executor.StartRequest{AgentID: "agent-x", Message: "again", WorkDir: dir, Resume: handleOf(first)})
	if d := executortest.Done(t, second); d.Reason != executor.DoneSuccess || d.Summary != "Again." {
		t.Fatalf("second: %s", executortest.Describe(second))
	}
	if u := costOf(t, second); u.InputTokens != 900 || u.OutputTokens != 9 {
		t.Fatalf("resumed exec run charged %+v, want its own 900/9", u)
	}
	if h2 := DecodeHandle(handleOf(second)); h2.Thread != h1.Thread {
		t.Fatalf("resume changed thread: %+v %+v", h1, h2)
	}
	noSecret(t, append(first, second...))
}

// TestExecAbortAndError: exec aborts by stopping the process, and reports
// a provider error as a failed run.
func TestExecAbortAndError(t *testing.T) {
	w := newWorld(t, shellRule("sleep", "sleep 42.19", "never"), fakeresponses.Rule{Match: "fail", Steps: []fakeresponses.Step{{Status: 400}}})
	w.mode = Exec
	evs := w.runToEnd(executor.StartRequest{AgentID: "agent-x", Message: "fail please", WorkDir: t.TempDir()})
	if d := executortest.Done(t, evs); d.Reason != executor.DoneError || !strings.Contains(d.Summary, "fake: scripted failure") {
		t.Fatalf("error run: %s", executortest.Describe(evs))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run := w.start(ctx, w.adapter(), executor.StartRequest{AgentID: "agent-x", Message: "please sleep", WorkDir: t.TempDir()})
	evs = nil
	for ev := range run.Events() {
		evs = append(evs, ev)
		if ev.Kind == executor.KindToolCall {
			_ = run.Abort(ctx)
		}
	}
	if d := executortest.Done(t, evs); d.Reason != executor.DoneAborted {
		t.Fatalf("abort: %s", executortest.Describe(evs))
	}
}

// TestFallbackToExec: a codex whose app-server is unavailable (it exits
// at once, as a codex without the subcommand does) runs on exec.
func TestFallbackToExec(t *testing.T) {
	w := newWorld(t, fakeresponses.Text("hi", "Hello via exec."))
	wrapper := filepath.Join(t.TempDir(), "codex")
	script := "#!/bin/sh\nif [ \"$1\" = app-server ]; then echo \"error: unrecognized subcommand 'app-server'\" >&2; exit 2; fi\nexec " + w.bin + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	w.bin = wrapper
	evs := w.runToEnd(executor.StartRequest{AgentID: "agent-f", Message: "hi", WorkDir: t.TempDir()})
	if d := executortest.Done(t, evs); d.Reason != executor.DoneSuccess || d.Summary != "Hello via exec." {
		t.Fatalf("events: %s", executortest.Describe(evs))
	}
	fell := false
	for _, e := range evs {
		fell = fell || strings.Contains(e.Detail, "using codex exec")
	}
	if !fell || DecodeHandle(handleOf(evs)).Thread == "" {
		t.Fatalf("no fallback reported: %s", executortest.Describe(evs))
	}
	// Forced app-server mode fails instead, with the reason.
	w.mode = AppServer
	evs = w.runToEnd(executor.StartRequest{AgentID: "agent-f", Message: "hi"})
	if d := executortest.Done(t, evs); d.Reason != executor.DoneError || !strings.Contains(d.Summary, "unrecognized subcommand") {
		t.Fatalf("forced app-server: %s", executortest.Describe(evs))
	}
}
