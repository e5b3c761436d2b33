package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/internal/testkit"
)

// codexTestKey is the OpenAI key the run gets from the vault: it must
// reach the fake model and nowhere else.
const codexTestKey = "sk-proj-SENTINEL-codex-4b8e2d6a91"

// codexUser writes a user's ~/.codex that keeps the real codex offline on
// the fake Responses API (runtimes-protocols.md section 3.1), with the
// bundled gpt-5.5 catalog entry renamed fake-model and tool search off so
// MCP tools are offered directly.
func codexUser(t *testing.T, bin, dir, fakeURL string) {
	t.Helper()
	cmd := exec.Command(bin, "debug", "models", "--bundled")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CODEX_HOME=" + dir}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("codex debug models: %v", err)
	}
	var all struct {
		Models []map[string]any `json:"models"`
	}
	if err := json.Unmarshal(out, &all); err != nil {
		t.Fatal(err)
	}
	var entry map[string]any
	for _, m := range all.Models {
		if m["slug"] == "gpt-5.5" {
			entry = m
		}
	}
	if entry == nil {
		t.Fatal("no gpt-5.5 in codex's bundled catalog")
	}
	entry["slug"], entry["display_name"], entry["supports_search_tool"] = "fake-model", "fake-model", false
	catalog, _ := json.Marshal(map[string]any{"models": []any{entry}})
	if err := os.WriteFile(filepath.Join(dir, "model-catalog.json"), catalog, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`model = "fake-model"
model_catalog_json = %q
web_search = "disabled"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake OpenAI"
base_url = %q
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
plugins = false
`, filepath.Join(dir, "model-catalog.json"), fakeURL+"/v1")
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// codexEnv is a listening backend whose codex runs go to a fake model.
type codexEnv struct {
	b    *Backend
	fake *fakeresponses.Server
	home string
	logs *testkit.SyncBuffer
	// close closes the backend once (Close is not idempotent).
	close func()
}

