package e2e

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/fakes/fakeanthropic"
)

// testCLIs is test/clis with its node_modules installed: make test installs
// it and sets CLAWBOO_TEST_CLIS; a plain `go test` without it skips.
func testCLIs(t *testing.T, rel string) string {
	t.Helper()
	dir, set := os.LookupEnv("CLAWBOO_TEST_CLIS")
	if !set {
		t.Skip("CLAWBOO_TEST_CLIS is not set (make test sets it to test/clis, with the pinned programs installed)")
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("CLAWBOO_TEST_CLIS: %v", err)
	}
	return p
}

// claudeBin is the real, pinned `claude` CLI.
func claudeBin(t *testing.T) string { return testCLIs(t, "node_modules/.bin/claude") }

// mcpConfig is what `clawboo mcp config --client claude` prints for home.
func mcpConfig(t *testing.T, home string) (raw string, servers map[string]struct {
	URL     string
	Headers map[string]string
},
) {
	t.Helper()
	out, err := exec.Command(bin, "mcp", "config", "--client", "claude", "--home", home).Output()
	if err != nil {
		t.Fatalf("mcp config: %v", err)
	}
	var cfg struct {
		MCPServers map[string]struct {
			URL     string
			Headers map[string]string
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil || len(cfg.MCPServers) != 4 {
		t.Fatalf("mcp config printed: %s (%v)", out, err)
	}
	return strings.TrimSpace(string(out)), cfg.MCPServers
}

// claudeEnv is the offline environment runtimes-protocols.md section 2.1
// gives: a scratch home, the fake model, no non-essential traffic.
func claudeEnv(t *testing.T, fakeURL string) []string {
	home := t.TempDir()
	env := []string{
		"HOME=" + home, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"), "PATH=" + os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL=" + fakeURL, "ANTHROPIC_API_KEY=sk-ant-fake-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1", "DISABLE_COST_WARNINGS=1", "CLAUDE_CODE_MAX_RETRIES=0",
	}
	if os.Geteuid() == 0 {
		env = append(env, "IS_SANDBOX=1")
	}
	return env
}

// The real Claude Code CLI, attached with the configuration `clawboo mcp
// config` prints, claims a board task through the Tasks server because the
// (fake) model told it to.
func TestRealClaudeClaimsATaskOverMCP(t *testing.T) {
	claude := claudeBin(t)
	s := startServe(t, []string{"CLAWBOO_VAULT=file"}, "--addr", "127.0.0.1:0")
	_, b := s.post(t, "/api/board", `{"title":"wire the widget"}`)
	var created struct{ Task struct{ ID string } }
	if err := json.Unmarshal(b, &created); err != nil || created.Task.ID == "" {
		t.Fatal(string(b))
	}
	id := created.Task.ID

	cfg, _ := mcpConfig(t, s.home)
	fake := fakeanthropic.New(fakeanthropic.Rule{
		Match: "claim", Tool: `^mcp__clawboo-tasks__claim_task$`,
		Input:      map[string]any{"taskId": id, "assigneeAgentId": "claude-agent"},
		TextBefore: "Claiming it.", AfterTool: "Claimed: {result}",
	})
	fs := httptest.NewServer(fake)
	defer fs.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "please claim task "+id,
		"--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions",
		"--mcp-config", cfg)
	cmd.Env = claudeEnv(t, fs.URL)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	var result struct {
		Type, Result string
		IsError      bool `json:"is_error"`
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, `"type":"result"`) {
			_ = json.Unmarshal([]byte(line), &result)
		}
	}
	if result.IsError || !strings.HasPrefix(result.Result, "Claimed: ") || !strings.Contains(result.Result, id) {
		t.Fatalf("result %+v\nrequests %+v\n%s", result, fake.Requests(), out)
	}
	_, b = s.get(t, "/api/board/"+id)
	var detail struct {
		Task struct {
			Status, AssigneeAgentID string
		}
	}
	_ = json.Unmarshal(b, &detail)
	if detail.Task.Status != "in_progress" || detail.Task.AssigneeAgentID != "claude-agent" {
		t.Fatalf("task after claude's claim: %s", b)
	}
	// A second claim (another agent) is refused with the don't-retry hint.
	fake2 := fakeanthropic.New(fakeanthropic.Rule{
		Match: "claim", Tool: `^mcp__clawboo-tasks__claim_task$`,
		Input: map[string]any{"taskId": id, "assigneeAgentId": "other-agent"}, AfterTool: "Said: {result}",
	})
	fs2 := httptest.NewServer(fake2)
	defer fs2.Close()
	cmd = exec.CommandContext(ctx, claude, "-p", "please claim task "+id,
		"--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions",
		"--mcp-config", cfg)
	cmd.Env = claudeEnv(t, fs2.URL)
	cmd.Dir = t.TempDir()
	out, _ = cmd.CombinedOutput()
	if !strings.Contains(string(out), "conflict") || !strings.Contains(string(out), "not retry") {
		t.Fatalf("a losing claim should say conflict / do not retry:\n%s", out)
	}
}
