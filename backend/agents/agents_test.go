package agents

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/adapters/native"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/vault"
	"github.com/clawboo/desktop/internal/testkit"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type fixture struct {
	svc    *Service
	st     *store.Store
	vault  *vault.Vault
	ledger *budget.Ledger
	env    map[string]string
	logs   *testkit.SyncBuffer
	live   map[string]bool
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	v, err := vault.Open(vault.Options{Home: t.TempDir(), Getenv: func(k string) string { return env[k] }, ForceFile: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close(); st.Close() })
	f := &fixture{
		st: st, vault: v, env: env, logs: &testkit.SyncBuffer{}, live: map[string]bool{},
		ledger: budget.New(budget.Options{Store: st}),
	}
	f.svc = New(Options{
		Store: st, Budget: f.ledger, Vault: v,
		Log:          slog.New(slog.NewTextHandler(f.logs, nil)),
		RuntimeReady: func(_ context.Context, rt string) bool { return rt == "clawboo-mock" },
		LiveAgent:    func(id string) bool { return f.live[id] },
	})
	return f
}

func str(s string) *string { return &s }

func fp(v float64) *float64 { return &v }

func mustCreate(t *testing.T, f *fixture, body string) Agent {
	t.Helper()
	var in Input
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatal(err)
	}
	a, err := f.svc.Create(t.Context(), in)
	if err != nil {
		t.Fatalf("create %s: %v", body, err)
	}
	return a
}

func TestValidate(t *testing.T) {
	neg, nan := -1.0, 0.0
	nan /= nan
	cases := map[string]struct {
		mut  func(c *native.AgentConfig)
		want string
	}{
		"default":         {func(c *native.AgentConfig) {}, ""},
		"prompt too long": {func(c *native.AgentConfig) { c.SystemPrompt = strings.Repeat("x", native.MaxSystemPrompt+1) }, "systemPrompt"},
		"prompt at limit": {func(c *native.AgentConfig) { c.SystemPrompt = strings.Repeat("x", native.MaxSystemPrompt) }, ""},
		"no provider":     {func(c *native.AgentConfig) { c.PrimaryProvider = "" }, "primaryProvider"},
		"unknown ok":      {func(c *native.AgentConfig) { c.PrimaryProvider = "acme" }, ""},
		"no model":        {func(c *native.AgentConfig) { c.PrimaryModel = "" }, "primaryModel"},
		"five fallbacks":  {func(c *native.AgentConfig) { c.Fallbacks = make([]native.Fallback, 5) }, "at most 4 fallbacks"},
		"bad fallback":    {func(c *native.AgentConfig) { c.Fallbacks = []native.Fallback{{Provider: "openai"}} }, "fallbacks[0].model"},
		"key as envVar":   {func(c *native.AgentConfig) { c.EnvVar = "sk-ant-123" }, "envVar"},
		"no tasks":        {func(c *native.AgentConfig) { c.Tools.Tasks = "" }, "tools.tasks"},
		"turns zero":      {func(c *native.AgentConfig) { c.MaxTurns = 0 }, "maxTurns"},
		"turns 101":       {func(c *native.AgentConfig) { c.MaxTurns = 101 }, "maxTurns"},
		"turns 100":       {func(c *native.AgentConfig) { c.MaxTurns = 100 }, ""},
		"negative budget": {func(c *native.AgentConfig) { c.BudgetUSD = &neg }, "budgetUsd"},
		"NaN budget":      {func(c *native.AgentConfig) { c.BudgetUSD = &nan }, "budgetUsd"},
	}
	for name, tc := range cases {
		c := native.DefaultConfig()
		tc.mut(&c)
		err := Validate(c)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalid)):
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
	c := native.DefaultConfig()
	c.PrimaryProvider, c.Fallbacks = "acme", []native.Fallback{{Provider: "openai", Model: "gpt-4o"}, {Provider: "nope", Model: "m"}}
	if w := Warnings(c); len(w) != 2 || !strings.Contains(w[0], "acme") || !strings.Contains(w[1], "fallbacks[1]") {
		t.Fatalf("%q", w)
	}
}

func TestTaskAccessJSON(t *testing.T) {
	for in, want := range map[string]native.TasksAccess{`true`: native.TasksOn, `false`: native.TasksOff, `"read"`: native.TasksRead} {
		var got native.TasksAccess
		if err := json.Unmarshal([]byte(in), &got); err != nil || got != want {
			t.Fatalf("%s: %v %v", in, got, err)
		}
		b, _ := json.Marshal(got)
		if string(b) != in {
			t.Fatalf("%s round-trips as %s", in, b)
		}
	}
	var got native.TasksAccess
	if err := json.Unmarshal([]byte(`"write"`), &got); err == nil {
		t.Fatal("accepted \"write\"")
	}
	b, _ := json.Marshal(native.DefaultConfig())
	if !strings.Contains(string(b), `"tasks":"read"`) || strings.Contains(string(b), "shell") {
		t.Fatalf("default config JSON %s", b)
	}
}

