package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/backend/llm"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == helperArg {
		shellHelper(os.Args[2:]) // run_command tests run this binary as the command
		return
	}
	goleak.VerifyTestMain(m)
}

func TestContract(t *testing.T) {
	executortest.RunContract(t, executortest.Harness{
		New: func(t *testing.T) executor.Adapter {
			return newEnv(t, func(_ int, req llm.Request) reply {
				if strings.Contains(userText(req.Messages[0]), "hold") {
					return reply{events: []llm.Event{{Kind: llm.EvText, Text: "working"}}, hold: true}
				}
				return say("done", 10, 2)
			}).adapt
		},
		Request: func(t *testing.T, scenario string) executor.StartRequest {
			return executor.StartRequest{AgentID: "agent-1", Message: scenario, WorkDir: t.TempDir()}
		},
		OwnsChildren: true,
	})
}

func TestCapabilitiesAndHealth(t *testing.T) {
	a := New(Options{})
	c := a.Capabilities()
	if !c.Streaming || !c.MCP || !c.Worktrees || !c.Resume || !c.Steering || !c.ModelChange || !c.ToolApproval || c.RuntimeClass != executor.NativeClass {
		t.Fatalf("capabilities %+v", c)
	}
	if a.Health(context.Background()).OK {
		t.Fatal("healthy without Ready")
	}
	if !New(Options{Ready: func() bool { return true }}).Health(context.Background()).OK {
		t.Fatal("unhealthy with a ready provider")
	}
}

// A run that lists, reads and answers: three turns.
func threeTurns(n int, _ llm.Request) reply {
	switch n % 3 {
	case 1:
		return callTool("t1", "list_files", `{}`, 100, 10)
	case 2:
		return callTool("t2", "read_file", `{"path":"a.txt"}`, 200, 20)
	}
	return say("all done", 300, 30)
}

func TestCacheDisciplineAcrossTurnsAndRuns(t *testing.T) {
	e := newEnv(t, threeTurns)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		evs := executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "do it", Context: "CTX volatile " + time.Now().String(), WorkDir: dir}))
		if d := executortest.Done(t, evs); d.Reason != executor.DoneSuccess || d.Summary != "all done" {
			t.Fatalf("done %+v", d)
		}
	}
	reqs := e.prov.requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests", len(reqs))
	}
	sys0, _ := json.Marshal(reqs[0].System)
	tools0, _ := json.Marshal(reqs[0].Tools)
	for i, r := range reqs {
		sys, _ := json.Marshal(r.System)
		tools, _ := json.Marshal(r.Tools)
		if string(sys) != string(sys0) || string(tools) != string(tools0) {
			t.Fatalf("request %d: system or tools changed", i)
		}
		if strings.Contains(r.System, "CTX") {
			t.Fatal("run context leaked into the system prompt")
		}
	}
	if want := DefaultSystemPrompt + "\n\nToday: 2026-11-29"; reqs[0].System != want {
		t.Fatalf("system %q", reqs[0].System)
	}
	var names []string
	for _, tl := range reqs[0].Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "list_files,read_file,write_file" {
		t.Fatalf("tools %v", names)
	}
	first := reqs[0].Messages[0]
	if first.Role != llm.User || !strings.HasPrefix(first.Content[0].Text, "CTX volatile") || !strings.HasSuffix(first.Content[0].Text, "\n\ndo it") {
		t.Fatalf("first message %+v", first)
	}
	// Turn 3 carries the whole exchange: tool_use answered by tool_result.
	m := reqs[2].Messages
	if len(m) != 5 || m[1].Content[0].Type != llm.ToolUse || m[2].Content[0].Type != llm.ToolResult || m[4].Content[0].Text != "hello" {
		b, _ := json.Marshal(m)
		t.Fatalf("turn 3 messages %s", b)
	}
}

