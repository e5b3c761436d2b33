package mock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func harness() executortest.Harness {
	return executortest.Harness{
		New: func(*testing.T) executor.Adapter { return New() },
		Request: func(_ *testing.T, scenario string) executor.StartRequest {
			if scenario == "hold" {
				return executor.StartRequest{Message: "!abort"}
			}
			return executor.StartRequest{Message: "!ok hello\n!loop 2"}
		},
		Timeout: 10 * time.Second,
	}
}

func TestContract(t *testing.T) { executortest.RunContract(t, harness()) }

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want []Directive
	}{
		{"", nil},
		{"hello world", nil},
		{"!ok", []Directive{{"ok", ""}}},
		{"!ok   some text  ", []Directive{{"ok", "some text"}}},
		{"  \t!silent 20\r\nprose !ok not at start\n!toolcall", []Directive{{"silent", "20"}, {"toolcall", ""}}},
		{strings.Repeat(" ", 16) + "!ok deep", []Directive{{"ok", "deep"}}},
		{strings.Repeat(" ", 17) + "!ok too deep", nil},
		{"!", nil},
		{"! ok", nil},
		{"!ok,then", []Directive{{"ok", ",then"}}},
		{"!unknown_word 5", []Directive{{"unknown_word", "5"}}},
		{"!" + strings.Repeat("a", 40), []Directive{{strings.Repeat("a", 32), strings.Repeat("a", 8)}}},
	}
	for _, tc := range cases {
		got := Parse(tc.in)
		if len(got) != len(tc.want) {
			t.Fatalf("%q: got %+v want %+v", tc.in, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("%q: got %+v want %+v", tc.in, got, tc.want)
			}
		}
	}
}

func TestParseIsLinearOnHostileInput(t *testing.T) {
	hostile := strings.Repeat(" \t!"+strings.Repeat("a", 31)+" ", 200_000)
	start := time.Now()
	Parse(hostile + "\n" + hostile)
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("parse took %v", el)
	}
}

func TestArgClamps(t *testing.T) {
	if d := delayArg("", time.Second); d != time.Second {
		t.Fatal(d)
	}
	if d := delayArg("soon", time.Second); d != time.Second {
		t.Fatal(d)
	}
	if d := delayArg("-5", time.Second); d != 0 {
		t.Fatal(d)
	}
	if d := delayArg("99999999999999", time.Second); d != MaxDelay {
		t.Fatal(d)
	}
	if d := delayArg("250 ms please", time.Second); d != 250*time.Millisecond {
		t.Fatal(d)
	}
	if n := countArg("999", DefaultLoop, MaxLoop); n != MaxLoop {
		t.Fatal(n)
	}
	if n := countArg("x", DefaultLoop, MaxLoop); n != DefaultLoop {
		t.Fatal(n)
	}
	if n := countArg("-1", DefaultLoop, MaxLoop); n != 0 {
		t.Fatal(n)
	}
	if n := countArg("2000000", DefaultFlood, MaxFlood); n != MaxFlood {
		t.Fatal(n)
	}
}

// play starts a mock run and collects its events.
func play(t *testing.T, msg, ctxText string) ([]executor.Event, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	em := executor.NewEmitter("r", 0)
	run, err := New().Start(ctx, executor.StartRequest{RunID: "r", Message: msg, Context: ctxText, Emitter: em})
	if err != nil {
		t.Fatal(err)
	}
	evs := executortest.Collect(t, ctx, run)
	return evs, len(evs) > 0 && evs[len(evs)-1].Kind == executor.KindDone
}

func TestNoDirective(t *testing.T) {
	evs, ok := play(t, "please fix the bug", "")
	if !ok || evs[len(evs)-1].Reason != executor.DoneSuccess || evs[len(evs)-1].Summary != "mock run complete" {
		t.Fatalf("got %+v", evs)
	}
}

func TestOkJoinsSummaryFromMessageAndContext(t *testing.T) {
	evs, ok := play(t, "!ok first\n!ok", "  !ok from context")
	if !ok {
		t.Fatal("no done")
	}
	if executortest.Kinds(evs) != "status/init text-delta/assistant text-delta/assistant text-delta/assistant done/success" {
		t.Fatal(executortest.Kinds(evs))
	}
	if got := evs[len(evs)-1].Summary; got != "first\nok\nfrom context" {
		t.Fatalf("summary %q", got)
	}
}