// ParseStored is the one reading of a stored config (the native adapter's
// own parser went with the second config type): a value that does not
// decode or validate is an error, which Load turns into the default;
// absent fields keep the default's values.
func TestParseStored(t *testing.T) {
	for _, raw := range []string{`{`, `{"primaryProvider":""}`, `{"primaryProvider":"openai","primaryModel":"gpt-4o","tools":{"tasks":"write"}}`, `{"primaryProvider":"openai","primaryModel":"gpt-4o","maxTurns":-1}`} {
		if _, err := ParseStored([]byte(raw)); err == nil || !errors.Is(err, ErrInvalid) {
			t.Fatalf("%s: %v", raw, err)
		}
	}
	c, err := ParseStored([]byte(`{"systemPrompt":"s","primaryProvider":"openai","primaryModel":"gpt-4o","envVar":"OPENAI_API_KEY","tools":{"tasks":true,"memory":false}}`))
	if err != nil || c.PrimaryProvider != "openai" || c.Tools.Tasks != native.TasksOn || c.Tools.Memory || !c.Tools.TeamChat || c.MaxTurns != native.DefaultMaxTurns {
		t.Fatalf("valid config %+v %v", c, err)
	}
	b, _ := json.Marshal(native.DefaultConfig())
	if c, err := ParseStored(b); err != nil || c.Tools.Tasks != native.TasksRead || c.SystemPrompt != native.DefaultSystemPrompt {
		t.Fatalf("round trip %s: %+v %v", b, c, err)
	}
}

