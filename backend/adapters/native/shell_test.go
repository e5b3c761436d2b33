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