func TestCostEventPerTurnWithDeltas(t *testing.T) {
	e := newEnv(t, threeTurns)
	evs := executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "go", WorkDir: t.TempDir()}))
	costs := executortest.OfKind(evs, executor.KindCost)
	if len(costs) != 3 {
		t.Fatalf("%d cost events", len(costs))
	}
	for i, c := range costs {
		in, out := int64(100*(i+1)), int64(10*(i+1))
		want := (float64(in)*1 + float64(out)*5) / 1e6
		if c.Usage == nil || c.Usage.InputTokens != in || c.Usage.OutputTokens != out || c.CostUSD == nil ||
			abs(*c.CostUSD-want) > 1e-12 || c.Model != "claude-haiku-4-5" || c.Detail != "anthropic" || c.Local || c.Estimated {
			t.Fatalf("cost %d: %+v (usd %v)", i, c, c.CostUSD)
		}
	}
	if len(executortest.OfKind(evs, executor.KindTextDelta)) == 0 || len(executortest.OfKind(evs, executor.KindToolCall)) != 2 || len(executortest.OfKind(evs, executor.KindToolResult)) != 2 {
		t.Fatal("missing text, tool-call or tool-result events")
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func TestTurnPrice(t *testing.T) {
	u := llm.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}
	cases := []struct {
		provider, model string
		usd             *float64
		local           bool
	}{
		{"anthropic", "claude-sonnet-4-6", ptr(18.0), false},
		{"anthropic", "claude-haiku-4-5-20251001", ptr(6.0), false},
		{"openrouter", "openai/gpt-4o-mini", ptr(0.75), false},
		{"openai", "gpt-5.4", nil, false},
		{"ollama", "llama3.2", ptr(0.0), true},
		{"ollama", "gpt-oss:120b-cloud", nil, false},
	}
	for _, tc := range cases {
		usd, local := turnPrice(tc.provider, tc.model, u)
		if local != tc.local || (usd == nil) != (tc.usd == nil) || usd != nil && abs(*usd-*tc.usd) > 1e-9 {
			t.Fatalf("%s/%s: %v %v", tc.provider, tc.model, usd, local)
		}
	}
}

func ptr(f float64) *float64 { return &f }

func TestMaxTurnsHandsOffToASuccessor(t *testing.T) {
	e := newEnv(t, func(n int, req llm.Request) reply {
		if strings.Contains(userText(req.Messages[0]), "Handoff from the previous session") {
			return say("finished after handoff", 5, 5)
		}
		return reply{events: []llm.Event{
			{Kind: llm.EvText, Text: "still listing"},
			{Kind: llm.EvToolCall, Call: &llm.ToolCall{ID: "c", Name: "list_files", Input: json.RawMessage(`{}`)}},
			{Kind: llm.EvDone, Usage: llm.Usage{InputTokens: 1, OutputTokens: 1}},
		}}
	})
	e.cfg.MaxTurns = 2
	req := executor.StartRequest{Message: "refactor the parser", SessionKey: "task:t1", WorkDir: t.TempDir()}
	evs := executortest.CollectWithin(t, 20*time.Second, e.start(req))
	if d := executortest.Done(t, evs); d.Reason != executor.DoneMaxTurns {
		t.Fatalf("done %+v", d)
	}
	if n := len(e.prov.requests()); n != 2 {
		t.Fatalf("%d turns", n)
	}
	dir := filepath.Join(e.home, "runtimes", "clawboo-native", "agent-1", "sessions")
	prefix := keyPrefix("task:t1")
	tr, err := sessions{dir: dir}.load(prefix + "0")
	if err != nil || !strings.Contains(tr.Handoff, "refactor the parser") || !strings.Contains(tr.Handoff, "still listing") || len(tr.Messages) != 5 {
		t.Fatalf("transcript %+v %v", tr, err)
	}
	// The successor starts fresh with the note, in a new session.
	evs = executortest.CollectWithin(t, 20*time.Second, e.start(req))
	if d := executortest.Done(t, evs); d.Reason != executor.DoneSuccess {
		t.Fatalf("successor done %+v", d)
	}
	reqs := e.prov.requests()
	succ := reqs[len(reqs)-1]
	if len(succ.Messages) != 1 || !strings.Contains(userText(succ.Messages[0]), "refactor the parser") {
		t.Fatalf("successor messages %+v", succ.Messages)
	}
	if _, err := os.Stat(filepath.Join(dir, prefix+"1.json")); err != nil {
		t.Fatalf("successor session not stored: %v", err)
	}
}

func TestAbortStopsTheStreamAtOnce(t *testing.T) {
	e := newEnv(t, func(int, llm.Request) reply {
		return reply{events: []llm.Event{{Kind: llm.EvText, Text: "partial"}}, hold: true}
	})
	r := e.start(executor.StartRequest{Message: "long", SessionKey: "task:ab"})
	var evs []executor.Event
	for ev := range r.Events() {
		evs = append(evs, ev)
		if ev.Kind == executor.KindTextDelta {
			start := time.Now()
			_ = r.Abort(context.Background())
			rest := executortest.CollectWithin(t, 20*time.Second, r)
			if time.Since(start) > 2*time.Second {
				t.Fatal("abort was slow")
			}
			evs = append(evs, rest...)
			break
		}
	}
	if d := executortest.Done(t, evs); d.Reason != executor.DoneAborted || d.Summary != "partial" {
		t.Fatalf("done %+v", d)
	}
	if res, _ := r.Steer(context.Background(), executor.Steer{Text: "x", Mode: executor.SteerNext}); res != executor.SteerRunEnded {
		t.Fatalf("steer after end: %s", res)
	}
	tr, _, ok := sessions{dir: filepath.Join(e.home, "runtimes", "clawboo-native", "agent-1", "sessions")}.latest("task:ab")
	if !ok || len(tr.Messages) != 2 || tr.Messages[1].Content[0].Text != "partial" {
		t.Fatalf("aborted transcript %+v %v", tr, ok)
	}
}

