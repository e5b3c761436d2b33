package codex

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
)

func write(t *testing.T, path, body string, mod time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const (
	loginA = `{"OPENAI_API_KEY":null,"tokens":{"id_token":"a","access_token":"a","refresh_token":"a"}}`
	loginB = `{"OPENAI_API_KEY":null,"tokens":{"id_token":"b","access_token":"b","refresh_token":"b"}}`
)

// TestAuthCopiedOnlyWhenNewer: the user's login is copied into the
// managed home when it is newer, never over a newer managed copy (a token
// Codex refreshed there), and the user's file is never touched.
func TestAuthCopiedOnlyWhenNewer(t *testing.T) {
	user, managed := t.TempDir(), filepath.Join(t.TempDir(), "agent")
	none := func(string) bool { return false }
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	write(t, filepath.Join(user, "auth.json"), loginA, t0)

	if _, err := prepareHome(homeSetup{Dir: managed, UserHome: user, HasKey: none}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(managed, "auth.json")); got != loginA {
		t.Fatalf("first copy: %s", got)
	}
	// Codex refreshed the managed copy: it is newer and stays.
	write(t, filepath.Join(managed, "auth.json"), loginB, t0.Add(time.Minute))
	if _, err := prepareHome(homeSetup{Dir: managed, UserHome: user, HasKey: none}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(managed, "auth.json")); got != loginB {
		t.Fatalf("an older user login overwrote the managed one: %s", got)
	}
	// The user logged in again: newer than the managed copy, copied.
	write(t, filepath.Join(user, "auth.json"), loginA, t0.Add(2*time.Minute))
	if _, err := prepareHome(homeSetup{Dir: managed, UserHome: user, HasKey: none}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(managed, "auth.json")); got != loginA {
		t.Fatalf("a newer user login was not copied: %s", got)
	}
	st, _ := os.Stat(filepath.Join(user, "auth.json"))
	if got := read(t, filepath.Join(user, "auth.json")); got != loginA || !st.ModTime().Equal(t0.Add(2*time.Minute)) {
		t.Fatal("the user's auth.json was written")
	}
}

// TestConfigKeepsTheUsers: the managed config.toml is the user's (model,
// providers, settings) with stale Clawboo MCP tables replaced by ours.
func TestConfigKeepsTheUsers(t *testing.T) {
	user, managed := t.TempDir(), filepath.Join(t.TempDir(), "agent")
	cfg := "model = \"my-model\"\nmodel_provider = \"corp\"\n\n[model_providers.corp]\nbase_url = \"https://llm.corp/v1\"\nenv_key = \"CORP_KEY\" # the team key\n\n" +
		"[mcp_servers.clawboo-tasks]\nurl = \"http://old/mcp/tasks\"\n\n[mcp_servers.clawboo-tasks.env]\nX = \"1\"\n\n[mcp_servers.mine]\ncommand = \"my-mcp\"\n\n[features]\nplugins = false\n"
	write(t, filepath.Join(user, "config.toml"), cfg, time.Now())
	ours := "[mcp_servers.clawboo-tasks]\nurl = \"http://127.0.0.1:1/mcp/tasks\"\nbearer_token_env_var = \"CLAWBOO_MCP_TOKEN\"\n"
	keys := map[string]bool{"CORP_KEY": true}
	p, err := prepareHome(homeSetup{Dir: managed, UserHome: user, MCP: ours, HasKey: func(n string) bool { return keys[n] }})
	if err != nil {
		t.Fatal(err)
	}
	if p.ProviderEnv != "CORP_KEY" || p.Model != "my-model" {
		t.Fatalf("provisioned %+v", p)
	}
	got := read(t, filepath.Join(managed, "config.toml"))
	for _, want := range []string{
		`model = "my-model"`, "[model_providers.corp]", `base_url = "https://llm.corp/v1"`, "[mcp_servers.mine]",
		"[features]\nplugins = false", "http://127.0.0.1:1/mcp/tasks", `bearer_token_env_var = "CLAWBOO_MCP_TOKEN"`,
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("managed config lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "http://old") || strings.Contains(got, "X = \"1\"") || strings.Count(got, "[mcp_servers.clawboo-tasks]") != 1 {
		t.Fatalf("stale Clawboo tables kept:\n%s", got)
	}
	// The corporate provider without its key has no credentials.
	keys["CORP_KEY"] = false
	if _, err := prepareHome(homeSetup{Dir: managed, UserHome: user, HasKey: func(n string) bool { return keys[n] }}); err == nil {
		t.Fatal("a provider without its key passed")
	}
}

// TestMissingCredentials: no login, no API key: the run fails at start
// with the message that says what to do, before any process starts.
func TestMissingCredentials(t *testing.T) {
	clawboo := t.TempDir()
	a := New(Options{Find: func() (string, bool) { return "/nonexistent/codex", true }, Home: clawboo, UserHome: t.TempDir()})
	req := executor.StartRequest{RunID: "r1", AgentID: "agent-7", Message: "hi", Emitter: executor.NewEmitter("r1", 0)}
	_, err := a.Start(context.Background(), req)
	want := "no Codex credentials provisioned for managed home " + filepath.Join(clawboo, "runtimes", "codex", "agent-7")
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "codex login") {
		t.Fatalf("start: %v", err)
	}
	// An API key from the vault is enough.
	a.opts.Key = func(_ context.Context, name string) string {
		if name == "OPENAI_API_KEY" {
			return "sk-x"
		}
		return ""
	}
	req.Emitter = executor.NewEmitter("r1", 0)
	run, err := a.Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	evs := executortest.Collect(t, context.Background(), run)
	if d := executortest.Done(t, evs); d.Reason != executor.DoneError {
		t.Fatalf("a missing binary: %s", executortest.Describe(evs))
	}
}

// TestThrowawayHome: a run with no agent gets a temporary home (where
// codex keeps that run's session), removed once its child is gone.
func TestThrowawayHome(t *testing.T) {
	w := newWorld(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	started := w.start(ctx, w.adapter(), executor.StartRequest{Message: "hi"})
	r := started.(*run)
	home := r.home
	evs := executortest.Collect(t, ctx, started)
	if executortest.Done(t, evs).Reason != executor.DoneSuccess {
		t.Fatalf("events: %s", executortest.Describe(evs))
	}
	if !strings.HasPrefix(home, os.TempDir()) || !r.throwaway {
		t.Fatalf("home %q is not a throwaway", home)
	}
	if sessions, _ := filepath.Glob(filepath.Join(home, "sessions", "*")); len(sessions) == 0 {
		t.Fatalf("codex kept no session in the throwaway home %s", home)
	}
	if _, err := os.Stat(filepath.Join(w.clawboo, "runtimes", "codex")); !os.IsNotExist(err) {
		t.Fatalf("a run without an agent used a managed home: %v", err)
	}
	settle(t, w.adapters)
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Fatalf("throwaway home %s left behind: %v", home, err)
	}
}

// TestWriteContext writes into the run's folder, and nothing without one.
func TestWriteContext(t *testing.T) {
	dir := t.TempDir()
	r := &run{req: executor.StartRequest{WorkDir: dir}}
	if err := r.WriteContext(context.Background(), "team notes/../x", "be brief"); err == nil {
		t.Fatal("a key that is not a plain name must be refused")
	}
	if err := r.WriteContext(context.Background(), "team-notes", "be brief"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, ".clawboo", "context", "team-notes.md")); got != "be brief" {
		t.Fatalf("context file %q", got)
	}
	none := &run{}
	if err := none.WriteContext(context.Background(), "k", "v"); err != nil {
		t.Fatal(err)
	}
	if err := none.SetModel(context.Background(), "gpt-x"); err != nil {
		t.Fatal(err)
	}
}
