//go:build unix

package claudecode

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
)

// fakeClaude is a claude that misbehaves in one way (FAKE_CLAUDE); it
// speaks just enough stream-json for the fault to be the only thing
// wrong.
func fakeClaude(role string) {
	if role == "instant" {
		instantClaude()
		os.Exit(0)
	}
	out := bufio.NewWriter(os.Stdout)
	line := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	in.Scan() // the run's message
	init := map[string]any{"type": "system", "subtype": "init", "session_id": "fake-session", "model": "fake-model"}
	result := func(total float64) map[string]any {
		return map[string]any{
			"type": "result", "subtype": "success", "is_error": false, "num_turns": 1,
			"result": "flood done", "session_id": "fake-session", "total_cost_usd": total,
		}
	}
	text := func(s string) map[string]any {
		return map[string]any{"type": "assistant", "message": map[string]any{
			"model":   "fake-model",
			"content": []any{map[string]any{"type": "text", "text": s}},
		}}
	}
	switch role {
	case "crash":
		line(init)
		fmt.Fprintln(os.Stderr, "boom: the fake CLI broke")
		os.Exit(3)
	case "noresult":
		line(init)
		line(text("half an answer"))
		os.Exit(0)
	case "hang": // ignores SIGTERM and stdin, as a wedged CLI might
		signal.Ignore(syscall.SIGTERM)
		line(init)
		time.Sleep(time.Hour)
	case "flood":
		line(init)
		for i := 0; i < 20000; i++ {
			line(text("flood line"))
		}
		huge := strings.Repeat("x", 3<<20)
		// The real CLI writes "type" first; the cut lines keep only that
		// start.
		type msg struct {
			Type    string         `json:"type"`
			Message map[string]any `json:"message"`
		}
		type toolUse struct {
			Type  string         `json:"type"`
			ID    string         `json:"id"`
			Name  string         `json:"name"`
			Input map[string]any `json:"input"`
		}
		line(msg{"assistant", map[string]any{"model": "fake-model", "content": []any{
			toolUse{"tool_use", "toolu_huge", "Write", map[string]any{"content": huge}},
		}}})
		type toolResult struct {
			ToolUseID string `json:"tool_use_id"`
			Type      string `json:"type"`
			Content   string `json:"content"`
		}
		line(msg{"user", map[string]any{"role": "user", "content": []any{toolResult{"toolu_huge", "tool_result", huge}}}})
		line(result(0.5))
		for in.Scan() {
		}
	case "env": // reports its arguments and environment as the result
		line(init)
		r := result(0)
		r["result"] = strings.Join(os.Args[1:], "\n") + "\n---\n" + strings.Join(os.Environ(), "\n")
		line(r)
		for in.Scan() {
		}
	}
	os.Exit(0)
}

// faultAdapter runs the test binary as claude in role.
func faultAdapter(t *testing.T, role string, opts Options) *Adapter {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	opts.Binary = func() (string, bool) { return self, true }
	if opts.Env == nil {
		opts.Env = map[string]string{}
	}
	opts.Env["FAKE_CLAUDE"] = role
	if opts.ScratchDir == "" {
		opts.ScratchDir = t.TempDir()
	}
	if opts.AbortGrace == 0 {
		opts.AbortGrace = 300 * time.Millisecond
	}
	// FAKE_CLAUDE is not on the allowlist: pass it as the host would a
	// runtime's own setting.
	return New(opts)
}

// A child that exits without a result is a failed run that says so, with
// what it wrote on stderr.
func TestCrashWithoutResultFails(t *testing.T) {
	for role, want := range map[string]string{
		"crash":    "runtime ended without a result (claude exit status 3): boom: the fake CLI broke",
		"noresult": "runtime ended without a result (claude exit status 0)",
	} {
		r := start(t, faultAdapter(t, role, Options{}), executor.StartRequest{Message: "hi"})
		evs := collect(t, r, nil)
		CheckEvents(t, r.ID(), evs)
		d := last(evs)
		errs := executortest.OfKind(evs, executor.KindError)
		if d.Reason != executor.DoneError || d.Summary != want || len(errs) != 1 || !errs[0].Fatal {
			t.Fatalf("%s: %v", role, briefs(evs))
		}
		waitReaped(t, r)
	}
}

// A child that ignores SIGTERM and never answers is aborted anyway: the
// interrupt goes unanswered, the group is stopped, SIGKILL follows.
func TestHungChildIsKilledOnAbort(t *testing.T) {
	r := start(t, faultAdapter(t, "hang", Options{}), executor.StartRequest{Message: "hi"})
	pid := r.child.Pid()
	evs := collect(t, r, func(ev executor.Event) {
		if ev.Kind == executor.KindStatus && ev.Session != "" {
			_ = r.Abort(context.Background())
		}
	})
	if d := last(evs); d.Reason != executor.DoneAborted {
		t.Fatalf("%v", briefs(evs))
	}
	waitReaped(t, r)
	if err := syscall.Kill(-pid, 0); err == nil {
		t.Fatalf("process group %d still alive", pid)
	}
}