func TestContextOverflowIsATypedError(t *testing.T) {
	for name, err := range map[string]error{
		"llm":     fmt.Errorf("turn: %w", llm.ErrContextOverflow),
		"typed":   errors.Join(errors.New("anthropic"), overflowErr{}),
		"worded":  errors.New("400: prompt is too long: 210000 tokens > 200000 maximum"),
		"generic": errors.New("boom"),
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, func(int, llm.Request) reply { return reply{openErr: err} })
			evs := executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "big"}))
			d := executortest.Done(t, evs)
			errs := executortest.OfKind(evs, executor.KindError)
			if d.Reason != executor.DoneError || len(errs) != 1 || !errs[0].Fatal {
				t.Fatalf("events %+v", evs)
			}
			if overflow := name != "generic"; overflow != (d.Summary == ContextOverflowMessage && errs[0].Code == "context_overflow") {
				t.Fatalf("%s: %+v %+v", name, d, errs[0])
			}
		})
	}
}

func TestMidStreamProviderErrorEndsTheRun(t *testing.T) {
	e := newEnv(t, func(int, llm.Request) reply {
		return reply{events: []llm.Event{{Kind: llm.EvText, Text: "half"}}, endErr: errors.New("overloaded")}
	})
	evs := executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "x"}))
	if d := executortest.Done(t, evs); d.Reason != executor.DoneError || !strings.Contains(d.Summary, "overloaded") {
		t.Fatalf("done %+v", d)
	}
	if len(executortest.OfKind(evs, executor.KindCost)) != 0 {
		t.Fatal("a response without usage must not report cost")
	}
}

func TestTranscriptPersistsAndResumes(t *testing.T) {
	e := newEnv(t, func(n int, _ llm.Request) reply { return say("answer "+string(rune('0'+n)), 1, 1) })
	req := executor.StartRequest{Message: "first question", SessionKey: "task:r1"}
	executortest.CollectWithin(t, 20*time.Second, e.start(req))
	req.Message = "second question"
	executortest.CollectWithin(t, 20*time.Second, e.start(req))
	reqs := e.prov.requests()
	m := reqs[1].Messages
	if len(m) != 3 || userText(m[0]) != "first question\n" || m[1].Content[0].Text != "answer 1" || userText(m[2]) != "second question\n" {
		b, _ := json.Marshal(m)
		t.Fatalf("resumed messages %s", b)
	}
	// Another key and another agent start fresh.
	executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "other", SessionKey: "task:r2"}))
	executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "other agent", SessionKey: "task:r1", AgentID: "agent-2"}))
	reqs = e.prov.requests()
	if len(reqs[2].Messages) != 1 || len(reqs[3].Messages) != 1 {
		t.Fatal("a different key or agent resumed someone else's session")
	}
	tr, _, ok := sessions{dir: filepath.Join(e.home, "runtimes", "clawboo-native", "agent-1", "sessions")}.latest("task:r1")
	if !ok || tr.Version != 1 || len(tr.Messages) != 4 || !strings.HasPrefix(tr.SessionID, "native-") {
		t.Fatalf("stored %+v", tr)
	}
}

func TestTrimHistoryKeepsToolPairs(t *testing.T) {
	big := strings.Repeat("x", 1000)
	u := func(s string) llm.Message { return llm.Message{Role: llm.User, Content: []llm.Block{textBlock(s)}} }
	msgs := []llm.Message{
		u(big),
		{Role: llm.Assistant, Content: []llm.Block{{Type: llm.ToolUse, ID: "a", Name: "n", Input: json.RawMessage(`{}`)}}},
		{Role: llm.User, Content: []llm.Block{{Type: llm.ToolResult, ID: "a", Text: big}}},
		{Role: llm.Assistant, Content: []llm.Block{textBlock("ok")}},
		u("second"),
		{Role: llm.Assistant, Content: []llm.Block{{Type: llm.ToolUse, ID: "b", Name: "n", Input: json.RawMessage(`{}`)}}},
		{Role: llm.User, Content: []llm.Block{{Type: llm.ToolResult, ID: "b", Text: big}}},
	}
	got := trimHistory(msgs, 1500)
	if len(got) != 3 || userText(got[0]) != "second\n" {
		t.Fatalf("trimmed to %d messages", len(got))
	}
	if len(trimHistory(msgs, 1_000_000)) != len(msgs) {
		t.Fatal("trimmed a history that fits")
	}
	// An unanswered call at the end is closed.
	open := closeOpenCalls(msgs[:2])
	if len(open) != 3 || open[2].Content[0].Type != llm.ToolResult || open[2].Content[0].ID != "a" {
		t.Fatalf("open calls %+v", open)
	}
}