func TestCorruptStoredConfigFallsBackToDefault(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	a := mustCreate(t, f, `{"name":"Writer","runtime":"clawboo-native","provider":"openai","config":{"systemPrompt":"Write well.","maxTurns":8}}`)
	c, err := f.svc.Load(ctx, a.ID)
	if err != nil || c.SystemPrompt != "Write well." || c.MaxTurns != 8 || c.PrimaryProvider != "openai" || c.EnvVar != "OPENAI_API_KEY" {
		t.Fatalf("%+v %v", c, err)
	}
	for _, bad := range []string{`{not json`, `{"maxTurns":0}`, `{"tools":{"tasks":"write"}}`, `[]`, `{"maxTurns":"many"}`} {
		if _, err := f.st.Write().ExecContext(ctx, `UPDATE agents SET config = ? WHERE id = ?`, bad, a.ID); err != nil {
			t.Fatal(err)
		}
		c, err := f.svc.Load(ctx, a.ID)
		if err != nil {
			t.Fatalf("%s: %v", bad, err)
		}
		def := native.DefaultConfig()
		if c.PrimaryModel != def.PrimaryModel || c.MaxTurns != def.MaxTurns || c.Tools.Tasks != native.TasksRead {
			t.Fatalf("%s: %+v", bad, c)
		}
		got, err := f.svc.Get(ctx, a.ID)
		if err != nil || got.Config == nil || got.Config.PrimaryProvider != "anthropic" || len(got.Warnings) == 0 {
			t.Fatalf("%s: %+v %v", bad, got, err)
		}
	}
	if !strings.Contains(f.logs.String(), "agent config is invalid") || strings.Contains(f.logs.String(), "Write well") {
		t.Fatalf("log: %s", f.logs.String())
	}
	if _, err := f.svc.Load(ctx, "nobody"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	// A row with no stored config (an older agent) runs with the default.
	if err := f.st.InsertAgent(ctx, "old", "Old", Native, 1); err != nil {
		t.Fatal(err)
	}
	if c, err := f.svc.Load(ctx, "old"); err != nil || c.PrimaryModel != "claude-haiku-4-5" {
		t.Fatalf("%+v %v", c, err)
	}
	// Saving again repairs the corrupt value.
	if _, err := f.svc.Update(ctx, a.ID, Input{Config: json.RawMessage(`{"maxTurns":5}`)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.svc.Get(ctx, a.ID); len(got.Warnings) != 0 || got.Config.MaxTurns != 5 {
		t.Fatalf("%+v", got)
	}
}

func TestDefaultProviderSelection(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	plain := `{"name":"N","runtime":"clawboo-native"}`
	if a := mustCreate(t, f, plain); a.Provider != "anthropic" || a.Model != "claude-haiku-4-5" || a.Config.EnvVar != "ANTHROPIC_API_KEY" {
		t.Fatalf("nothing connected: %+v", a)
	}
	// Groq and OpenRouter connected: OpenRouter comes first in KNOWN_PROVIDERS.
	if err := f.vault.Set(ctx, "GROQ_API_KEY", "gsk-test-1"); err != nil {
		t.Fatal(err)
	}
	if a := mustCreate(t, f, plain); a.Provider != "groq" || a.Config.EnvVar != "GROQ_API_KEY" || a.Model != DefaultModel("groq") {
		t.Fatalf("groq: %+v", a)
	}
	if err := f.vault.Set(ctx, "OPENROUTER_API_KEY", "sk-or-test-1"); err != nil {
		t.Fatal(err)
	}
	if a := mustCreate(t, f, plain); a.Provider != "openrouter" {
		t.Fatalf("openrouter: %+v", a)
	}
	// The user's default wins over connection order.
	if err := f.svc.SetDefaultProvider(ctx, "mistral"); err != nil {
		t.Fatal(err)
	}
	if a := mustCreate(t, f, plain); a.Provider != "mistral" || a.Config.EnvVar != "MISTRAL_API_KEY" {
		t.Fatalf("user default: %+v", a)
	}
	if err := f.svc.SetDefaultProvider(ctx, "acme"); !errors.Is(err, ErrInvalid) {
		t.Fatal(err)
	}
	// An explicit provider wins over everything.
	if a := mustCreate(t, f, `{"name":"N","runtime":"clawboo-native","provider":"ollama","model":"qwen3"}`); a.Provider != "ollama" || a.Model != "qwen3" || a.Config.EnvVar != "" {
		t.Fatalf("explicit: %+v", a)
	}
	if err := f.svc.SetDefaultProvider(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if p, _ := f.svc.DefaultProvider(ctx); p != "" {
		t.Fatal(p)
	}
}

func TestProviderReady(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	openai := mustCreate(t, f, `{"name":"O","runtime":"clawboo-native","provider":"openai"}`)
	withFallback := mustCreate(t, f, `{"name":"F","runtime":"clawboo-native","provider":"anthropic","config":{"fallbacks":[{"provider":"groq","model":"m"}]}}`)
	llama := mustCreate(t, f, `{"name":"L","runtime":"clawboo-native","provider":"ollama"}`)
	mock := mustCreate(t, f, `{"name":"M","runtime":"clawboo-mock"}`)
	cc := mustCreate(t, f, `{"name":"C","runtime":"claude-code","model":"sonnet"}`)
	ready := func() map[string]bool {
		list, err := f.svc.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, a := range list {
			out[a.ID] = a.ProviderReady
		}
		return out
	}
	want := func(step string, got map[string]bool, w map[string]bool) {
		t.Helper()
		for id, v := range w {
			if got[id] != v {
				t.Errorf("%s: %s ready = %v, want %v", step, id, got[id], v)
			}
		}
	}
	want("no keys", ready(), map[string]bool{openai.ID: false, withFallback.ID: false, llama.ID: false, mock.ID: true, cc.ID: false})
	if err := f.vault.Set(ctx, "OPENAI_API_KEY", "sk-test-openai"); err != nil {
		t.Fatal(err)
	}
	want("openai key", ready(), map[string]bool{openai.ID: true, withFallback.ID: false})
	if err := f.vault.Set(ctx, "GROQ_API_KEY", "gsk-test"); err != nil {
		t.Fatal(err)
	}
	want("fallback key", ready(), map[string]bool{withFallback.ID: true, llama.ID: false})
	f.env["OLLAMA_BASE_URL"] = "http://127.0.0.1:11434"
	want("ollama url", ready(), map[string]bool{llama.ID: true})
	// A disconnected native runtime does not count ambient variables.
	if err := f.vault.SetDisconnected(Native, true); err != nil {
		t.Fatal(err)
	}
	want("disconnected", ready(), map[string]bool{llama.ID: false, openai.ID: true})
}

func TestBudgetMintsAndRemovesAgentCap(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	a := mustCreate(t, f, `{"name":"Spender","runtime":"clawboo-native","config":{"budgetUsd":2.5}}`)
	b, err := f.ledger.Budget(ctx, budget.ScopeAgent, a.ID)
	if err != nil || b.Mode != budget.ModeCap || b.LimitNano != 2_500_000_000 || *a.BudgetUSD != 2.5 || *a.Config.BudgetUSD != 2.5 {
		t.Fatalf("%+v %+v %v", a, b, err)
	}
	a, err = f.svc.Update(ctx, a.ID, Input{BudgetUSD: Optional[float64]{Set: true, Value: fp(4)}})
	if err != nil || *a.Config.BudgetUSD != 4 {
		t.Fatalf("%+v %v", a, err)
	}
	if b, _ := f.ledger.Budget(ctx, budget.ScopeAgent, a.ID); b.LimitNano != 4_000_000_000 {
		t.Fatalf("%+v", b)
	}
	if a, err = f.svc.Update(ctx, a.ID, Input{Config: json.RawMessage(`{"budgetUsd":null}`)}); err != nil || a.BudgetUSD != nil {
		t.Fatalf("%+v %v", a, err)
	}
	if _, err := f.ledger.Budget(ctx, budget.ScopeAgent, a.ID); !errors.Is(err, budget.ErrNotFound) {
		t.Fatalf("budget kept: %v", err)
	}
	// Other runtimes take budgetUsd at the top level.
	m := mustCreate(t, f, `{"name":"Mock","runtime":"clawboo-mock","budgetUsd":1}`)
	if b, err := f.ledger.Budget(ctx, budget.ScopeAgent, m.ID); err != nil || b.Mode != budget.ModeCap {
		t.Fatalf("%+v %v", b, err)
	}
	// Deleting the agent removes its budget; a live run blocks it.
	f.live[m.ID] = true
	if err := f.svc.Delete(ctx, m.ID); !errors.Is(err, ErrBusy) {
		t.Fatal(err)
	}
	f.live[m.ID] = false
	if err := f.svc.Delete(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ledger.Budget(ctx, budget.ScopeAgent, m.ID); !errors.Is(err, budget.ErrNotFound) {
		t.Fatalf("budget kept: %v", err)
	}
	if err := f.svc.Delete(ctx, m.ID); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
}

func TestCreateAndPatchRefusals(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	f.svc.opts.KnownRuntime = func(rt string) bool { return rt == Native || rt == "clawboo-mock" }
	cases := map[string]string{
		`{"runtime":"clawboo-native"}`:             "name is required",
		`{"name":"  ","runtime":"clawboo-native"}`: "name is required",
		`{"name":"x"}`:                                                        "runtime is required",
		`{"name":"x","runtime":"gemini-cli"}`:                                 "unknown runtime",
		`{"name":"x","runtime":"clawboo-mock","config":{}}`:                   "config applies",
		`{"name":"x","runtime":"clawboo-native","config":{"maxTurns":500}}`:   "maxTurns",
		`{"name":"x","runtime":"clawboo-native","config":{"shel":true}}`:      `unknown field "shel"`,
		`{"name":"x","runtime":"clawboo-native","config":{"maxTurns":"a"}}`:   "maxTurns must be a int",
		`{"name":"x","runtime":"clawboo-native","config":"sk-ant-oops"}`:      "config",
		`{"name":"x","runtime":"clawboo-mock","budgetUsd":-1}`:                "budgetUsd",
		`{"name":"x","runtime":"clawboo-native","config":{"envVar":"sk-ab"}}`: "envVar",
	}
	for body, want := range cases {
		var in Input
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			t.Fatal(err)
		}
		_, err := f.svc.Create(ctx, in)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "sk-") {
			t.Errorf("%s: error echoes the value: %v", body, err)
		}
	}
	a := mustCreate(t, f, `{"name":"Code Reviewer!","runtime":"clawboo-native"}`)
	if !strings.HasPrefix(a.ID, "code-reviewer-") || len(a.ID) != len("code-reviewer-")+6 {
		t.Fatal(a.ID)
	}
	if _, err := f.svc.Update(ctx, a.ID, Input{Runtime: str("clawboo-mock")}); !errors.Is(err, ErrInvalid) {
		t.Fatal(err)
	}
	if _, err := f.svc.Update(ctx, "nobody", Input{Name: str("x")}); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	// Switching provider resets the model and key slot it implied.
	a, err := f.svc.Update(ctx, a.ID, Input{Provider: str("openai"), Name: str("Reviewer")})
	if err != nil || a.Model != "gpt-4o-mini" || a.Config.EnvVar != "OPENAI_API_KEY" || a.Name != "Reviewer" {
		t.Fatalf("%+v %v", a, err)
	}
	if id := newID("日本語"); !strings.HasPrefix(id, "agent-") {
		t.Fatal(id)
	}
}