// A flood of lines and lines far over the bound: every line is read, the
// huge ones are cut (the call and result still pair up), and memory stays
// bounded by the line limit.
func TestFloodIsBounded(t *testing.T) {
	r := start(t, faultAdapter(t, "flood", Options{MaxLine: 64 << 10}), executor.StartRequest{Message: "hi"})
	evs := collect(t, r, nil)
	if d := last(evs); d.Reason != executor.DoneSuccess || d.Summary != "flood done" {
		t.Fatalf("%v", briefs(evs[len(evs)-3:]))
	}
	if n := len(executortest.OfKind(evs, executor.KindTextDelta)); n != 20000 {
		t.Fatalf("%d text events", n)
	}
	calls, results := executortest.OfKind(evs, executor.KindToolCall), executortest.OfKind(evs, executor.KindToolResult)
	if len(calls) != 1 || len(results) != 1 || results[0].Name != "Write" || !strings.Contains(results[0].Output, "too large") {
		t.Fatalf("calls %v results %v", briefs(calls), briefs(results))
	}
	if c := executortest.OfKind(evs, executor.KindCost); len(c) != 1 || *c[0].CostUSD != 0.5 {
		t.Fatalf("cost %v", briefs(c))
	}
	waitReaped(t, r)
}

// The child's environment is the allowlist plus what the run resolved:
// the key from Key (never the server's ambient one), the MCP token, and
// IS_SANDBOX as root; the token is named in --mcp-config, never written.
func TestChildArgsAndEnvironment(t *testing.T) {
	const token = "mcp-token-sentinel-abcdefgh"
	a := faultAdapter(t, "env", Options{
		Key: func(context.Context) string { return testKey },
		MCP: func(context.Context, executor.StartRequest) (MCPServers, error) {
			return MCPServers{URLs: map[string]string{"clawboo-tasks": "http://127.0.0.1:9/mcp/tasks"}, Token: token}, nil
		},
		Environ: func() []string {
			return []string{"PATH=/usr/bin:/bin", "ANTHROPIC_API_KEY=sk-ant-ambient-never-0000000000", "SECRET_THING=x", "CLAUDE_CONFIG_DIR=/c", "CLAUDE_CODE_OAUTH_TOKEN=tok"}
		},
		MaxTurns: 7,
	})
	r := start(t, a, executor.StartRequest{Message: "hi", Model: "sonnet"})
	evs := collect(t, r, nil)
	got := last(evs).Summary
	args, env, _ := strings.Cut(got, "\n---\n")
	for _, want := range []string{
		"--permission-mode\nbypassPermissions", "--model\nsonnet", "--max-turns\n7",
		"--input-format\nstream-json", `"Authorization":"Bearer ${CLAWBOO_MCP_TOKEN}"`, `"url":"http://127.0.0.1:9/mcp/tasks"`,
	} {
		if !strings.Contains(args, want) {
			t.Errorf("args lack %q:\n%s", want, args)
		}
	}
	envs := "\n" + env + "\n"
	for _, want := range []string{"\nANTHROPIC_API_KEY=[REDACTED]\n", "\nCLAWBOO_MCP_TOKEN=[REDACTED]\n", "\nCLAUDE_CONFIG_DIR=/c\n", "\nPATH=/usr/bin:/bin\n"} {
		if !strings.Contains(envs, want) {
			t.Errorf("env lacks %q:\n%s", want, env)
		}
	}
	for _, bad := range []string{"ambient", "SECRET_THING", "OAUTH_TOKEN"} {
		if strings.Contains(envs, bad) {
			t.Errorf("env has %q:\n%s", bad, env)
		}
	}
	if (os.Geteuid() == 0) != strings.Contains(envs, "\nIS_SANDBOX=1\n") {
		t.Errorf("IS_SANDBOX as uid %d:\n%s", os.Geteuid(), env)
	}
	noSecret(t, evs, testKey, token)
}

// CheckEvents is the stream invariants (executortest.CheckStream) for
// tests that collect a run themselves.
func CheckEvents(t *testing.T, id executor.RunID, evs []executor.Event) {
	t.Helper()
	for i, ev := range evs {
		if ev.Seq != int64(i+1) || ev.RunID != id || (ev.Kind == executor.KindDone) != (i == len(evs)-1) {
			t.Fatalf("event %d: %+v", i, ev)
		}
	}
}