func TestSilentDelays(t *testing.T) {
	start := time.Now()
	_, ok := play(t, "!silent 150\n!ok", "")
	if el := time.Since(start); !ok || el < 150*time.Millisecond {
		t.Fatalf("silent lasted %v", el)
	}
}

func TestToolcallHasNoResult(t *testing.T) {
	evs, ok := play(t, "!toolcall\n!toolcall deploy", "")
	if !ok || executortest.Kinds(evs) != "status/init tool-call tool-call done/success" {
		t.Fatal(executortest.Kinds(evs))
	}
	if evs[1].Name != "build" || evs[2].Name != "deploy" || string(evs[1].Input) != "{}" {
		t.Fatalf("%+v", evs)
	}
}

func TestErrorEndsWithoutDone(t *testing.T) {
	evs, ok := play(t, "!error disk on fire\n!ok never", "")
	if ok {
		t.Fatal("!error must end the stream without done")
	}
	last := evs[len(evs)-1]
	if last.Kind != executor.KindError || !last.Fatal || last.Code != "mock" || last.Message != "disk on fire" {
		t.Fatalf("%+v", last)
	}
}

func TestLoopPairs(t *testing.T) {
	evs, _ := play(t, "!loop", "")
	if executortest.Kinds(evs) != "status/init tool-call tool-result tool-call tool-result tool-call tool-result done/success" {
		t.Fatal(executortest.Kinds(evs))
	}
	if evs[1].ToolCallID != evs[2].ToolCallID || evs[1].ToolCallID == evs[3].ToolCallID {
		t.Fatal("call/result ids must pair")
	}
	evs, _ = play(t, "!loop 500", "")
	if len(evs) != 2+2*MaxLoop {
		t.Fatalf("loop not capped: %d", len(evs))
	}
}

func TestCrashFailsTheRun(t *testing.T) {
	evs, ok := play(t, "!ok a\n!crash", "")
	if !ok {
		t.Fatal("a crash must still end in done (the emitter recovers)")
	}
	last := evs[len(evs)-1]
	if last.Reason != executor.DoneError || !strings.Contains(last.Summary, "runtime crashed") {
		t.Fatalf("%+v", last)
	}
}

func TestFlood(t *testing.T) {
	evs, ok := play(t, "!flood 20000", "")
	if !ok || len(evs) != 20002 {
		t.Fatalf("got %d events", len(evs))
	}
}

func TestSlowStart(t *testing.T) {
	start := time.Now()
	_, ok := play(t, "!slowstart 120", "")
	if el := time.Since(start); !ok || el < 120*time.Millisecond {
		t.Fatalf("slowstart lasted %v", el)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err := New().Start(ctx, executor.StartRequest{RunID: "r", Message: "!slowstart 5000", Emitter: executor.NewEmitter("r", 0)})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled slow start: %v", err)
	}
}

func TestAbortDuringSilence(t *testing.T) {
	ctx := context.Background()
	em := executor.NewEmitter("r", 0)
	run, err := New().Start(ctx, executor.StartRequest{RunID: "r", Message: "!ok hi\n!silent 600000", Emitter: em})
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(30*time.Millisecond, func() { _ = run.Abort(ctx) })
	evs := executortest.CheckStream(t, "r", executortest.Collect(t, ctxWithin(t), run))
	if evs.Reason != executor.DoneAborted || evs.Summary != "hi" {
		t.Fatalf("%+v", evs)
	}
}

func TestCancelledContextStopsAbortDirective(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	em := executor.NewEmitter("r", 0)
	run, err := New().Start(ctx, executor.StartRequest{RunID: "r", Message: "!abort", Emitter: em})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	done := executortest.CheckStream(t, "r", executortest.Collect(t, ctxWithin(t), run))
	if done.Reason != executor.DoneAborted {
		t.Fatalf("%+v", done)
	}
}

