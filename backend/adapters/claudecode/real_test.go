//go:build unix

package claudecode

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/backend/fakes/fakeanthropic"
	"github.com/clawboo/desktop/internal/testkit"
)

// Everything here drives the real, pinned claude against fakeanthropic,
// fully offline.

// sleepRule makes the model run a shell command that takes a while: a
// tool call in flight to abort or steer into.
func sleepRule(match string, secs string) fakeanthropic.Rule {
	return fakeanthropic.Rule{
		Match: match, Tool: "^Bash$", TextBefore: "Sleeping.",
		Input:     map[string]any{"command": "sleep " + secs + "; echo slept", "description": "sleep"},
		AfterTool: "Tool said: {result}",
	}
}

func TestContract(t *testing.T) {
	claudeBin(t)
	executortest.RunContract(t, executortest.Harness{
		New: func(t *testing.T) executor.Adapter {
			a := New(newRig(t, sleepRule("hold", "60"), fakeanthropic.Rule{Match: "hello", Text: "hi there"}).opts)
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				defer cancel()
				if err := a.Wait(ctx); err != nil {
					t.Errorf("children not reaped: %v", err)
				}
			})
			return a
		},
		Request: func(t *testing.T, scenario string) executor.StartRequest {
			if scenario == "hold" {
				return executor.StartRequest{Message: "hold on", WorkDir: t.TempDir()}
			}
			return executor.StartRequest{Message: "hello"}
		},
		Timeout:      60 * time.Second,
		OwnsChildren: true,
	})
}

// A plain turn: the session is reported, the text streams, the run's cost
// is the CLI's own USD (opus prices: 100 input and 20 output tokens are
// $0.001), and the key reached the API but no event.
func TestRealPlainTurn(t *testing.T) {
	rg := newRig(t, fakeanthropic.Rule{Match: "hello", Text: "Hello, person."})
	r := start(t, New(rg.opts), executor.StartRequest{Message: "hello", Context: "You are terse."})
	evs := collect(t, r, nil)
	CheckEvents(t, r.ID(), evs)
	if d := last(evs); d.Reason != executor.DoneSuccess || d.Summary != "Hello, person." {
		t.Fatalf("%v", briefs(evs))
	}
	if s := executortest.OfKind(evs, executor.KindStatus); len(s) == 0 || s[0].Session == "" || s[0].Phase != executor.PhaseInit {
		t.Fatalf("no session reported: %v", briefs(evs))
	}
	if tx := executortest.OfKind(evs, executor.KindTextDelta); len(tx) != 1 || tx[0].Text != "Hello, person." {
		t.Fatalf("text %v", briefs(tx))
	}
	c := executortest.OfKind(evs, executor.KindCost)
	if len(c) != 1 || c[0].CostUSD == nil || *c[0].CostUSD != 0.001 || c[0].Usage == nil || c[0].Usage.OutputTokens != 20 {
		t.Fatalf("cost %v", briefs(c))
	}
	reqs := rg.fake.Requests()
	if len(reqs) != 1 || reqs[0].APIKey != testKey || reqs[0].UserText != "You are terse.\n\nhello" {
		t.Fatalf("requests %+v", reqs)
	}
	noSecret(t, evs, testKey)
	waitReaped(t, r)
}

// Abort while a shell command runs: an interrupt, then done aborted, and
// nothing of the process group is left (the sleep included).
func TestRealAbortDuringToolCall(t *testing.T) {
	rg := newRig(t, sleepRule("sleepy", "60"))
	r := start(t, New(rg.opts), executor.StartRequest{Message: "sleepy time", WorkDir: t.TempDir()})
	pid := r.child.Pid()
	var aborted time.Time
	evs := collect(t, r, func(ev executor.Event) {
		if ev.Kind == executor.KindToolCall && aborted.IsZero() {
			time.Sleep(300 * time.Millisecond) // the command is running
			aborted = time.Now()
			_ = r.Abort(context.Background())
		}
	})
	CheckEvents(t, r.ID(), evs)
	if d := last(evs); d.Reason != executor.DoneAborted || aborted.IsZero() {
		t.Fatalf("%v", briefs(evs))
	}
	if el := time.Since(aborted); el > 10*time.Second {
		t.Fatalf("abort took %v", el)
	}
	res := executortest.OfKind(evs, executor.KindToolResult)
	if len(res) != 1 || !res[0].IsError {
		t.Fatalf("the interrupted call should close with an error result: %v", briefs(evs))
	}
	waitReaped(t, r)
	if err := syscall.Kill(-pid, 0); err == nil {
		t.Fatalf("process group %d still alive after abort", pid)
	}
	if st, _ := r.Steer(context.Background(), executor.Steer{Text: "late", Mode: executor.SteerNext}); st != executor.SteerRunEnded {
		t.Fatalf("steer after the end: %s", st)
	}
}

