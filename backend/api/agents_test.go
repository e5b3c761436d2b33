package api

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/adapters/mock"
	"github.com/clawboo/desktop/backend/adapters/native"
	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/runtimes"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/vault"
	"github.com/clawboo/desktop/backend/worktree"
)

// agentSentinel is a stored provider key: no agents response may carry it.
const agentSentinel = "sk-ant-agents-SENTINEL-7f3e9a"

// recorder is the mock runtime, remembering what each Start was asked.
type recorder struct {
	*mock.Adapter
	mu   sync.Mutex
	reqs []executor.StartRequest
}

func (r *recorder) Start(ctx context.Context, req executor.StartRequest) (executor.Run, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.Adapter.Start(ctx, req)
}

func (r *recorder) last() executor.StartRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reqs[len(r.reqs)-1]
}

type agentFixture struct {
	*fixture
	rec    *recorder
	bodies []string // every response body, for the sentinel check
	setEnv func(k, v string)
}

// newAgentFixture is api_test.go's fixture with the agents service wired
// the way the composition root wires it, and the mock runtime recorded.
func newAgentFixture(t *testing.T) *agentFixture {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Adapter: mock.New()}
	reg := executor.NewRegistry()
	if err := reg.Register(rec); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	boardEvents, budgetEvents := bus.New[board.Event](0), bus.New[budget.Event](0)
	bd := board.New(board.Options{Store: st, Events: boardEvents})
	led := budget.New(budget.Options{Store: st, Events: budgetEvents})
	wm, err := worktree.New(worktree.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	sup, err := supervisor.New(ctx, supervisor.Options{Store: st, Registry: reg, Board: bd, Worktrees: wm, Budget: led})
	if err != nil {
		t.Fatal(err)
	}
	var envMu sync.Mutex
	env := map[string]string{"HOME": home, "PATH": filepath.Join(home, "bin")}
	getenv := func(k string) string { envMu.Lock(); defer envMu.Unlock(); return env[k] }
	v, err := vault.Open(vault.Options{Home: home, Getenv: getenv, ForceFile: true})
	if err != nil {
		t.Fatal(err)
	}
	cat := runtimes.NewCatalog(runtimes.Options{
		Registry: reg, Vault: v, Resolver: proc.NewResolver(proc.ResolverOptions{Getenv: getenv, NoWatch: true}),
		Getenv: getenv, EnableMock: true, HealthTimeout: 2 * time.Second,
		Environ: func() []string {
			return []string{"PATH=" + getenv("PATH"), "HOME=" + home, "ANTHROPIC_API_KEY=" + ambientSentinel}
		},
	})
	svc := agents.New(agents.Options{
		Store: st, Budget: led, Vault: v,
		RuntimeReady: func(ctx context.Context, rt string) bool {
			e, ok := cat.Entry(ctx, executor.ID(rt))
			return ok && e.ConnectionState == runtimes.StateReady
		},
		KnownRuntime: func(rt string) bool {
			_, ok := cat.Descriptor(executor.ID(rt))
			return ok || executor.ID(rt) == executor.OpenClaw
		},
		LiveAgent: sup.AgentLive,
	})
	au, tok := testAuth(t)
	a := New(Options{
		Store: st, Supervisor: sup, Catalog: cat, Board: bd, BoardEvents: boardEvents, Worktrees: wm,
		Budget: led, BudgetEvents: budgetEvents, Agents: svc, Version: "test", Auth: au,
	})
	srv := httptest.NewServer(withToken(a, tok))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := sup.Close(cctx); err != nil {
			t.Error(err)
		}
		srv.Close()
		bd.Close()
		st.Close()
		v.Close()
		boardEvents.Close()
		budgetEvents.Close()
	})
	f := &agentFixture{rec: rec, setEnv: func(k, v string) { envMu.Lock(); defer envMu.Unlock(); env[k] = v }, fixture: &fixture{srv: srv, st: st, sup: sup, api: a, vault: v, cat: cat, home: home, env: env, board: bd, ledger: led}}
	t.Cleanup(func() {
		for _, b := range f.bodies {
			if strings.Contains(b, agentSentinel) || strings.Contains(b, ambientSentinel) {
				t.Errorf("a response carries a key: %s", b)
			}
		}
	})
	if err := v.Set(ctx, "ANTHROPIC_API_KEY", agentSentinel); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *agentFixture) call(t *testing.T, method, path, body string, want int) []byte {
	t.Helper()
	code, _, b := f.do(t, method, path, body)
	f.bodies = append(f.bodies, string(b))
	if code != want {
		t.Fatalf("%s %s %s: %d %s, want %d", method, path, body, code, b, want)
	}
	return b
}

