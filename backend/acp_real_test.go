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
	bin := acpAgentsDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	fake := fakeanthropic.New()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	home, user := t.TempDir(), t.TempDir()
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
	env := map[string]string{"HOME": user, config.EnvVault: "file", "PATH": path}
	cfg, err := config.Load(home, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	environ := []string{
		"HOME=" + user, "PATH=" + path, "CLAUDE_CONFIG_DIR=" + filepath.Join(user, ".claude"), "ANTHROPIC_BASE_URL=" + srv.URL,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_MAX_RETRIES=0",
	}
	logs := &testkit.SyncBuffer{}
	b, err := New(ctx, Options{
		Config: cfg, Getenv: func(k string) string { return env[k] }, Environ: func() []string { return environ },
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	serveForTest(t, b)
	h := authed(b)
	if err := b.Vault.Set(ctx, "ANTHROPIC_API_KEY", acpClaudeKey); err != nil {
		t.Fatal(err)
	}
	if r := listedACP(t, h)["acp-claude"]; r.ConnectionState != "ready" || !r.CanRun {
		t.Fatalf("acp-claude: %+v", r)
	}

	name, rt := "Claudine", "acp-claude"
	agent, err := b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	mustTeam(t, b, "team-acp")
	var created struct{ Task board.Task }
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Write the ACP note", "teamId": "team-acp", "repoPath": e2eRepo(t), "kind": "code", "status": "todo",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create task: %d", code)
	}
	parent := created.Task
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Follow up", "teamId": "team-acp", "parentTaskId": parent.ID, "status": "todo",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create subtask: %d", code)
	}
	child := created.Task
	fake.SetRules(fakeanthropic.Rule{
		Match: "Write the ACP note", Tool: "^mcp__acp__Write$", TextBefore: "Writing the note.",
		Input: map[string]any{"file_path": "notes/acp.md", "content": "written by claude over acp\n"},
		Then: &fakeanthropic.Rule{
			Tool:      "^mcp__clawboo-tasks__claim_task$",
			Input:     map[string]any{"taskId": child.ID, "assigneeAgentId": agent.ID},
			AfterTool: "done: {result}",
		},
	})

	// The run waits for its result; meanwhile every permission the agent
	// asks for it is allowed through the API.
	done := make(chan taskRunResult, 1)
	go func() {
		var res taskRunResult
		e2eDo(t, h, "POST", "/api/runtimes/acp-claude/run", map[string]any{"taskId": parent.ID, "assigneeAgentId": agent.ID}, &res)
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
		e2eDo(t, h, "GET", "/api/approvals", nil, &l)
		for _, a := range l.Approvals {
			if a.AgentID == agent.ID {
				asked = append(asked, a.Tool)
				e2eDo(t, h, "POST", "/api/approvals/"+a.ID+"/resolve", map[string]any{"decision": "approve"}, nil)
			}
		}
		return false, fmt.Sprintf("asked %v\nmodel calls %+v\n%s\n%s", asked, fake.Requests(), lastRunEvents(t, b), grepLines(logs.String(), "part=acp"))
	})
	reqs := fake.Requests()
	if !res.OK || !strings.HasPrefix(res.Summary, "done: ") {
		t.Fatalf("run %+v\nasked %v\nmodel calls: %+v\nlogs:\n%s", res, asked, reqs, logs.String())
	}
	if len(asked) == 0 {
		t.Fatal("no permission was asked")
	}
	for i, r := range reqs {
		if r.APIKey != acpClaudeKey {
			t.Fatalf("request %d carried key %q, not the vault's", i, r.APIKey)
		}
	}
	wantClaimedBy(t, h, child.ID, agent.ID)
	wantReviewDiff(t, h, res, parent.ID, "notes/acp.md", "written by claude over acp")
	rows, err := b.Store.ListEvents(ctx, res.RunID, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if strings.Contains(string(r.Data), acpClaudeKey) {
			t.Fatalf("the key reached a stored event: %s", r.Data)
		}
	}
	if strings.Contains(logs.String(), acpClaudeKey) {
		t.Fatal("the key reached the logs")
	}
	scanHomeFor(t, home, acpClaudeKey)
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
