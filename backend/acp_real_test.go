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

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/fakes/fakeanthropic"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
	"github.com/clawboo/desktop/internal/testkit"
)

// acpAgentsDir is test/acp with the pinned real ACP agents installed
// (make test sets CLAWBOO_TEST_ACP; without it these tests skip, and with
// it a missing program fails them).
func acpAgentsDir(t *testing.T) string {
	t.Helper()
	dir, set := os.LookupEnv("CLAWBOO_TEST_ACP")
	if !set {
		t.Skip("CLAWBOO_TEST_ACP is not set (make test sets it to test/acp, with the pinned ACP agents installed)")
	}
	bin := filepath.Join(dir, "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(bin, "claude-code-acp")); err != nil {
		t.Fatalf("CLAWBOO_TEST_ACP: %v", err)
	}
	return bin
}

const acpClaudeKey = "sk-ant-SENTINEL-acp-claude-5b7e21"

// TestRealClaudeCodeOverACP runs a board code task on Claude Code through
// its ACP adapter (the pinned @zed-industries/claude-code-acp), offline on
// the fake Anthropic: the model writes a file with the adapter's Write
// tool (which calls our fs/write_text_file), then claims a subtask on
// Clawboo's Tasks server over HTTP; each tool use is a permission the
// agent asks, answered through the approvals API. The task lands in
// review with the file in its diff, and the key is only where it belongs.
func TestRealClaudeCodeOverACP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	fake := fakeanthropic.New()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	user := t.TempDir()
	rg := newRealACP(t, ctx, user, []string{
		"CLAUDE_CONFIG_DIR=" + filepath.Join(user, ".claude"), "ANTHROPIC_BASE_URL=" + srv.URL,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_MAX_RETRIES=0",
	}, "ANTHROPIC_API_KEY", acpClaudeKey)
	parent, child, agentID := rg.task(t, ctx, "Write the ACP note", "Claudine", "acp-claude")
	fake.SetRules(fakeanthropic.Rule{
		Match: "Write the ACP note", Tool: "^mcp__acp__Write$", TextBefore: "Writing the note.",
		Input: map[string]any{"file_path": "notes/acp.md", "content": "written by claude over acp\n"},
		Then: &fakeanthropic.Rule{
			Tool:      "^mcp__clawboo-tasks__claim_task$",
			Input:     map[string]any{"taskId": child.ID, "assigneeAgentId": agentID},
			AfterTool: "done: {result}",
		},
	})
	res, asked := rg.run(t, "acp-claude", parent.ID, agentID, func() string { return fmt.Sprintf("%+v", fake.Requests()) })
	var keys []string
	for _, r := range fake.Requests() {
		keys = append(keys, r.APIKey)
	}
	rg.wantLanded(t, ctx, res, asked, keys, parent.ID, child.ID, agentID, "notes/acp.md", "written by claude over acp", acpClaudeKey)
}

// realACP is a listening backend whose runtimes' children see environ
// (their fake provider's address and switches), with key in the vault.
type realACP struct {
	b    *Backend
	h    http.Handler
	home string
	logs *testkit.SyncBuffer
}

