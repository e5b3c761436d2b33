package native

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/backend/llm"
)

// The test binary doubles as the command run_command runs: argv[0] is its
// absolute path and argv[1] helperArg (sh and friends are denied, so the
// tests cannot lean on a shell).
const helperArg = "__shellhelper"

func shellHelper(args []string) {
	// syscall.Exit, not os.Exit: the race runtime's exit hook sleeps a
	// second on every exit.
	if len(args) == 0 {
		syscall.Exit(2)
	}
	switch args[0] {
	case "echo":
		fmt.Println(strings.Join(args[1:], " "))
	case "mixed": // stdout and stderr, then a non-zero exit
		fmt.Println("to stdout")
		fmt.Fprintln(os.Stderr, "to stderr")
		syscall.Exit(3)
	case "flood": // n bytes of output in 1000-byte lines
		n, _ := strconv.Atoi(args[1])
		line := strings.Repeat("x", 999) + "\n"
		for ; n > 0; n -= 1000 {
			fmt.Print(line)
		}
	case "spawn": // a grandchild in the same group; its pid goes to a file
		gc := exec.Command(os.Args[0], helperArg, "sleep")
		if err := gc.Start(); err != nil {
			syscall.Exit(4)
		}
		_ = os.WriteFile(args[1]+".tmp", []byte(strconv.Itoa(gc.Process.Pid)), 0o644)
		_ = os.Rename(args[1]+".tmp", args[1])
		fmt.Println("spawned", gc.Process.Pid)
		time.Sleep(time.Hour)
	case "sleep":
		time.Sleep(time.Hour)
	}
	syscall.Exit(0)
}

func helperPath(t *testing.T) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil || !filepath.IsAbs(p) {
		t.Skipf("no absolute test binary path: %v", err)
	}
	return p
}

func skipWindows(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("run_command does not exist on Windows")
	}
}

// asker is a scripted person.
type asker struct {
	mu      sync.Mutex
	reqs    []AskRequest
	answers []AskOutcome // by ask; past the end: allowed
}

func (a *asker) ask(ctx context.Context, r AskRequest) (AskAnswer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs = append(a.reqs, r)
	out := AskAllowed
	if i := len(a.reqs) - 1; i < len(a.answers) {
		out = a.answers[i]
	}
	return AskAnswer{Outcome: out}, nil
}

func (a *asker) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.reqs)
}

func on() *bool { b := true; return &b }

func argvJSON(argv ...string) string {
	b, _ := json.Marshal(map[string]any{"argv": argv, "why": "to check"})
	return string(b)
}

// newShell is one run's run_command, called directly.
func newShell(t *testing.T, a *asker) *shellTool {
	return &shellTool{
		dir: t.TempDir(), ask: a.ask, timeout: CommandTimeout, grace: CommandGrace, environ: func() []string { return commandEnv(nil) },
		info: AskRequest{AgentID: "agent-1", RunID: "run-1"},
	}
}

// shellEnv is an adapter whose model calls run_command with each input in
// turn (a nil entry calls list_files instead), then answers "done".
func shellEnv(t *testing.T, a *asker, inputs []string, tweak func(*Options)) *env {
	e := newEnv(t, func(n int, _ llm.Request) reply {
		if n <= len(inputs) {
			if inputs[n-1] == "" {
				return callTool(fmt.Sprintf("c%d", n), "list_files", `{}`, 10, 1)
			}
			return callTool(fmt.Sprintf("c%d", n), RunCommandTool, inputs[n-1], 10, 1)
		}
		return say("done", 10, 1)
	})
	e.cfg.Tools.Shell = on()
	e.cfg.MaxTurns = 40
	e.opts.Ask = a.ask
	if tweak != nil {
		tweak(&e.opts)
	}
	e.adapt = New(e.opts)
	return e
}

func toolResults(evs []executor.Event) []executor.Event {
	var out []executor.Event
	for _, ev := range executortest.OfKind(evs, executor.KindToolResult) {
		if ev.Name == RunCommandTool {
			out = append(out, ev)
		}
	}
	return out
}

func hasTool(req llm.Request, name string) bool { return toolNames(req.Tools)[name] }

func TestRunCommandPreconditions(t *testing.T) {
	skipWindows(t)
	off := false
	cases := []struct {
		name    string
		shell   *bool
		workDir bool
		ask     bool
		want    bool
	}{
		{"all met", on(), true, true, true},
		{"switch absent", nil, true, true, false},
		{"switch off", &off, true, true, false},
		{"no working folder", on(), false, true, false},
		{"no approvals queue", on(), true, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, func(int, llm.Request) reply { return say("done", 1, 1) })
			e.cfg.Tools.Shell = c.shell
			if c.ask {
				e.opts.Ask = (&asker{}).ask
			}
			e.adapt = New(e.opts)
			req := executor.StartRequest{Message: "go"}
			if c.workDir {
				req.WorkDir = t.TempDir()
			}
			executortest.CollectWithin(t, 20*time.Second, e.start(req))
			if got := hasTool(e.prov.requests()[0], RunCommandTool); got != c.want {
				t.Fatalf("run_command offered = %v, want %v (tools %v)", got, c.want, toolNames(e.prov.requests()[0].Tools))
			}
		})
	}
	// The Windows precondition is a constant of the build.
	if !shellAvailable(AgentConfig{Tools: ToolSwitches{Shell: on()}}, "/w", (&asker{}).ask) {
		t.Fatal("unavailable on a unix host")
	}
	if DefaultConfig().Tools.Shell != nil {
		t.Fatal("the default config carries a shell switch")
	}
}