func (f *agentFixture) create(t *testing.T, body string) agents.Agent {
	t.Helper()
	return decode[map[string]agents.Agent](t, f.call(t, "POST", "/api/agents", body, 201))["agent"]
}

func TestAgentsCRUD(t *testing.T) {
	f := newAgentFixture(t)
	a := f.create(t, `{"name":"Code Reviewer","runtime":"clawboo-native","config":{"systemPrompt":"Review diffs.","tools":{"tasks":true,"shell":true}}}`)
	if !agentIDPattern().MatchString(a.ID) || !strings.HasPrefix(a.ID, "code-reviewer-") || a.Runtime != "clawboo-native" ||
		a.Provider != "anthropic" || a.Model != "claude-haiku-4-5" || a.Config == nil || a.Config.MaxTurns != 16 ||
		a.Config.Tools.Tasks != native.TasksOn || a.Config.Tools.Shell == nil || !*a.Config.Tools.Shell || !a.Config.Tools.Memory ||
		a.Config.EnvVar != "ANTHROPIC_API_KEY" || !a.ProviderReady || a.CreatedAt == 0 {
		t.Fatalf("%+v", a)
	}
	m := f.create(t, `{"name":"Mocky","runtime":"clawboo-mock","model":"mock"}`)
	if m.Config != nil || m.Model != "mock" || !m.ProviderReady {
		t.Fatalf("%+v", m)
	}
	list := decode[map[string][]agents.Agent](t, f.call(t, "GET", "/api/agents", "", 200))["agents"]
	if len(list) != 2 || list[0].ID != a.ID || list[1].ID != m.ID {
		t.Fatalf("%+v", list)
	}
	got := decode[map[string]agents.Agent](t, f.call(t, "GET", "/api/agents/"+a.ID, "", 200))["agent"]
	if got.Config.SystemPrompt != "Review diffs." {
		t.Fatalf("%+v", got)
	}
	p := decode[map[string]agents.Agent](t, f.call(t, "PATCH", "/api/agents/"+a.ID,
		`{"name":"Reviewer","config":{"maxTurns":30,"fallbacks":[{"provider":"openai","model":"gpt-4o"}]}}`, 200))["agent"]
	if p.Name != "Reviewer" || p.Config.MaxTurns != 30 || len(p.Config.Fallbacks) != 1 || p.Config.SystemPrompt != "Review diffs." || p.ID != a.ID {
		t.Fatalf("%+v", p)
	}
	f.call(t, "DELETE", "/api/agents/"+a.ID, "", 200)
	f.call(t, "GET", "/api/agents/"+a.ID, "", 404)
	f.call(t, "DELETE", "/api/agents/"+a.ID, "", 404)
	f.call(t, "GET", "/api/agents/bad%20id", "", 404)
	f.call(t, "PUT", "/api/agents/"+m.ID, "{}", 405)
}

func TestAgentsValidationErrors(t *testing.T) {
	f := newAgentFixture(t)
	cases := map[string]string{
		`{"runtime":"clawboo-native"}`:    "name is required",
		`{"name":"x"}`:                    "runtime is required",
		`{"name":"x","runtime":"gemini"}`: "unknown runtime 'gemini'",
		`{"name":"x","runtime":"clawboo-native","config":{"maxTurns":0}}`:                     "maxTurns must be from 1 to 100",
		`{"name":"x","runtime":"clawboo-native","config":{"tools":{"tasks":"all"}}}`:          `tools.tasks must be true, false or "read"`,
		`{"name":"x","runtime":"clawboo-native","config":{"fallbacks":[{},{},{},{},{}]}}`:     "at most 4 fallbacks",
		`{"name":"x","runtime":"clawboo-native","config":{"envVar":"` + agentSentinel + `"}}`: "envVar must be an environment variable name",
		`{"name":"x","runtime":"claude-code","config":{"maxTurns":3}}`:                        "config applies to clawboo-native agents only",
		`{"name":"x","runtime":"clawboo-mock","budgetUsd":"ten"}`:                             "malformed JSON",
		`{"name":"x","runtime":"clawboo-native"`:                                              "malformed JSON",
	}
	for body, want := range cases {
		b := f.call(t, "POST", "/api/agents", body, 400)
		if e := errorOf(t, b); !strings.Contains(e, want) {
			t.Errorf("%s: %q, want %q", body, e, want)
		}
	}
	a := f.create(t, `{"name":"x","runtime":"clawboo-native"}`)
	if e := errorOf(t, f.call(t, "PATCH", "/api/agents/"+a.ID, `{"runtime":"codex"}`, 400)); !strings.Contains(e, "runtime cannot be changed") {
		t.Fatal(e)
	}
	f.call(t, "PATCH", "/api/agents/nobody", `{"name":"y"}`, 404)
	// An unknown provider is allowed by the schema, and flagged.
	u := f.create(t, `{"name":"x","runtime":"clawboo-native","provider":"acme","model":"m1"}`)
	if len(u.Warnings) != 1 || !strings.Contains(u.Warnings[0], "unknown provider 'acme'") || u.ProviderReady {
		t.Fatalf("%+v", u)
	}
}

