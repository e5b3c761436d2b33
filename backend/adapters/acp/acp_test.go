package acp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
)

func TestContract(t *testing.T) {
	executortest.RunContract(t, executortest.Harness{
		New: func(t *testing.T) executor.Adapter { return newAdapter(t) },
		Request: func(t *testing.T, scenario string) executor.StartRequest {
			msg := "!say hello"
			if scenario == "hold" {
				msg = "!hang"
			}
			return executor.StartRequest{Message: msg, WorkDir: t.TempDir()}
		},
		OwnsChildren: true,
	})
}

func TestUpdatesBecomeEvents(t *testing.T) {
	a := newAdapter(t)
	run := start(t, a, "!think pondering\n!plan read|write|test\n!tool t1 Read file\n!toolresult t1 contents\n!bigtool t2 9000\n!say done", "", nil)
	evs, done := finish(t, run)
	if done.Reason != executor.DoneSuccess || done.Summary != "done" {
		t.Fatalf("done %q %q: %s", done.Reason, done.Summary, executortest.Describe(evs))
	}
	var reasoning string
	for _, ev := range executortest.OfKind(evs, executor.KindTextDelta) {
		if ev.Channel == executor.ChannelReasoning {
			reasoning += ev.Text
		}
	}
	if reasoning != "pondering" {
		t.Fatalf("reasoning %q", reasoning)
	}
	plans := executortest.OfKind(evs, executor.KindPlan)
	if len(plans) != 1 || len(plans[0].Plan) != 3 || plans[0].Plan[1].Content != "write" || plans[0].Plan[0].Status != "in_progress" {
		t.Fatalf("plan events: %+v", plans)
	}
	calls, results := executortest.OfKind(evs, executor.KindToolCall), executortest.OfKind(evs, executor.KindToolResult)
	if len(calls) != 2 || calls[0].Name != "Read file" || calls[0].ToolCallID != "t1" {
		t.Fatalf("tool calls: %s", executortest.Describe(calls))
	}
	if len(results) != 2 || results[0].Output != "contents" || results[0].Name != "Read file" {
		t.Fatalf("tool results: %s", executortest.Describe(results))
	}
	if n := len(results[1].Output); n > MaxToolText+len("…") || n < MaxToolText {
		t.Fatalf("a 9000-character result is %d bytes in the event, want it cut at %d", n, MaxToolText)
	}
	if s := executortest.OfKind(evs, executor.KindStatus); len(s) == 0 || s[0].Session == "" {
		t.Fatalf("the first status names no session: %s", executortest.Describe(s))
	}
}

func TestVersionWeDoNotSpeakIsRefusedWithBothNamed(t *testing.T) {
	before := numGoroutines()
	run := start(t, newAdapter(t), "!say hi", "", map[string]string{"FAKEACP_VERSION": "2"})
	_, done := finish(t, run)
	if done.Reason != executor.DoneError || !strings.Contains(done.Summary, "version 2") || !strings.Contains(done.Summary, "version 1") {
		t.Fatalf("done %q: %q", done.Reason, done.Summary)
	}
	noGoroutinesLeft(t, before)
}

func TestAnAgentThatNeverAnswersInitializeIsStopped(t *testing.T) {
	before := numGoroutines()
	a := newAdapter(t, func(o *Options) { o.InitTimeout = 700 * time.Millisecond })
	run := start(t, a, "!say hi", "", map[string]string{"FAKEACP_MODE": "noinit"})
	_, done := finish(t, run)
	if done.Reason != executor.DoneError || !strings.Contains(done.Summary, "did not answer initialize in time") {
		t.Fatalf("done %q: %q", done.Reason, done.Summary)
	}
	noGoroutinesLeft(t, before)
}

func TestMalformedJSONIsARunError(t *testing.T) {
	for name, c := range map[string]struct {
		msg string
		env map[string]string
	}{
		"instead of initialize": {"!say hi", map[string]string{"FAKEACP_MODE": "garbage-init"}},
		"mid-turn":              {"!say hi\n!garbage\n!hang", nil},
	} {
		t.Run(name, func(t *testing.T) {
			before := numGoroutines()
			_, done := finish(t, start(t, newAdapter(t), c.msg, "", c.env))
			if done.Reason != executor.DoneError || !strings.Contains(done.Summary, "malformed JSON") {
				t.Fatalf("done %q: %q", done.Reason, done.Summary)
			}
			noGoroutinesLeft(t, before)
		})
	}
}