// How a stored config is read (and a corrupt one replaced) is the agents
// service's: agents.TestParseStored. Here: the host hands over an invalid
// config, and the run uses the default.
func TestCorruptConfigFallsBackToDefault(t *testing.T) {
	e := newEnv(t, func(int, llm.Request) reply { return say("ok", 1, 1) })
	e.cfg = AgentConfig{SystemPrompt: "broken"}
	executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "hi"}))
	if len(e.cfgs) != 1 || e.cfgs[0].PrimaryModel != "claude-haiku-4-5" || e.prov.requests()[0].System != DefaultSystemPrompt+"\n\nToday: 2026-11-29" {
		t.Fatalf("configs %+v", e.cfgs)
	}
}

func TestNoProviderEndsInError(t *testing.T) {
	e := newEnv(t, nil)
	e.adapt = New(Options{Home: e.home, Providers: func(context.Context, AgentConfig) (llm.Provider, error) {
		return nil, errors.New("no provider key available (checked ANTHROPIC_API_KEY and fallbacks)")
	}})
	evs := executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "hi"}))
	if d := executortest.Done(t, evs); d.Reason != executor.DoneError || !strings.Contains(d.Summary, "ANTHROPIC_API_KEY") {
		t.Fatalf("done %+v", d)
	}
}

func TestSteeringArrivesAtTheNextTurnBoundary(t *testing.T) {
	gate := make(chan struct{})
	e := newEnv(t, func(n int, _ llm.Request) reply {
		if n == 1 {
			r := callTool("c1", "list_files", `{}`, 1, 1)
			r.gate = gate
			return r
		}
		return say("ok", 1, 1)
	})
	r := e.start(executor.StartRequest{Message: "task", WorkDir: t.TempDir()})
	waitRequests(t, e.prov, 1)
	for _, s := range []executor.Steer{{Text: "use tabs", Mode: executor.SteerNext}, {Text: "fyi: no rush", Mode: executor.SteerPassive}} {
		if res, err := r.Steer(context.Background(), s); err != nil || res != executor.SteerQueued {
			t.Fatalf("steer: %s %v", res, err)
		}
	}
	if res, _ := r.Steer(context.Background(), executor.Steer{Text: "  "}); res != executor.SteerRejected {
		t.Fatalf("empty steer: %s", res)
	}
	close(gate)
	executortest.CollectWithin(t, 20*time.Second, r)
	reqs := e.prov.requests()
	if strings.Contains(userText(reqs[0].Messages[0]), "use tabs") {
		t.Fatal("steer reached the turn in flight")
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != llm.User || last.Content[0].Type != llm.ToolResult || !strings.Contains(userText(last), "use tabs") || !strings.Contains(userText(last), "no rush") {
		b, _ := json.Marshal(last)
		t.Fatalf("turn 2 last message %s", b)
	}
}

// routerProvider is a fake that picks the model itself, like llm's router.
type routerProvider struct{ *fakeProvider }

func (p routerProvider) SetModel(m string) {
	p.mu.Lock()
	p.models = append(p.models, m)
	p.mu.Unlock()
}

func TestModelChangeAppliesToLaterTurns(t *testing.T) {
	gate := make(chan struct{})
	e := newEnv(t, func(n int, _ llm.Request) reply {
		if n == 1 {
			r := callTool("c1", "list_files", `{}`, 1, 1)
			r.gate = gate
			return r
		}
		return say("ok", 1, 1)
	})
	rp := routerProvider{e.prov}
	e.opts.Providers = func(context.Context, AgentConfig) (llm.Provider, error) { return rp, nil }
	e.adapt = New(e.opts)
	r := e.start(executor.StartRequest{Message: "task", WorkDir: t.TempDir()})
	waitRequests(t, e.prov, 1)
	if err := r.SetModel(context.Background(), "claude-sonnet-4-6"); err != nil {
		t.Fatal(err)
	}
	close(gate)
	evs := executortest.CollectWithin(t, 20*time.Second, r)
	reqs := e.prov.requests()
	if reqs[0].Model != "claude-haiku-4-5" || reqs[1].Model != "claude-sonnet-4-6" {
		t.Fatalf("models %q then %q", reqs[0].Model, reqs[1].Model)
	}
	if len(rp.models) != 1 || rp.models[0] != "claude-sonnet-4-6" {
		t.Fatalf("router told %v", rp.models)
	}
	costs := executortest.OfKind(evs, executor.KindCost)
	if costs[0].Model != "claude-haiku-4-5" || costs[1].Model != "claude-sonnet-4-6" {
		t.Fatal("cost not attributed to the turn's model")
	}
}

func waitRequests(t *testing.T, p *fakeProvider, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(p.requests()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d requests", len(p.requests()))
		}
		time.Sleep(2 * time.Millisecond)
	}
}