// Resume: the second run continues the first's session (the API sees the
// first message) in the same scratch folder, and reports only its own
// cost; a session the CLI cannot find starts afresh instead of failing.
func TestRealResume(t *testing.T) {
	rg := newRig(t, fakeanthropic.Rule{Match: "zebra", Text: "Noted."}, fakeanthropic.Rule{Match: "remember", Text: "Yes."})
	a := New(rg.opts)
	first := collect(t, start(t, a, executor.StartRequest{Message: "the word is zebra", SessionKey: "chat:1"}), nil)
	session := executortest.OfKind(first, executor.KindStatus)[0].Session
	second := collect(t, start(t, a, executor.StartRequest{Message: "do you remember", SessionKey: "chat:1", Resume: session}), nil)
	if d := last(second); d.Reason != executor.DoneSuccess || d.Summary != "Yes." {
		t.Fatalf("%v", briefs(second))
	}
	if s := executortest.OfKind(second, executor.KindStatus); len(s) == 0 || s[0].Session != session {
		t.Fatalf("resumed session %v, want %s", briefs(s), session)
	}
	reqs := rg.fake.Requests()
	if got := strings.Join(reqs[len(reqs)-1].UserTexts, "|"); got != "the word is zebra|do you remember" {
		t.Fatalf("the resumed request had %q", got)
	}
	if c := executortest.OfKind(second, executor.KindCost); len(c) != 1 || *c[0].CostUSD != 0.001 {
		t.Fatalf("resumed cost %v", briefs(c))
	}

	// The same session from another conversation's folder is not found.
	lost := collect(t, start(t, a, executor.StartRequest{Message: "do you remember", SessionKey: "chat:2", Resume: session}), nil)
	if d := last(lost); d.Reason != executor.DoneSuccess || d.Summary != "Yes." {
		t.Fatalf("%v", briefs(lost))
	}
	st := executortest.OfKind(lost, executor.KindStatus)
	if len(st) < 2 || !strings.Contains(st[0].Detail, "not found") || st[1].Session == "" || st[1].Session == session {
		t.Fatalf("lost session: %v", briefs(st))
	}
}

// A steer in mode next reaches the model inside the running turn, at the
// boundary after the tool call; a passive steer is a turn of its own
// after it, with its own cost. One run, one done.
func TestRealSteers(t *testing.T) {
	rg := newRig(t, sleepRule("sleepy", "2"), fakeanthropic.Rule{Match: "passive note", Text: "Read the note."})
	r := start(t, New(rg.opts), executor.StartRequest{Message: "sleepy time", WorkDir: t.TempDir()})
	steered := false
	evs := collect(t, r, func(ev executor.Event) {
		if ev.Kind != executor.KindToolCall || steered {
			return
		}
		steered = true
		for _, s := range []executor.Steer{{Text: "please steer", Mode: executor.SteerNext}, {Text: "a passive note", Mode: executor.SteerPassive}} {
			if st, err := r.Steer(context.Background(), s); st != executor.SteerQueued || err != nil {
				t.Errorf("steer %s: %s %v", s.Mode, st, err)
			}
		}
	})
	CheckEvents(t, r.ID(), evs)
	if d := last(evs); d.Reason != executor.DoneSuccess || d.Summary != "Read the note." {
		t.Fatalf("%v", briefs(evs))
	}
	var sawSteer bool
	for _, q := range rg.fake.Requests() {
		sawSteer = sawSteer || strings.Contains(strings.Join(q.System, "\n"), "please steer")
	}
	if !sawSteer {
		t.Fatalf("the next steer never reached the model: %+v", rg.fake.Requests())
	}
	if c := executortest.OfKind(evs, executor.KindCost); len(c) != 2 || *c[1].CostUSD != 0.001 {
		t.Fatalf("costs %v", briefs(c))
	}
	if st, _ := r.Steer(context.Background(), executor.Steer{Text: "x"}); st != executor.SteerRunEnded {
		t.Fatalf("steer after done: %s", st)
	}
}

// max_turns ends a turn that would loop for ever; an API error is a
// failed run with the CLI's message.
func TestRealMaxTurnsAndAPIError(t *testing.T) {
	rg := newRig(t,
		fakeanthropic.Rule{Match: "loop", Tool: "^Bash$", Input: map[string]any{"command": "echo again"}, Loop: true},
		fakeanthropic.Rule{Match: "fail", Error: &fakeanthropic.Failure{Status: 400, Type: "invalid_request_error", Message: "scripted failure"}})
	opts := rg.opts
	opts.MaxTurns = 2
	a := New(opts)
	evs := collect(t, start(t, a, executor.StartRequest{Message: "loop forever"}), nil)
	if d := last(evs); d.Reason != executor.DoneMaxTurns || !strings.Contains(d.Summary, "maximum number of turns (2)") {
		t.Fatalf("%v", briefs(evs))
	}
	if c := executortest.OfKind(evs, executor.KindCost); len(c) != 1 || *c[0].CostUSD != 0.002 {
		t.Fatalf("max_turns cost %v", briefs(c))
	}
	evs = collect(t, start(t, a, executor.StartRequest{Message: "please fail"}), nil)
	errs := executortest.OfKind(evs, executor.KindError)
	if d := last(evs); d.Reason != executor.DoneError || len(errs) != 1 || !errs[0].Fatal ||
		errs[0].Message != "API Error: 400 scripted failure" || len(executortest.OfKind(evs, executor.KindTextDelta)) != 0 {
		t.Fatalf("%v", briefs(evs))
	}
}