func newCodexEnv(t *testing.T, ctx context.Context) *codexEnv {
	t.Helper()
	bin := testCLIBin(t, "codex")
	fake := fakeresponses.New()
	fsrv := httptest.NewServer(fake)
	t.Cleanup(fsrv.Close)

	home, userCodex := t.TempDir(), t.TempDir()
	codexUser(t, bin, userCodex, fsrv.URL)
	env := map[string]string{
		"HOME": home, config.EnvVault: "file", "CODEX_HOME": userCodex,
		"PATH": filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(home, getenv)
	if err != nil {
		t.Fatal(err)
	}
	logs := &testkit.SyncBuffer{}
	b, err := New(ctx, Options{
		Config: cfg, Getenv: getenv, Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Environ: func() []string { return []string{"HOME=" + home, "PATH=" + env["PATH"]} },
	})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	e := &codexEnv{b: b, fake: fake, home: home, logs: logs, close: func() { once.Do(func() { _ = b.Close(context.Background()) }) }}
	t.Cleanup(e.close)
	serveForTest(t, b)
	if err := b.Vault.Set(ctx, "OPENAI_API_KEY", codexTestKey); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestCodexBoardTask runs a board code task on the real codex end to end:
// the backend listening (so the CLI reaches the MCP servers over HTTP),
// the key from the vault, a real repository and worktree. The fake model
// has codex write a file with its shell tool, claim a subtask through the
// Tasks server, and answer; the task lands in review with the file in its
// diff, the run is charged as a token estimate, and the key is nowhere in
// the events, the logs or the home folder.
func TestCodexBoardTask(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	e := newCodexEnv(t, ctx)
	b, fake, home, logs := e.b, e.fake, e.home, e.logs
	h := authed(b)

	name, rt := "Coder", "codex"
	agent, err := b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	repo := e2eRepo(t)
	var created struct{ Task board.Task }
	mustTeam(t, e.b, "team-cx")
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Write the codex note", "teamId": "team-cx",
		"repoPath": repo, "kind": "code", "status": "todo",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create task: %d", code)
	}
	parent := created.Task
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Follow up", "teamId": "team-cx",
		"parentTaskId": parent.ID, "status": "todo",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create subtask: %d", code)
	}
	child := created.Task

	fake.SetRules(fakeresponses.Rule{Match: "Write the codex note", Steps: []fakeresponses.Step{
		{Text: "Writing the note.", Call: &fakeresponses.Call{
			Tool: "^exec_command$",
			Args: `{"cmd":"mkdir -p notes && printf 'written by codex\\n' > notes/codex.md"}`,
		}},
		{Call: &fakeresponses.Call{
			Tool: `clawboo.tasks/claim_task$`,
			Args: fmt.Sprintf(`{"taskId":%q,"assigneeAgentId":%q}`, child.ID, agent.ID),
		}},
		{Text: "done: {result}"},
	}})

	var res taskRunResult
	code := e2eDo(t, h, "POST", "/api/runtimes/codex/run", map[string]any{"taskId": parent.ID, "assigneeAgentId": agent.ID}, &res)
	reqs := fake.Requests()
	if code != http.StatusOK || !res.OK || !strings.HasPrefix(res.Summary, "done: ") {
		t.Fatalf("run: %d %+v\nmodel calls: %d\nlogs:\n%s", code, res, len(reqs), logs.String())
	}
	if len(reqs) != 3 {
		t.Fatalf("the model saw %d requests", len(reqs))
	}
	for i, r := range reqs {
		if r.APIKey != codexTestKey {
			t.Fatalf("request %d carried key %q, not the vault's", i, r.APIKey)
		}
	}
	if len(reqs[2].Outputs) != 2 || !strings.Contains(reqs[2].Outputs[1], agent.ID) {
		t.Fatalf("tool outputs %q", reqs[2].Outputs)
	}

	// The subtask is claimed by the agent, through the Tasks server.
	wantClaimedBy(t, h, child.ID, agent.ID)
	// The task is in review with the file in its diff.
	wantReviewDiff(t, h, res, parent.ID, "notes/codex.md", "written by codex")
	// Codex reports tokens, not dollars: the host estimates.
	if res.CostKind == nil || *res.CostKind != "token-estimate" || res.CostUSD == nil || *res.CostUSD <= 0 {
		t.Fatalf("cost %v kind %v, want a token estimate", deref(res.CostUSD), deref(res.CostKind))
	}
	// The managed home holds the agent's session, seeded from the user's.
	managed := filepath.Join(home, "runtimes", "codex", agent.ID)
	if mc, err := os.ReadFile(filepath.Join(managed, "config.toml")); err != nil ||
		!strings.Contains(string(mc), `model_provider = "fake"`) || !strings.Contains(string(mc), "[mcp_servers.clawboo-tasks]") {
		t.Fatalf("managed config: %v\n%s", err, mc)
	}

	// The key is nowhere but the request headers.
	rows, err := b.Store.ListEvents(ctx, res.RunID, 0, 10000)
	if err != nil || len(rows) == 0 {
		t.Fatalf("events: %d %v", len(rows), err)
	}
	var blob []byte
	for _, r := range rows {
		blob = append(append(blob, r.Data...), '\n')
	}
	mcpToken, err := b.mcpSecret(ctx, mcp.TokenSlot)
	if err != nil || len(mcpToken) < 16 {
		t.Fatalf("attach token: %v", err)
	}
	if strings.Contains(string(blob), codexTestKey) || strings.Contains(string(blob), mcpToken) {
		t.Fatal("a secret reached the stored events")
	}
	for _, want := range []string{"mcp__clawboo-tasks__claim_task", `"shell"`, "tool-result"} {
		if !strings.Contains(string(blob), want) {
			t.Fatalf("stored events lack %s: %s", want, blob)
		}
	}
	if strings.Contains(logs.String(), codexTestKey) || strings.Contains(logs.String(), mcpToken) {
		t.Fatal("a secret reached the logs")
	}
	e.close()
	_ = filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if data, _ := os.ReadFile(p); strings.Contains(string(data), codexTestKey) || strings.Contains(string(data), mcpToken) {
			t.Errorf("a secret is stored in %s", p)
		}
		return nil
	})
}

// TestCodexConversationResumes: two runs of one conversation through the
// supervisor; the host keeps the handle the first run reported and the
// second continues the same codex thread, charged only its own tokens.
func TestCodexConversationResumes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	e := newCodexEnv(t, ctx)
	e.fake.SetRules(
		fakeresponses.Rule{Match: "zebra", Steps: []fakeresponses.Step{{Text: "Noted.", Input: 1000, Output: 10}}},
		fakeresponses.Rule{Match: "what did I say", Steps: []fakeresponses.Step{{Text: "You said zebra.", Input: 2500, Output: 20}}})
	name, rt := "Chatter", "codex"
	agent, err := e.b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	run := func(msg string) store.Run {
		h, err := e.b.Supervisor.Start(ctx, supervisor.StartParams{
			RuntimeID: "codex", AgentID: agent.ID, Message: msg,
			SessionKey: "agent:" + agent.ID + ":chat",
		})
		if err != nil {
			t.Fatal(err)
		}
		r, err := h.Wait(ctx)
		if err != nil || r.Status != store.RunSucceeded || r.CostKind == nil || *r.CostKind != "token-estimate" {
			t.Fatalf("run %q: %+v %v", msg, r, err)
		}
		return r
	}
	first := run("remember the word zebra")
	second := run("what did I say")
	if first.InputTokens != 1000 || second.InputTokens != 2500 || second.OutputTokens != 20 || second.Summary != "You said zebra." {
		t.Fatalf("runs %+v then %+v", first, second)
	}
	reqs := e.fake.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if len(reqs) != 2 || !strings.Contains(last, "remember the word zebra") || !strings.Contains(last, "Noted.") {
		t.Fatalf("the second run did not continue the thread (%d requests)", len(reqs))
	}
}