func TestACrashMidTurnSaysSo(t *testing.T) {
	before := numGoroutines()
	evs, done := finish(t, start(t, newAdapter(t), "!say working\n!crash", "", nil))
	if done.Reason != executor.DoneError || !strings.Contains(done.Summary, "exited with code 3") {
		t.Fatalf("done %q: %q\n%s", done.Reason, done.Summary, executortest.Describe(evs))
	}
	noGoroutinesLeft(t, before)
}

// TestAFloodIsTakenWhole: the pump paces the agent (its stdout pipe fills
// while 256 updates wait to be mapped), so a flood the SDK alone would
// end the connection over arrives whole.
func TestAFloodIsTakenWhole(t *testing.T) {
	before := numGoroutines()
	evs, done := finish(t, start(t, newAdapter(t), "!flood 20000\n!say end", "", nil))
	if done.Reason != executor.DoneSuccess {
		t.Fatalf("done %q: %q", done.Reason, done.Summary)
	}
	if got := strings.Count(said(evs), "x"); got != 20000 {
		t.Fatalf("%d of 20000 deltas arrived", got)
	}
	noGoroutinesLeft(t, before)
}

func TestTooMuchOutputIsStopped(t *testing.T) {
	a := newAdapter(t, func(o *Options) { o.MaxOutput = 64 << 10 })
	_, done := finish(t, start(t, a, "!flood 5000\n!hang", "", nil))
	if done.Reason != executor.DoneError || !strings.Contains(done.Summary, "wrote more than") {
		t.Fatalf("done %q: %q", done.Reason, done.Summary)
	}
}

func TestFileWritesStayInTheWorkingFolder(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "work")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	msg := "!write ../x escaped\n!write .git/config evil\n!write " + filepath.Join(parent, "abs") + " escaped\n!write notes/ok.txt fine\n!write " + filepath.Join(dir, "abs-in.txt") + " inside\n!read notes/ok.txt\n!read ../../etc/passwd"
	evs, done := finish(t, start(t, newAdapter(t), msg, dir, nil))
	if done.Reason != executor.DoneSuccess {
		t.Fatalf("done %q: %q", done.Reason, done.Summary)
	}
	text := said(evs)
	if strings.Count(text, "write error") != 3 || strings.Count(text, "write ok") != 2 || !strings.Contains(text, "read: fine") || !strings.Contains(text, "read error") {
		t.Fatalf("the agent was told:\n%s", text)
	}
	for _, p := range []string{filepath.Join(parent, "x"), filepath.Join(parent, "abs")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("%s was written outside the working folder", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); string(b) != "[core]\n" {
		t.Fatalf(".git/config is now %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes", "ok.txt")); string(b) != "fine" {
		t.Fatalf("ok.txt holds %q", b)
	}
}

func TestPermissionIsAskedAndAnsweredWithTheAgentsOption(t *testing.T) {
	for _, c := range []struct {
		outcomes []Outcome
		want     string
		asks     int
	}{
		{[]Outcome{Allowed}, "permission: allow-once\npermission: allow-once", 2},
		{[]Outcome{Denied}, "permission: reject-once\npermission: reject-once", 2},
		{[]Outcome{Expired}, "permission: reject-once\npermission: reject-once", 2},
		{[]Outcome{AllowedAlways}, "permission: allow-always\npermission: allow-always", 1},
	} {
		t.Run(string(c.outcomes[0]), func(t *testing.T) {
			ask := &asker{outcomes: c.outcomes}
			a := newAdapter(t, func(o *Options) { o.Ask = ask.ask })
			evs, done := finish(t, start(t, a, "!ask rm -rf build\n!say \\n\n!ask rm -rf build", "", nil))
			if done.Reason != executor.DoneSuccess {
				t.Fatalf("done %q: %q", done.Reason, done.Summary)
			}
			if got := strings.TrimSpace(said(evs)); got != c.want {
				t.Fatalf("the agent was told %q, want %q", got, c.want)
			}
			qs := ask.questions()
			if len(qs) != c.asks || qs[0].Kind != AskPermission || qs[0].Tool != "rm -rf build" || !strings.Contains(qs[0].Args, "rm -rf build") || !qs[0].Always {
				t.Fatalf("asked %+v", qs)
			}
			if qs[0].RunID != string(run0(evs)) || qs[0].Agent != "coder" || qs[0].Team != "team1" {
				t.Fatalf("the question does not name its run: %+v", qs[0])
			}
		})
	}
}

