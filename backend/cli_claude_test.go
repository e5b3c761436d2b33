package backend

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/adapters/claudecode"
	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/fakes/fakeanthropic"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

// claudeTestKey is the Anthropic key the runs get from the vault: it must
// reach the fake model and nowhere else.
const claudeTestKey = "sk-ant-SENTINEL-claude-7d41c9e0b3"

// claudeRig is a listening backend whose claude-code runtime is the real
// CLI (found on PATH by the resolver), kept offline on fake (the user's
// own environment names the fake API and the offline switches, as
// runtimes-protocols.md section 2.1 gives them), with the key in the
// vault.
type claudeRig struct {
	b      *Backend
	h      http.Handler
	home   string
	getenv func(string) string // the backend's environment (the vault's too)
	logs   *testkit.SyncBuffer
	fake   *fakeanthropic.Server
}

func newClaudeRig(t *testing.T, ctx context.Context) *claudeRig {
	t.Helper()
	rg := newClaudeRigWith(t, ctx, nil)
	if err := rg.b.Vault.Set(ctx, claudeKeyName, claudeTestKey); err != nil {
		t.Fatal(err)
	}
	return rg
}

// newClaudeLoginRig is a claude rig whose user is signed in to claude.ai
// (the credentials file /login writes) with no key in the vault.
func newClaudeLoginRig(t *testing.T, ctx context.Context) *claudeRig {
	t.Helper()
	return newClaudeRigWith(t, ctx, func(user string) {
		dir := filepath.Join(user, ".claude")
		cred := fmt.Sprintf(`{"claudeAiOauth":{"accessToken":%q,"refreshToken":"sk-ant-ort01-SENTINEL-refresh","expiresAt":%d,"scopes":["user:inference","user:profile"],"subscriptionType":"max"}}`,
			claudeLoginToken, time.Now().Add(24*time.Hour).UnixMilli())
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".credentials.json"), []byte(cred), 0o600); err != nil {
			t.Fatal(err)
		}
	})
}

