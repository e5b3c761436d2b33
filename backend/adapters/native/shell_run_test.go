package native

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
)

func TestRunCommandAllowedShapes(t *testing.T) {
	skipWindows(t)
	// Not refused: these reach the person.
	for _, argv := range [][]string{
		{helperPath(t), helperArg, "echo", "git log -c", "-e"},
		{"git", "log", "-c"},
		{"git", "-C", "sub", "status"},
		{"find", ".", "-name", "*.go"},
	} {
		if _, err := exec.LookPath(argv[0]); err != nil && !filepath.IsAbs(argv[0]) {
			continue
		}
		a := &asker{answers: []AskOutcome{AskDenied}}
		s := newShell(t, a)
		o := s.call(context.Background(), json.RawMessage(argvJSON(argv...)))
		if a.count() != 1 || o.denied != deniedByPerson {
			t.Fatalf("%v: asks %d, outcome %+v", argv, a.count(), o)
		}
	}
}

func TestRunCommandAsksWithEverythingThenRuns(t *testing.T) {
	skipWindows(t)
	a := &asker{}
	e := shellEnv(t, a, []string{argvJSON(helperPath(t), helperArg, "mixed")}, nil)
	dir := t.TempDir()
	evs := executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{RunID: "run-ask", AgentID: "boo", TeamID: "team", SessionKey: "task:T9", Message: "go", WorkDir: dir}))
	if d := executortest.Done(t, evs); d.Reason != executor.DoneSuccess {
		t.Fatalf("done %+v", d)
	}
	if a.count() != 1 {
		t.Fatalf("%d asks", a.count())
	}
	r := a.reqs[0]
	if r.Folder != dir || r.AgentID != "boo" || r.TeamID != "team" || r.TaskID != "T9" || r.RunID != "run-ask" || r.Why != "to check" ||
		len(r.Argv) != 3 || r.Argv[2] != "mixed" || !strings.Contains(r.Command, "__shellhelper mixed") {
		t.Fatalf("ask %+v", r)
	}
	res := toolResults(evs)
	if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Output, "exit code 3") ||
		!strings.Contains(res[0].Output, "to stdout") || !strings.Contains(res[0].Output, "to stderr") {
		t.Fatalf("result %+v", res)
	}
	// The execution is on the timeline.
	var rec *commandRecord
	for _, ev := range executortest.OfKind(evs, executor.KindStatus) {
		if ev.Name == RunCommandTool {
			rec = &commandRecord{}
			if err := json.Unmarshal([]byte(ev.Detail), rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	if rec == nil || rec.Folder != dir || rec.Exit == nil || *rec.Exit != 3 || len(rec.Argv) != 3 || rec.OutputBytes != len("to stdout\nto stderr\n") || rec.DurationMS < 0 {
		t.Fatalf("timeline record %+v", rec)
	}
	// Success is not an error result.
	s := newShell(t, &asker{})
	o := s.call(context.Background(), json.RawMessage(argvJSON(helperPath(t), helperArg, "echo", "hi there")))
	if o.isErr || !strings.Contains(o.out, "exit code 0") || !strings.Contains(o.out, "hi there") {
		t.Fatalf("echo %+v", o)
	}
}

func TestRunCommandAskCeiling(t *testing.T) {
	skipWindows(t)
	a := &asker{}
	s := newShell(t, a)
	in := json.RawMessage(argvJSON(helperPath(t), helperArg, "echo", "x"))
	for i := 0; i < MaxCommandAsks; i++ {
		if o := s.call(context.Background(), in); o.isErr {
			t.Fatalf("ask %d: %+v", i+1, o)
		}
	}
	o := s.call(context.Background(), in)
	if o.denied != deniedCeiling || a.count() != MaxCommandAsks {
		t.Fatalf("11th: %+v after %d asks", o, a.count())
	}
}

func TestRunCommandRefusalLatches(t *testing.T) {
	skipWindows(t)
	a := &asker{answers: []AskOutcome{AskDenied}}
	in := argvJSON(helperPath(t), helperArg, "echo", "x")
	// refused, another tool in between (not a denial), then latched.
	e := shellEnv(t, a, []string{in, "", in}, nil)
	evs := executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "go", WorkDir: t.TempDir()}))
	if d := executortest.Done(t, evs); d.Reason != executor.DoneSuccess {
		t.Fatalf("done %+v", d)
	}
	res := toolResults(evs)
	if a.count() != 1 || len(res) != 2 || !strings.Contains(res[1].Output, "no longer available") {
		t.Fatalf("asks %d, results %+v", a.count(), res)
	}
}

func TestRunCommandSecondDenialTripsTheBreaker(t *testing.T) {
	skipWindows(t)
	a := &asker{answers: []AskOutcome{AskDenied}}
	in := argvJSON(helperPath(t), helperArg, "echo", "x")
	e := shellEnv(t, a, []string{in, in, in}, nil)
	evs := executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "go", WorkDir: t.TempDir()}))
	d := executortest.Done(t, evs)
	if d.Reason != executor.DoneError || !strings.Contains(d.Summary, "repeat-denial breaker") {
		t.Fatalf("done %+v", d)
	}
	if a.count() != 1 || len(toolResults(evs)) != 2 || len(e.prov.requests()) != 2 {
		t.Fatalf("asks %d, results %d, turns %d", a.count(), len(toolResults(evs)), len(e.prov.requests()))
	}
	if n := len(executortest.OfKind(evs, executor.KindError)); n < 3 { // two policy_denied, one fatal
		t.Fatalf("%d error events", n)
	}
}