func TestRunCommandRefusedBeforeAsking(t *testing.T) {
	skipWindows(t)
	dir := t.TempDir()
	script := func(name, first string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(first+"\necho hi\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	shScript := script("a.sh", "#!/bin/sh")
	envScript := script("b", "#!/usr/bin/env bash")
	envSScript := script("c", "#!/usr/bin/env -S python3 -c 'print(1)'")
	link := filepath.Join(dir, "innocent")
	if sh, err := exec.LookPath("sh"); err == nil {
		real, _ := filepath.EvalSymlinks(sh)
		_ = os.Symlink(real, link)
	}
	many := make([]string, MaxArgv+1)
	for i := range many {
		many[i] = "x"
	}
	many[0] = "ls"
	cases := []struct {
		name  string
		input string
		code  string
	}{
		{"not an array", `{"argv":"ls -la"}`, deniedInvalid},
		{"empty", argvJSON(), deniedInvalid},
		{"too many items", argvJSON(many...), deniedInvalid},
		{"item too long", argvJSON("ls", strings.Repeat("a", MaxArgBytes+1)), deniedInvalid},
		{"NUL", argvJSON("ls", "a\x00b"), deniedInvalid},
		{"newline", argvJSON("ls", "a\nb"), deniedInvalid},
		{"DEL", argvJSON("ls\x7f"), deniedInvalid},
		{"C1 control", argvJSON("ls", "a\u0085"), deniedInvalid},
		{"relative path", argvJSON("./tool"), deniedInvalid},
		{"relative nested path", argvJSON("bin/ls"), deniedInvalid},
		{"sh", argvJSON("sh", "x"), deniedListed},
		{"absolute bash", argvJSON("/bin/bash"), deniedListed},
		{"zsh", argvJSON("zsh"), deniedListed},
		{"fish", argvJSON("fish"), deniedListed},
		{"python -c", argvJSON("python3", "-c", "print(1)"), deniedListed},
		{"python3.12 -Ic", argvJSON("python3.12", "-Ic", "print(1)"), deniedListed},
		{"node -e", argvJSON("node", "-e", "1"), deniedListed},
		{"node --eval=", argvJSON("node", "--eval=1"), deniedListed},
		{"node -p", argvJSON("node", "-p", "1"), deniedListed},
		{"perl -ne", argvJSON("perl", "-ne", "print"), deniedListed},
		{"perl -E", argvJSON("perl", "-E", "say 1"), deniedListed},
		{"ruby -e", argvJSON("ruby", "-e", "1"), deniedListed},
		{"php -r", argvJSON("php", "-r", "echo 1;"), deniedListed},
		{"deno eval", argvJSON("deno", "eval", "1"), deniedListed},
		{"bun -e", argvJSON("bun", "-e", "1"), deniedListed},
		{"awk", argvJSON("awk", "{print}"), deniedListed},
		{"sudo", argvJSON("sudo", "ls"), deniedListed},
		{"su", argvJSON("su"), deniedListed},
		{"doas", argvJSON("doas", "ls"), deniedListed},
		{"pkexec", argvJSON("pkexec", "ls"), deniedListed},
		{"chroot", argvJSON("chroot", "/", "ls"), deniedListed},
		{"unshare", argvJSON("unshare", "ls"), deniedListed},
		{"env", argvJSON("env", "ls"), deniedListed},
		{"xargs", argvJSON("xargs", "rm"), deniedListed},
		{"nohup", argvJSON("nohup", "ls"), deniedListed},
		{"setsid", argvJSON("setsid", "ls"), deniedListed},
		{"timeout", argvJSON("timeout", "5", "ls"), deniedListed},
		{"nice", argvJSON("nice", "ls"), deniedListed},
		{"stdbuf", argvJSON("stdbuf", "-o0", "ls"), deniedListed},
		{"find -exec", argvJSON("find", ".", "-exec", "rm", "{}", ";"), deniedListed},
		{"find -execdir", argvJSON("find", ".", "-execdir", "ls", ";"), deniedListed},
		{"find -ok", argvJSON("find", ".", "-ok", "rm", "{}", ";"), deniedListed},
		{"git -c core", argvJSON("git", "-c", "core.pager=sh", "log"), deniedListed},
		{"git -c attached", argvJSON("git", "-calias.x=!sh", "x"), deniedListed},
		{"git --upload-pack", argvJSON("git", "clone", "--upload-pack=touch /tmp/x", "r"), deniedListed},
		{"git --config-env", argvJSON("git", "--config-env=core.pager=X", "log"), deniedListed},
		{"shebang sh", argvJSON(shScript), deniedListed},
		{"shebang env bash", argvJSON(envScript), deniedListed},
		{"shebang env -S python -c", argvJSON(envSScript), deniedListed},
	}
	if _, err := os.Lstat(link); err == nil {
		cases = append(cases, struct{ name, input, code string }{"symlink to a shell", argvJSON(link), deniedListed})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := &asker{}
			s := newShell(t, a)
			o := s.call(context.Background(), json.RawMessage(c.input))
			if o.denied != c.code || !o.isErr {
				t.Fatalf("outcome %+v, want denied %q", o, c.code)
			}
			if a.count() != 0 {
				t.Fatal("a refused command was asked")
			}
		})
	}
}

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

func TestQuoteArgv(t *testing.T) {
	if got := quoteArgv([]string{"git", "commit", "-m", "it's done", "a b"}); got != `git commit -m 'it'\''s done' 'a b'` {
		t.Fatalf("%s", got)
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