func newRealACP(t *testing.T, ctx context.Context, user string, environ []string, keyName, key string) *realACP {
	t.Helper()
	bin := acpAgentsDir(t)
	home := t.TempDir()
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
	env := map[string]string{"HOME": user, config.EnvVault: "file", "PATH": path}
	cfg, err := config.Load(home, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	environ = append([]string{"HOME=" + user, "PATH=" + path}, environ...)
	rg := &realACP{home: home, logs: &testkit.SyncBuffer{}}
	rg.b, err = New(ctx, Options{
		Config: cfg, Getenv: func(k string) string { return env[k] }, Environ: func() []string { return environ },
		Log: slog.New(slog.NewTextHandler(rg.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rg.b.Close(context.Background()) })
	serveForTest(t, rg.b)
	rg.h = authed(rg.b)
	if err := rg.b.Vault.Set(ctx, keyName, key); err != nil {
		t.Fatal(err)
	}
	return rg
}

// task makes a code task on a fresh repository and a subtask under it,
// and the agent that works it on runtime rt.
func (rg *realACP) task(t *testing.T, ctx context.Context, title, name, rt string) (parent, child board.Task, agentID string) {
	t.Helper()
	if r := listedACP(t, rg.h)[rt]; r.ConnectionState != "ready" || !r.CanRun {
		t.Fatalf("%s: %+v", rt, r)
	}
	agent, err := rg.b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	mustTeam(t, rg.b, "team-acp")
	var created struct{ Task board.Task }
	if code := e2eDo(t, rg.h, "POST", "/api/board", map[string]any{
		"title": title, "teamId": "team-acp", "repoPath": e2eRepo(t), "kind": "code", "status": "todo",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create task: %d", code)
	}
	parent = created.Task
	if code := e2eDo(t, rg.h, "POST", "/api/board", map[string]any{
		"title": "Follow up", "teamId": "team-acp", "parentTaskId": parent.ID, "status": "todo",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create subtask: %d", code)
	}
	return parent, created.Task, agent.ID
}

// run runs the task on rt and waits for its result, allowing through the
// approvals API every permission the agent asks meanwhile; it returns the
// result and the tools asked about.
func (rg *realACP) run(t *testing.T, rt, taskID, agentID string, calls func() string) (taskRunResult, []string) {
	t.Helper()
	done := make(chan taskRunResult, 1)
	go func() {
		var res taskRunResult
		e2eDo(t, rg.h, "POST", "/api/runtimes/"+rt+"/run", map[string]any{"taskId": taskID, "assigneeAgentId": agentID}, &res)
		done <- res
	}()
	var asked []string
	var res taskRunResult
	testkit.EventuallySays(t, 120*time.Second, "the run ends", func() (bool, string) {
		select {
		case res = <-done:
			return true, ""
		default:
		}
		var l struct{ Approvals []approval.Request }
		e2eDo(t, rg.h, "GET", "/api/approvals", nil, &l)
		for _, a := range l.Approvals {
			if a.AgentID == agentID {
				asked = append(asked, a.Tool+a.Command)
				e2eDo(t, rg.h, "POST", "/api/approvals/"+a.ID+"/resolve", map[string]any{"decision": "approve"}, nil)
			}
		}
		return false, fmt.Sprintf("asked %v\nmodel calls %s\n%s\n%s", asked, calls(), lastRunEvents(t, rg.b), grepLines(rg.logs.String(), "part=acp"))
	})
	return res, asked
}

// wantLanded: the run ended with the agent's last words "done: …" after
// asking at least one permission, every model call carried the vault's
// key, the subtask was claimed through the Tasks server, the task is in
// review with file holding want in its diff, and the key is in no stored
// event, log line or file under the home.
func (rg *realACP) wantLanded(t *testing.T, ctx context.Context, res taskRunResult, asked, keys []string, parentID, childID, agentID, file, want, key string) {
	t.Helper()
	if !res.OK || !strings.HasPrefix(res.Summary, "done: ") {
		t.Fatalf("run %+v\nasked %v\nlogs:\n%s", res, asked, rg.logs.String())
	}
	if len(asked) == 0 {
		t.Fatal("no permission was asked")
	}
	if len(keys) == 0 {
		t.Fatal("the model was never called")
	}
	for i, k := range keys {
		if k != key {
			t.Fatalf("request %d carried key %q, not the vault's", i, k)
		}
	}
	wantClaimedBy(t, rg.h, childID, agentID)
	wantReviewDiff(t, rg.h, res, parentID, file, want)
	rows, err := rg.b.Store.ListEvents(ctx, res.RunID, 0, 10000)
	if err != nil || len(rows) == 0 {
		t.Fatalf("events: %d %v", len(rows), err)
	}
	for _, r := range rows {
		if strings.Contains(string(r.Data), key) {
			t.Fatalf("the key reached a stored event: %s", r.Data)
		}
	}
	if strings.Contains(rg.logs.String(), key) {
		t.Fatal("the key reached the logs")
	}
	scanHomeFor(t, rg.home, key)
}

// lastRunEvents is the newest run's stored events, for a failure's words.
func lastRunEvents(t *testing.T, b *Backend) string {
	var id string
	if err := b.Store.Reader().QueryRow(`SELECT id FROM runs ORDER BY started_at DESC LIMIT 1`).Scan(&id); err != nil {
		return err.Error()
	}
	rows, err := b.Store.ListEvents(context.Background(), id, 0, 200)
	if err != nil {
		return err.Error()
	}
	var out strings.Builder
	for _, r := range rows {
		out.Write(r.Data)
		out.WriteByte('\n')
	}
	return out.String()
}

func grepLines(text, sub string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

const acpOpenCodeKey = "sk-SENTINEL-acp-opencode-93c1d7"

// TestRealOpenCodeOverACP runs a board code task on OpenCode's own ACP
// server (`opencode acp`, pinned opencode-ai) offline on the fake OpenAI
// Responses API, named as the OpenAI provider's base URL in the config
// the user's environment points at (OPENCODE_CONFIG), which also asks
// before every edit: the model writes a file with OpenCode's write tool
// (a permission answered through the approvals API) and claims a subtask
// on the Tasks server. The task lands in review with the file in its
// diff, and the key is only where it belongs.
func TestRealOpenCodeOverACP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	fake := fakeresponses.New()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	user := t.TempDir()
	conf := filepath.Join(user, "opencode.json")
	cfg := `{"$schema":"https://opencode.ai/config.json","autoupdate":false,"share":"disabled",` +
		`"provider":{"openai":{"options":{"baseURL":"` + srv.URL + `/v1"}}},"model":"openai/gpt-4o-mini",` +
		`"small_model":"openai/gpt-4o-mini","permission":{"edit":"ask","bash":"ask"}}`
	if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	rg := newRealACP(t, ctx, user, []string{"OPENCODE_CONFIG=" + conf}, "OPENAI_API_KEY", acpOpenCodeKey)
	parent, child, agentID := rg.task(t, ctx, "Write the OpenCode note", "Ocey", "acp-opencode")
	fake.SetRules(fakeresponses.Rule{Match: "Write the OpenCode note", Steps: []fakeresponses.Step{
		{Text: "Writing the note.", Call: &fakeresponses.Call{
			Tool: "^write$", Args: `{"filePath":"notes/opencode.md","content":"written by opencode over acp\n"}`,
		}},
		{Call: &fakeresponses.Call{
			Tool: `claim_task$`, Args: fmt.Sprintf(`{"taskId":%q,"assigneeAgentId":%q}`, child.ID, agentID),
		}},
		{Text: "done: {result}"},
	}})
	res, asked := rg.run(t, "acp-opencode", parent.ID, agentID, func() string { return fmt.Sprintf("%+v", fake.Requests()) })
	var keys []string
	for _, r := range fake.Requests() {
		keys = append(keys, r.APIKey)
	}
	rg.wantLanded(t, ctx, res, asked, keys, parent.ID, child.ID, agentID, "notes/opencode.md", "written by opencode over acp", acpOpenCodeKey)
}