func TestRunCommandExpiryLatchesButTakesTwoMoreAttempts(t *testing.T) {
	skipWindows(t)
	a := &asker{answers: []AskOutcome{AskExpired}}
	in := argvJSON(helperPath(t), helperArg, "echo", "x")
	e := shellEnv(t, a, []string{in, in, in, in}, nil)
	evs := executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "go", WorkDir: t.TempDir()}))
	d := executortest.Done(t, evs)
	if d.Reason != executor.DoneError || !strings.Contains(d.Summary, "repeat-denial breaker") {
		t.Fatalf("done %+v", d)
	}
	res := toolResults(evs)
	// expiry (no denial), latched (1st denial), latched (2nd: trips).
	if a.count() != 1 || len(res) != 3 || len(e.prov.requests()) != 3 {
		t.Fatalf("asks %d, results %d, turns %d", a.count(), len(res), len(e.prov.requests()))
	}
	if !strings.Contains(res[0].Output, "nobody answered") {
		t.Fatalf("expiry result %q", res[0].Output)
	}
}

func TestRunCommandOutputCap(t *testing.T) {
	skipWindows(t)
	s := newShell(t, &asker{})
	o := s.call(context.Background(), json.RawMessage(argvJSON(helperPath(t), helperArg, "flood", "200000")))
	if o.isErr || !strings.Contains(o.out, fmt.Sprintf("[output capped at %d bytes", CommandOutputCap)) {
		t.Fatalf("outcome %.300q", o.out)
	}
	if n := strings.Count(o.out, "x"); n > CommandOutputCap || n < CommandOutputCap-1000 {
		t.Fatalf("%d bytes of output kept", n)
	}
}

func gone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] == "Z" // a zombie nobody reaped yet
}

func waitPid(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(file); err == nil {
			n, _ := strconv.Atoi(string(b))
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the command never started its grandchild")
	return 0
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still alive", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunCommandTimeLimitKillsTheGroup(t *testing.T) {
	skipWindows(t)
	s := newShell(t, &asker{})
	s.timeout, s.grace = 700*time.Millisecond, 300*time.Millisecond
	pidFile := filepath.Join(s.dir, "gc.pid")
	start := time.Now()
	o := s.call(context.Background(), json.RawMessage(argvJSON(helperPath(t), helperArg, "spawn", pidFile)))
	if time.Since(start) > 8*time.Second {
		t.Fatalf("took %s", time.Since(start))
	}
	if !o.isErr || !strings.Contains(o.out, "exit code unknown (killed by SIG") || !strings.Contains(o.out, "time limit") || !strings.Contains(o.out, "spawned") {
		t.Fatalf("outcome %+v", o)
	}
	waitGone(t, waitPid(t, pidFile))
}

func TestRunCommandAbortKillsTheCommand(t *testing.T) {
	skipWindows(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "gc.pid")
	e := shellEnv(t, &asker{}, []string{argvJSON(helperPath(t), helperArg, "spawn", pidFile)}, nil)
	r := e.start(executor.StartRequest{Message: "go", WorkDir: dir})
	pid := waitPid(t, pidFile)
	start := time.Now()
	if err := r.Abort(context.Background()); err != nil {
		t.Fatal(err)
	}
	evs := executortest.CollectWithin(t, 20*time.Second, r)
	if d := executortest.Done(t, evs); d.Reason != executor.DoneAborted {
		t.Fatalf("done %+v", d)
	}
	if time.Since(start) > 8*time.Second {
		t.Fatalf("abort took %s", time.Since(start))
	}
	res := toolResults(evs)
	if len(res) != 1 || !strings.Contains(res[0].Output, "run was aborted") {
		t.Fatalf("results %+v", res)
	}
	waitGone(t, pid)
}

func TestRunCommandEnvironmentHasNoProviderKeys(t *testing.T) {
	skipWindows(t)
	printenv, err := exec.LookPath("printenv")
	if err != nil {
		t.Skip("no printenv")
	}
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-sentinel-123")
	t.Setenv("OPENAI_API_KEY", "sk-openai-sentinel-456")
	t.Setenv("LANG", "C.UTF-8")
	s := newShell(t, &asker{})
	o := s.call(context.Background(), json.RawMessage(argvJSON("printenv")))
	if o.isErr || strings.Contains(o.out, "sentinel") || strings.Contains(o.out, "API_KEY") {
		t.Fatalf("printenv (%s): %s", printenv, o.out)
	}
	if !strings.Contains(o.out, "PATH=") || !strings.Contains(o.out, "LANG=C.UTF-8") {
		t.Fatalf("allowlisted names missing: %s", o.out)
	}
}

// blockingAsker waits for the run to stop, as a card nobody answers does.
type blockingAsker struct{ asked chan struct{} }

func (b *blockingAsker) ask(ctx context.Context, _ AskRequest) (AskAnswer, error) {
	close(b.asked)
	<-ctx.Done()
	return AskAnswer{Outcome: AskExpired}, nil
}

func TestRunCommandAbortWhileAsking(t *testing.T) {
	skipWindows(t)
	b := &blockingAsker{asked: make(chan struct{})}
	e := shellEnv(t, &asker{}, []string{argvJSON(helperPath(t), helperArg, "echo", "x")}, func(o *Options) { o.Ask = b.ask })
	r := e.start(executor.StartRequest{Message: "go", WorkDir: t.TempDir()})
	select {
	case <-b.asked:
	case <-time.After(10 * time.Second):
		t.Fatal("never asked")
	}
	_ = r.Abort(context.Background())
	evs := executortest.CollectWithin(t, 20*time.Second, r)
	if d := executortest.Done(t, evs); d.Reason != executor.DoneAborted {
		t.Fatalf("done %+v", d)
	}
	if res := toolResults(evs); len(res) != 1 || !strings.Contains(res[0].Output, "aborted") {
		t.Fatalf("results %+v", res)
	}
}