func newClaudeRigWith(t *testing.T, ctx context.Context, prep func(user string)) *claudeRig {
	t.Helper()
	bin := testCLIBin(t, "claude")
	fake := fakeanthropic.New()
	fsrv := httptest.NewServer(fake)
	t.Cleanup(fsrv.Close)
	home, user := t.TempDir(), t.TempDir()
	path := filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
	env := map[string]string{"HOME": user, config.EnvVault: "file", "PATH": path}
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(home, getenv)
	if err != nil {
		t.Fatal(err)
	}
	environ := []string{
		"HOME=" + user, "PATH=" + path, "CLAUDE_CONFIG_DIR=" + filepath.Join(user, ".claude"),
		"ANTHROPIC_BASE_URL=" + fsrv.URL, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1", "CLAUDE_CODE_MAX_RETRIES=0",
	}
	if prep != nil {
		prep(user)
	}
	logs := &testkit.SyncBuffer{}
	b, err := New(ctx, Options{
		Config: cfg, Getenv: getenv, Environ: func() []string { return environ },
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	serveForTest(t, b)
	t.Cleanup(func() {
		_ = b.Close(context.Background())
		// Every CLI is gone before the folders are removed.
		a, _ := b.Registry.Get("claude-code")
		wctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := a.(*claudecode.Adapter).Wait(wctx); err != nil {
			t.Errorf("claude children not reaped: %v", err)
		}
	})
	return &claudeRig{b: b, h: authed(b), home: home, getenv: getenv, logs: logs, fake: fake}
}

// noKey fails when the key or the MCP attach token is in the run's
// stored events, or the key in the logs or any file under the Clawboo
// home.
func (rg *claudeRig) noKey(t *testing.T, ctx context.Context, runIDs ...string) {
	t.Helper()
	token, ok := rg.b.Vault.Get(ctx, mcp.TokenSlot)
	if !ok || len(token) < 32 {
		t.Fatal("no MCP attach token")
	}
	for _, id := range runIDs {
		rows, err := rg.b.Store.ListEvents(ctx, id, 0, 10000)
		if err != nil || len(rows) == 0 {
			t.Fatalf("events of %s: %d %v", id, len(rows), err)
		}
		for _, r := range rows {
			if strings.Contains(string(r.Data), claudeTestKey) || strings.Contains(string(r.Data), token) {
				t.Fatalf("a secret reached a stored event: %s", r.Data)
			}
		}
	}
	if strings.Contains(rg.logs.String(), claudeTestKey) {
		t.Fatal("the key reached the logs")
	}
	scanHomeFor(t, rg.home, claudeTestKey)
}

// TestClaudeBoardTask runs a board code task on the real claude end to
// end: the fake model has it write a file with Bash in the task's
// worktree, claim a subtask through the Tasks server (over HTTP, with the
// attach token), and answer. The task lands in review with the file in
// its diff, the run is charged the CLI's own USD (ledger kind reported),
// and the key is nowhere but the API requests.
func TestClaudeBoardTask(t *testing.T) {
	if mcp.TokenEnv != claudecode.TokenEnv {
		t.Fatalf("the MCP token travels as %s, the adapter names %s", mcp.TokenEnv, claudecode.TokenEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	rg := newClaudeRig(t, ctx)
	h := rg.h

	name, rt := "Claude coder", "claude-code"
	agent, err := rg.b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	repo := e2eRepo(t)
	var created struct{ Task board.Task }
	mustTeam(t, rg.b, "team-cc")
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Write the claude note", "teamId": "team-cc",
		"repoPath": repo, "kind": "code", "status": "todo",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create task: %d", code)
	}
	parent := created.Task
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Follow up", "teamId": "team-cc",
		"parentTaskId": parent.ID, "status": "todo",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create subtask: %d", code)
	}
	child := created.Task

	// The command also records the environment a runtime's own children
	// get: the API token must never be in it.
	envDump := filepath.Join(t.TempDir(), "claude-child.env")
	rg.fake.SetRules(fakeanthropic.Rule{
		Match: "Write the claude note", Tool: "^Bash$", TextBefore: "Writing the note.",
		Input: map[string]any{"command": "mkdir -p notes && printf 'written by claude\\n' > notes/claude.md && env > '" + envDump + "'", "description": "write the note"},
		Then: &fakeanthropic.Rule{
			Tool:      "^mcp__clawboo-tasks__claim_task$",
			Input:     map[string]any{"taskId": child.ID, "assigneeAgentId": agent.ID},
			AfterTool: "done: {result}",
		},
	})

	var res taskRunResult
	code := e2eDo(t, h, "POST", "/api/runtimes/claude-code/run", map[string]any{"taskId": parent.ID, "assigneeAgentId": agent.ID}, &res)
	reqs := rg.fake.Requests()
	if code != http.StatusOK || !res.OK || !strings.HasPrefix(res.Summary, "done: ") {
		t.Fatalf("run: %d %+v\nmodel calls: %+v\nlogs:\n%s", code, res, reqs, rg.logs.String())
	}
	if len(reqs) != 3 {
		t.Fatalf("the model saw %d requests", len(reqs))
	}
	for i, r := range reqs {
		if r.APIKey != claudeTestKey {
			t.Fatalf("request %d carried key %q, not the vault's", i, r.APIKey)
		}
	}
	if !strings.Contains(reqs[2].Result, agent.ID) || strings.Contains(reqs[2].Result, "error") {
		t.Fatalf("claim_task said %q", reqs[2].Result)
	}

	// The subtask is claimed by the agent, through the Tasks server.
	wantClaimedBy(t, h, child.ID, agent.ID)
	// The task is in review with the file in its diff.
	wantReviewDiff(t, h, res, parent.ID, "notes/claude.md", "written by claude")
	// Claude reports dollars: three model calls at the CLI's opus price
	// ($0.001 each for the fake's 100 in and 20 out tokens), recorded as
	// reported.
	if res.CostKind == nil || *res.CostKind != "reported" || res.CostUSD == nil || fmt.Sprintf("%.6f", *res.CostUSD) != "0.003000" {
		t.Fatalf("cost %v kind %v, want 0.003 reported", deref(res.CostUSD), deref(res.CostKind))
	}

	rows, err := rg.b.Store.ListEvents(ctx, res.RunID, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	var blob strings.Builder
	for _, r := range rows {
		blob.Write(r.Data)
		blob.WriteByte('\n')
	}
	for _, want := range []string{"mcp__clawboo-tasks__claim_task", `"Bash"`, "tool-result", `"session":"`} {
		if !strings.Contains(blob.String(), want) {
			t.Fatalf("stored events lack %s: %s", want, blob.String())
		}
	}
	rg.noKey(t, ctx, res.RunID)
	apiToken, err := config.ReadAPIToken(rg.home)
	if err != nil {
		t.Fatal(err)
	}
	childEnv, err := os.ReadFile(envDump)
	if err != nil || !strings.Contains(string(childEnv), "PATH=") {
		t.Fatalf("the runtime's child recorded no environment: %v", err)
	}
	if strings.Contains(string(childEnv), apiToken) {
		t.Fatal("the API token reached a runtime's child environment")
	}
	for _, id := range []string{res.RunID} {
		rows, _ := rg.b.Store.ListEvents(ctx, id, 0, 10000)
		for _, r := range rows {
			if strings.Contains(string(r.Data), apiToken) {
				t.Fatal("the API token reached a stored event")
			}
		}
	}
}

// TestClaudeChatResumes: two turns of an agent's 1:1 chat through the
// API; the host hands the first run's session back as the resume handle,
// so the CLI sends the model the whole conversation, and each run is
// charged only its own share.
func TestClaudeChatResumes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	rg := newClaudeRig(t, ctx)
	rg.fake.SetRules(fakeanthropic.Rule{Match: "zebra", Text: "Noted."}, fakeanthropic.Rule{Match: "remember", Text: "It was zebra."})
	name, rt := "Claude chat", "claude-code"
	agent, err := rg.b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	turn := func(msg string) store.Run {
		var started struct{ RunID string }
		if code := e2eDo(t, rg.h, "POST", "/api/agents/"+agent.ID+"/chat", map[string]any{"message": msg}, &started); code != http.StatusAccepted {
			t.Fatalf("chat: %d", code)
		}
		for ctx.Err() == nil {
			r, err := rg.b.Store.GetRun(ctx, started.RunID)
			if err == nil && !r.Live() {
				return r
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatal("chat turn did not finish")
		return store.Run{}
	}
	first := turn("the word is zebra")
	second := turn("do you remember the word")
	for _, r := range []store.Run{first, second} {
		if r.Status != store.RunSucceeded || r.CostKind == nil || *r.CostKind != "reported" || r.CostUSD == nil || *r.CostUSD != 0.001 {
			t.Fatalf("run %+v (cost %v %v)", r, deref(r.CostUSD), deref(r.CostKind))
		}
	}
	if second.Summary != "It was zebra." {
		t.Fatalf("second turn: %+v", second)
	}
	reqs := rg.fake.Requests()
	if got := strings.Join(reqs[len(reqs)-1].UserTexts, "|"); got != "the word is zebra|do you remember the word" {
		t.Fatalf("the resumed request had %q", got)
	}
	rg.noKey(t, ctx, first.ID, second.ID)
}

// TestClaudeSteerAndAbortThroughTheAPI: a chat turn whose shell command
// runs for a minute takes a steer (queued for the next turn boundary) and
// then an abort through the API: the run is recorded as aborted within
// seconds, and the CLI and its command are gone.
func TestClaudeSteerAndAbortThroughTheAPI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	rg := newClaudeRig(t, ctx)
	rg.fake.SetRules(fakeanthropic.Rule{
		Match: "sleepy", Tool: "^Bash$", TextBefore: "Sleeping.",
		Input: map[string]any{"command": "sleep 67.3", "description": "sleep"}, AfterTool: "slept",
	})
	name, rt := "Claude sleeper", "claude-code"
	agent, err := rg.b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	var started struct{ RunID string }
	if code := e2eDo(t, rg.h, "POST", "/api/agents/"+agent.ID+"/chat", map[string]any{"message": "sleepy time"}, &started); code != http.StatusAccepted {
		t.Fatalf("chat: %d", code)
	}
	id := started.RunID
	for calling := false; !calling; time.Sleep(50 * time.Millisecond) {
		if ctx.Err() != nil {
			t.Fatal("no tool call")
		}
		rows, _ := rg.b.Store.ListEvents(ctx, id, 0, 1000)
		for _, r := range rows {
			calling = calling || strings.Contains(string(r.Data), `"kind":"tool-call"`)
		}
	}
	// The command is running (so its absence after the abort means
	// something).
	for len(procsRunning("sleep\x0067.3")) == 0 {
		if ctx.Err() != nil {
			t.Fatal("the agent's command never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var steer struct{ Result string }
	if code := e2eDo(t, rg.h, "POST", "/api/runs/"+id+"/steer", map[string]any{"text": "stop sleeping", "mode": "next"}, &steer); code != http.StatusOK || steer.Result != "queued" {
		t.Fatalf("steer: %d %+v", code, steer)
	}
	aborted := time.Now()
	if code := e2eDo(t, rg.h, "POST", "/api/runs/"+id+"/abort", nil, nil); code != http.StatusOK && code != http.StatusAccepted {
		t.Fatalf("abort: %d", code)
	}
	var run store.Run
	for ctx.Err() == nil {
		if run, err = rg.b.Store.GetRun(ctx, id); err == nil && !run.Live() {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if run.Status != store.RunAborted || time.Since(aborted) > 15*time.Second {
		t.Fatalf("run after abort (%v): %+v", time.Since(aborted), run)
	}
	a, _ := rg.b.Registry.Get("claude-code")
	wctx, wcancel := context.WithTimeout(ctx, 15*time.Second)
	defer wcancel()
	if err := a.(*claudecode.Adapter).Wait(wctx); err != nil {
		t.Fatalf("the CLI outlived its aborted run: %v", err)
	}
	if pids := procsRunning("sleep\x0067.3"); len(pids) > 0 {
		t.Fatalf("the agent's command is still running: pids %v", pids)
	}
	rg.noKey(t, ctx, id)
}

// procsRunning lists the processes whose command line (NUL-separated
// arguments) contains cmd.
func procsRunning(cmd string) []string {
	var pids []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline")); err == nil && strings.Contains(string(b), cmd) {
			pids = append(pids, d.Name())
		}
	}
	return pids
}