func ctxWithin(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestCostDirectives(t *testing.T) {
	evs, ok := play(t, "!cost 0.25 claude-sonnet-4\n!usage 1000 500 gpt-4o\n!localcost 10 20 llama3\n!cost nonsense", "")
	if !ok || executortest.Kinds(evs) != "status/init cost cost cost cost done/success" {
		t.Fatal(executortest.Kinds(evs))
	}
	if c := evs[1]; *c.CostUSD != 0.25 || c.Model != "claude-sonnet-4" || c.Usage != nil {
		t.Fatalf("%+v", c)
	}
	if c := evs[2]; c.CostUSD != nil || c.Usage.InputTokens != 1000 || c.Usage.OutputTokens != 500 || c.Model != "gpt-4o" {
		t.Fatalf("%+v", c)
	}
	if c := evs[3]; !c.Local || *c.CostUSD != 0 || c.Usage.OutputTokens != 20 {
		t.Fatalf("%+v", c)
	}
	if c := evs[4]; c.CostUSD != nil || c.Usage != nil {
		t.Fatalf("a malformed !cost must carry nothing: %+v", c)
	}
}

func TestWriteStaysInTheWorkingFolder(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	em := executor.NewEmitter("r", 0)
	run, err := NewWithWorktrees().Start(ctx, executor.StartRequest{
		RunID: "r", WorkDir: dir, Emitter: em,
		Message: "!write notes/hello.txt hello world\n!write ../escape.txt no\n!write /etc/x no",
	})
	if err != nil {
		t.Fatal(err)
	}
	evs := executortest.Collect(t, ctxWithin(t), run)
	b, err := os.ReadFile(filepath.Join(dir, "notes", "hello.txt"))
	if err != nil || string(b) != "hello world\n" {
		t.Fatalf("%q %v", b, err)
	}
	var results []executor.Event
	for _, e := range evs {
		if e.Kind == executor.KindToolResult {
			results = append(results, e)
		}
	}
	if len(results) != 3 || results[0].IsError || !results[1].IsError || !results[2].IsError {
		t.Fatalf("%+v", results)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.txt")); err == nil {
		t.Fatal("wrote outside the working folder")
	}
	// Without a working folder the tool fails, the run does not.
	evs, ok := play(t, "!write a.txt x", "")
	if !ok || evs[2].Kind != executor.KindToolResult || !evs[2].IsError {
		t.Fatalf("%+v", evs)
	}
}

// A committed symlink must not carry !write out of the worktree, and no
// !write may touch git's metadata (the worktree's .git link, or a .git
// folder anywhere): a forged git dir would make the server's own git add
// run the forger's filter.
func TestWriteRefusesSymlinkEscapeAndGitMetadata(t *testing.T) {
	outside := t.TempDir()
	dir := t.TempDir()
	link := "gitdir: /repo/.git/worktrees/t\n"
	if err := os.WriteFile(filepath.Join(dir, ".git"), []byte(link), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	em := executor.NewEmitter("r", 0)
	run, err := NewWithWorktrees().Start(context.Background(), executor.StartRequest{
		RunID: "r", WorkDir: dir, Emitter: em,
		Message: "!write out/pwned.txt x\n!write .git gitdir: " + outside + "\n!write forged/.git/config [filter \"x\"]\n!write .GIT/config x",
	})
	if err != nil {
		t.Fatal(err)
	}
	evs := executortest.Collect(t, ctxWithin(t), run)
	var results []executor.Event
	for _, e := range evs {
		if e.Kind == executor.KindToolResult {
			results = append(results, e)
		}
	}
	if len(results) != 4 {
		t.Fatalf("%+v", results)
	}
	for i, r := range results {
		if !r.IsError {
			t.Errorf("write %d succeeded: %+v", i, r)
		}
	}
	if !strings.Contains(results[1].Text+results[1].Output, "git metadata") {
		t.Errorf("the refusal does not say why: %+v", results[1])
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("wrote outside the worktree through a symlink: %v", ents)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".git")); string(b) != link {
		t.Fatalf(".git was rewritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "forged")); err == nil {
		t.Fatal("a forged .git folder was created")
	}
}