func TestAgentsCorruptConfigFallsBack(t *testing.T) {
	f := newAgentFixture(t)
	a := f.create(t, `{"name":"x","runtime":"clawboo-native","provider":"openai"}`)
	if _, err := f.st.Write().ExecContext(t.Context(), `UPDATE agents SET config = '{"maxTurns": -3' WHERE id = ?`, a.ID); err != nil {
		t.Fatal(err)
	}
	got := decode[map[string]agents.Agent](t, f.call(t, "GET", "/api/agents/"+a.ID, "", 200))["agent"]
	if got.Config.PrimaryModel != "claude-haiku-4-5" || got.Config.MaxTurns != 16 || len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "default config") {
		t.Fatalf("%+v", got)
	}
}

func TestAgentsDefaultProviderRoute(t *testing.T) {
	f := newAgentFixture(t)
	if p := decode[map[string]*string](t, f.call(t, "GET", "/api/settings/default-native-provider", "", 200))["provider"]; p != nil {
		t.Fatal(*p)
	}
	f.call(t, "PUT", "/api/settings/default-native-provider", `{"provider":"acme"}`, 400)
	if p := decode[map[string]*string](t, f.call(t, "PUT", "/api/settings/default-native-provider", `{"provider":"google"}`, 200))["provider"]; p == nil || *p != "google" {
		t.Fatal(p)
	}
	if a := f.create(t, `{"name":"g","runtime":"clawboo-native"}`); a.Provider != "google" || a.Model != "gemini-2.0-flash" || a.ProviderReady {
		t.Fatalf("%+v", a)
	}
	f.call(t, "PUT", "/api/settings/default-native-provider", `{"provider":null}`, 200)
	// Anthropic is connected in the fixture: first in KNOWN_PROVIDERS order.
	if a := f.create(t, `{"name":"g","runtime":"clawboo-native"}`); a.Provider != "anthropic" {
		t.Fatalf("%+v", a)
	}
}

func TestAgentsProviderReady(t *testing.T) {
	f := newAgentFixture(t)
	ctx := t.Context()
	ready := func(id string) bool {
		return decode[map[string]agents.Agent](t, f.call(t, "GET", "/api/agents/"+id, "", 200))["agent"].ProviderReady
	}
	oa := f.create(t, `{"name":"o","runtime":"clawboo-native","provider":"openai"}`)
	ol := f.create(t, `{"name":"l","runtime":"clawboo-native","provider":"ollama","model":"qwen3"}`)
	fb := f.create(t, `{"name":"f","runtime":"clawboo-native","provider":"openai","config":{"fallbacks":[{"provider":"anthropic","model":"claude-haiku-4-5"}]}}`)
	cc := f.create(t, `{"name":"c","runtime":"claude-code"}`)
	if ready(oa.ID) || ready(ol.ID) || !ready(fb.ID) {
		t.Fatal("before keys")
	}
	if cc.ProviderReady {
		t.Fatal("claude-code is not installed in the fixture")
	}
	if err := f.vault.Set(ctx, "OPENAI_API_KEY", "sk-openai-"+agentSentinel); err != nil {
		t.Fatal(err)
	}
	if !ready(oa.ID) {
		t.Fatal("openai key")
	}
	f.setEnv("OLLAMA_BASE_URL", "http://127.0.0.1:11434")
	if !ready(ol.ID) {
		t.Fatal("ollama base url")
	}
	list := string(f.call(t, "GET", "/api/agents", "", 200))
	if strings.Count(list, `"providerReady":true`) != 3 {
		t.Fatal(list)
	}
}