func run0(evs []executor.Event) executor.RunID { return evs[0].RunID }

func TestWithNoOneToAskNothingIsAllowed(t *testing.T) {
	evs, _ := finish(t, start(t, newAdapter(t), "!ask deploy\n!term echo hi", "", nil))
	text := said(evs)
	if !strings.Contains(text, "permission: reject-once") || !strings.Contains(text, "term error") {
		t.Fatalf("the agent was told %q", text)
	}
}

func TestTerminalCommandsNeedAPersonsYes(t *testing.T) {
	ask := &asker{outcomes: []Outcome{Allowed, Denied}}
	a := newAdapter(t, func(o *Options) { o.Ask = ask.ask })
	evs, _ := finish(t, start(t, a, "!term echo hi there\n!term touch made", "", nil))
	text := said(evs)
	if !strings.Contains(text, "term exit=0 output=hi there") || !strings.Contains(text, "term error") || !strings.Contains(text, "did not allow") {
		t.Fatalf("the agent was told %q", text)
	}
	qs := ask.questions()
	if len(qs) != 2 || qs[0].Kind != AskCommand || qs[0].Command != "echo hi there" || qs[1].Command != "touch made" || qs[0].Folder == "" {
		t.Fatalf("asked %+v", qs)
	}
}

func TestSteerPromptsTheSameSessionAgain(t *testing.T) {
	run := start(t, newAdapter(t), "!say waiting\n!hang", "", nil)
	ctx := context.Background()
	var res executor.SteerResult
	for ev := range run.Events() {
		if ev.Kind == executor.KindTextDelta && ev.Text == "waiting" {
			// The turn is under way and hangs: a steer cancels it and
			// prompts the same session again.
			res, _ = run.Steer(ctx, executor.Steer{Text: "!session\n!say  steered", Mode: executor.SteerNext})
		}
		if ev.Kind == executor.KindDone {
			if ev.Reason != executor.DoneSuccess || !strings.Contains(ev.Summary, "steered") || !strings.Contains(ev.Summary, "fake-session-1") {
				t.Fatalf("done %q: %q", ev.Reason, ev.Summary)
			}
		}
	}
	if res != executor.SteerDelivered {
		t.Fatalf("steer result %q", res)
	}
	if r, _ := run.Steer(ctx, executor.Steer{Text: "late", Mode: executor.SteerNext}); r != executor.SteerRunEnded {
		t.Fatalf("a steer after the end: %q", r)
	}
}

func TestKeysReachOnlyTheAgentsEnvironment(t *testing.T) {
	const sentinel = "sk-sentinel-ACP-0123456789abcdef"
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	a := newAdapter(t, func(o *Options) {
		o.Spec.EnvVars = []string{"GEMINI_API_KEY"}
		o.Key = func(_ context.Context, name string) string {
			if name == "GEMINI_API_KEY" {
				return sentinel
			}
			return ""
		}
		o.Environ = func() []string { return append(os.Environ(), "OPENAI_API_KEY=sk-not-for-this-agent-000000") }
	})
	evs, done := finish(t, start(t, a, "!say hi", "", map[string]string{"FAKEACP_RECORD": rec}))
	if done.Reason != executor.DoneSuccess {
		t.Fatalf("done %q: %q", done.Reason, done.Summary)
	}
	envs := recorded(t, rec, "$env")
	if len(envs) != 1 || !strings.Contains(string(envs[0]), sentinel) {
		t.Fatal("the agent's own key did not reach its environment")
	}
	if strings.Contains(string(envs[0]), "sk-not-for-this-agent") {
		t.Fatal("another provider's key from the server's environment reached the agent")
	}
	all, _ := json.Marshal(evs)
	if strings.Contains(string(all), sentinel) {
		t.Fatal("the key is in the run's events")
	}
}