// The key and the MCP token never appear in events, not even when the
// agent prints its environment; the token is not on the command line.
func TestRealSecretsStayOut(t *testing.T) {
	const token = "mcp-token-sentinel-0123456789abcdef"
	rg := newRig(t, fakeanthropic.Rule{
		Match: "env", Tool: "^Bash$", Input: map[string]any{"command": "env; cat /proc/$PPID/cmdline"},
		AfterTool: "Here it is: {result}",
	})
	opts := rg.opts
	opts.MCP = func(context.Context, executor.StartRequest) (MCPServers, error) {
		return MCPServers{URLs: map[string]string{"clawboo-tasks": "http://127.0.0.1:9/mcp/tasks"}, Token: token}, nil
	}
	r := start(t, New(opts), executor.StartRequest{Message: "print env", WorkDir: t.TempDir()})
	// Start returns once execve began; the kernel fills the new program's
	// arguments a moment later (a loaded machine reads them empty first).
	var cmdline []byte
	testkit.Eventually(t, 10*time.Second, "the child's command line", func() bool {
		cmdline, _ = os.ReadFile(filepath.Join("/proc", strconv.Itoa(r.child.Pid()), "cmdline"))
		return len(cmdline) > 0
	})
	evs := collect(t, r, nil)
	if strings.Contains(string(cmdline), token) || !strings.Contains(string(cmdline), "${CLAWBOO_MCP_TOKEN}") {
		t.Fatalf("command line: %q", cmdline)
	}
	res := executortest.OfKind(evs, executor.KindToolResult)
	if len(res) != 1 || !strings.Contains(res[0].Output, "ANTHROPIC_API_KEY=[REDACTED]") || !strings.Contains(res[0].Output, "CLAWBOO_MCP_TOKEN=[REDACTED]") {
		t.Fatalf("tool result %v", briefs(res))
	}
	noSecret(t, evs, testKey, token)
	// Nothing listens on port 9: the run goes on and says so.
	if e := executortest.OfKind(evs, executor.KindError); len(e) != 1 || e[0].Fatal || e[0].Message != "MCP server clawboo-tasks: failed" {
		t.Fatalf("errors %v", briefs(e))
	}
	if strings.Contains(strings.Join(briefs(evs), "\n"), "ambient") {
		t.Fatal("the server's own key reached the child")
	}
}

// WriteContext puts a note in the working folder (nothing without one);
// SetModel is ignored.
func TestRealWriteContextAndSetModel(t *testing.T) {
	rg := newRig(t, sleepRule("sleepy", "60"))
	dir := t.TempDir()
	a := New(rg.opts)
	r := start(t, a, executor.StartRequest{Message: "sleepy time", WorkDir: dir})
	if err := r.WriteContext(context.Background(), "brief", "the note"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".clawboo", "context", "brief.md")); err != nil || string(b) != "the note" {
		t.Fatalf("%q %v", b, err)
	}
	for _, bad := range []string{"../x", "", "..", "a/b"} {
		if r.WriteContext(context.Background(), bad, "v") == nil {
			t.Errorf("key %q accepted", bad)
		}
	}
	if err := r.SetModel(context.Background(), "haiku"); err != nil {
		t.Fatal(err)
	}
	_ = r.Abort(context.Background())
	collect(t, r, nil)

	bare := start(t, a, executor.StartRequest{Message: "sleepy time"})
	if err := bare.WriteContext(context.Background(), "brief", "v"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bare.dir, ".clawboo")); !os.IsNotExist(err) {
		t.Fatalf("a run without a folder got a context file: %v", err)
	}
	_ = bare.Abort(context.Background())
	collect(t, bare, nil)
	waitReaped(t, bare)
	if _, err := os.Stat(bare.dir); !os.IsNotExist(err) {
		t.Fatalf("throwaway folder left: %v", err)
	}
}

func TestHealth(t *testing.T) {
	missing := New(Options{Binary: func() (string, bool) { return "", false }})
	if h := missing.Health(context.Background()); h.OK || h.Message != NotFound {
		t.Fatalf("%+v", h)
	}
	if _, err := missing.Start(context.Background(), executor.StartRequest{Emitter: executor.NewEmitter("x", 0)}); err == nil {
		t.Fatal("start without a program")
	}
	if h := New(Options{Binary: func() (string, bool) { return "/bin/true", true }}).Health(context.Background()); !h.OK {
		t.Fatalf("%+v", h)
	}
}