func TestAgentsBudgetUSD(t *testing.T) {
	f := newAgentFixture(t)
	a := f.create(t, `{"name":"b","runtime":"clawboo-native","budgetUsd":3}`)
	if a.BudgetUSD == nil || *a.BudgetUSD != 3 || *a.Config.BudgetUSD != 3 {
		t.Fatalf("%+v", a)
	}
	bs := decode[map[string][]budget.Budget](t, f.call(t, "GET", "/api/budgets", "", 200))["budgets"]
	if len(bs) != 1 || bs[0].Scope != budget.ScopeAgent || bs[0].ScopeID != a.ID || bs[0].Mode != budget.ModeCap || bs[0].LimitUSD != 3 {
		t.Fatalf("%+v", bs)
	}
	f.call(t, "PATCH", "/api/agents/"+a.ID, `{"budgetUsd":null}`, 200)
	if bs := decode[map[string][]budget.Budget](t, f.call(t, "GET", "/api/budgets", "", 200))["budgets"]; len(bs) != 0 {
		t.Fatalf("%+v", bs)
	}
	f.call(t, "PATCH", "/api/agents/"+a.ID, `{"config":{"budgetUsd":0.5}}`, 200)
	if b, err := f.ledger.Budget(t.Context(), budget.ScopeAgent, a.ID); err != nil || b.LimitNano != 500_000_000 {
		t.Fatalf("%+v %v", b, err)
	}
	f.call(t, "PATCH", "/api/agents/"+a.ID, `{"budgetUsd":-2}`, 400)
}

// waitRun waits for a run to reach the ledger with a terminal status.
func waitRun(t *testing.T, f *fixture, id string) store.Run {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if r, err := f.st.GetRun(t.Context(), id); err == nil && !r.Live() && !f.sup.IsLive(id) {
			return r
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("run %s did not finish", id)
	return store.Run{}
}

func TestAgentChatStartsARunInTheAgentsSession(t *testing.T) {
	f := newAgentFixture(t)
	m := f.create(t, `{"name":"Mock Pal","runtime":"clawboo-mock","model":"mock"}`)
	runID := decode[map[string]string](t, f.call(t, "POST", "/api/agents/"+m.ID+"/chat", `{"message":"!ok hello there"}`, 202))["runId"]
	run := waitRun(t, f.fixture, runID)
	if run.AgentID == nil || *run.AgentID != m.ID || run.Status != store.RunSucceeded || run.Summary != "hello there" || run.RuntimeID != "clawboo-mock" {
		t.Fatalf("%+v", run)
	}
	req := f.rec.last()
	if req.SessionKey != "agent:"+m.ID+":chat" || req.AgentID != m.ID || req.Model != "mock" {
		t.Fatalf("%+v", req)
	}
	// The run streams like any other.
	if b := string(f.call(t, "GET", "/api/runs/"+runID+"/events?follow=0", "", 200)); !strings.Contains(b, "hello there") {
		t.Fatal(b)
	}
	// A paused agent cap refuses the chat before it starts.
	f.call(t, "PATCH", "/api/agents/"+m.ID, `{"budgetUsd":0}`, 200)
	if _, err := f.ledger.Charge(t.Context(), budget.Charge{Scopes: budget.Scopes{AgentID: m.ID}, RunID: runID, RuntimeID: "clawboo-mock", Nano: 5, Kind: budget.KindReported, Model: "mock"}); err != nil {
		t.Fatal(err)
	}
	if e := decode[map[string]any](t, f.call(t, "POST", "/api/agents/"+m.ID+"/chat", `{"message":"hi"}`, 422)); e["reason"] != "budget_paused" {
		t.Fatal(e)
	}
	f.call(t, "POST", "/api/agents/"+m.ID+"/chat", `{"message":"  "}`, 400)
	f.call(t, "POST", "/api/agents/nobody/chat", `{"message":"hi"}`, 404)
	cc := f.create(t, `{"name":"c","runtime":"claude-code"}`)
	if e := errorOf(t, f.call(t, "POST", "/api/agents/"+cc.ID+"/chat", `{"message":"hi"}`, 501)); !strings.Contains(e, "claude-code") {
		t.Fatal(e)
	}
}

func TestAgentDeleteRefusedWhileARunIsLive(t *testing.T) {
	f := newAgentFixture(t)
	m := f.create(t, `{"name":"Busy","runtime":"clawboo-mock"}`)
	runID := decode[map[string]string](t, f.call(t, "POST", "/api/agents/"+m.ID+"/chat", `{"message":"!abort"}`, 202))["runId"]
	if e := errorOf(t, f.call(t, "DELETE", "/api/agents/"+m.ID, "", 409)); !strings.Contains(e, "live run") {
		t.Fatal(e)
	}
	f.call(t, "POST", "/api/runs/"+runID+"/abort", "", 202)
	waitRun(t, f.fixture, runID)
	f.call(t, "DELETE", "/api/agents/"+m.ID, "", 200)
	// The run's history stays, without the agent.
	if r, err := f.st.GetRun(t.Context(), runID); err != nil || r.AgentID != nil {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestAgentsNotWiredAnswers503(t *testing.T) {
	f := newFixture(t, nil)
	code, _, _ := f.do(t, "GET", "/api/agents", "")
	if code != 503 {
		t.Fatal(code)
	}
}