func TestMCPServersGoOverHTTPWithTheRunsToken(t *testing.T) {
	attach := func(o *Options) {
		o.Attach = func(context.Context, executor.StartRequest) (MCP, bool, error) {
			return MCP{URLs: map[string]string{"clawboo-tasks": "http://127.0.0.1:1/mcp/tasks?b=x"}, Token: "run-token-1"}, true, nil
		}
	}
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	finish(t, start(t, newAdapter(t, attach), "!say hi", "", map[string]string{"FAKEACP_RECORD": rec, "FAKEACP_MCP_HTTP": "1"}))
	news := recorded(t, rec, "session/new")
	if len(news) != 1 || !strings.Contains(string(news[0]), `"type":"http"`) || !strings.Contains(string(news[0]), "Bearer run-token-1") || !strings.Contains(string(news[0]), "clawboo-tasks") {
		t.Fatalf("session/new: %s", news)
	}
	rec2 := filepath.Join(t.TempDir(), "rec.jsonl")
	evs, _ := finish(t, start(t, newAdapter(t, attach), "!say hi", "", map[string]string{"FAKEACP_RECORD": rec2}))
	if news := recorded(t, rec2, "session/new"); len(news) != 1 || strings.Contains(string(news[0]), "run-token-1") {
		t.Fatalf("an agent without HTTP MCP was given the servers: %s", news)
	}
	if !strings.Contains(executortest.Describe(evs), "does not take MCP servers over HTTP") {
		t.Fatalf("nothing said the run works without the board tools:\n%s", executortest.Describe(evs))
	}
	// With a bridge, such an agent gets each server as a stdio child: the
	// bridge with the server's URL, the token in its environment only.
	rec3 := filepath.Join(t.TempDir(), "rec.jsonl")
	bridged := func(o *Options) { attach(o); o.Bridge = []string{"/opt/clawboo", "mcp", "bridge"} }
	evs, _ = finish(t, start(t, newAdapter(t, bridged), "!say hi", "", map[string]string{"FAKEACP_RECORD": rec3}))
	news = recorded(t, rec3, "session/new")
	var p struct {
		McpServers []struct {
			Name, Command string
			Args          []string
			Env           []struct{ Name, Value string }
		}
	}
	if len(news) != 1 || json.Unmarshal(news[0], &p) != nil || len(p.McpServers) != 1 {
		t.Fatalf("session/new: %s", news)
	}
	s := p.McpServers[0]
	if s.Name != "clawboo-tasks" || s.Command != "/opt/clawboo" || strings.Join(s.Args, " ") != "mcp bridge http://127.0.0.1:1/mcp/tasks?b=x" ||
		len(s.Env) != 1 || s.Env[0].Name != BridgeTokenEnv || s.Env[0].Value != "run-token-1" {
		t.Fatalf("the bridged server: %+v", s)
	}
	if strings.Contains(executortest.Describe(evs), "does not take MCP servers") {
		t.Fatal("a bridged run said it works without the board tools")
	}
}

func TestResumeLoadsTheSessionWithoutReplayingIt(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	a := newAdapter(t)
	id := executor.RunID("acp-resume")
	run, err := a.Start(context.Background(), executor.StartRequest{
		RunID: id, Message: "!session", WorkDir: t.TempDir(), Resume: "fake-session-7",
		Env: map[string]string{"FAKEACP_RECORD": rec, "FAKEACP_LOAD": "1"}, Emitter: executor.NewEmitter(id, 0),
	})
	if err != nil {
		t.Fatal(err)
	}
	evs, done := finish(t, run)
	if done.Summary != "fake-session-7" || len(recorded(t, rec, "session/load")) != 1 || len(recorded(t, rec, "session/new")) != 0 {
		t.Fatalf("done %q; %s", done.Summary, executortest.Describe(evs))
	}
}

func TestAbortWhileAPermissionWaitsEndsTheRun(t *testing.T) {
	before := numGoroutines()
	block := make(chan struct{})
	a := newAdapter(t, func(o *Options) {
		o.Ask = func(ctx context.Context, _ Question) (Answer, error) {
			close(block)
			<-ctx.Done()
			return Answer{Outcome: Expired}, nil
		}
	})
	run := start(t, a, "!ask deploy\n!hang", "", nil)
	go func() {
		<-block
		_ = run.Abort(context.Background())
	}()
	_, done := finish(t, run)
	if done.Reason != executor.DoneAborted {
		t.Fatalf("done %q: %q", done.Reason, done.Summary)
	}
	noGoroutinesLeft(t, before)
}
