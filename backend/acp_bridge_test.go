package backend

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/mcp/stdiobridge"
)

// TestMain lets this test binary stand in for `clawboo mcp bridge URL`
// (the same stdiobridge.Serve main.go's mcpBridge runs) when an ACP agent
// starts it as a stdio MCP server; otherwise it runs the tests.
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == "mcp" && os.Args[2] == "bridge" {
		os.Exit(stdiobridge.Serve(os.Stdin, os.Stdout, os.Stderr, os.Args[3], os.Getenv(mcp.TokenEnv)))
	}
	os.Exit(m.Run())
}

// TestACPAgentWithoutHTTPMCPReachesTheServersThroughTheBridge: an ACP agent
// that takes MCP servers only as stdio children (the scripted one without
// FAKEACP_MCP_HTTP) is given each of Clawboo's servers as the stdio bridge,
// and its tools/call reaches the Tasks server with the run's own binding.
func TestACPAgentWithoutHTTPMCPReachesTheServersThroughTheBridge(t *testing.T) {
	fake := buildFakeACP(t)
	home := t.TempDir()
	env := map[string]string{"HOME": home, config.EnvVault: "file", "PATH": os.Getenv("PATH")}
	cfg, err := config.Load(home, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(context.Background(), Options{
		Config: cfg, Getenv: func(k string) string { return env[k] }, Log: slog.New(slog.DiscardHandler),
		Environ: func() []string { return []string{"HOME=" + home, "PATH=" + env["PATH"]} },
		Bridge:  []string{os.Args[0], "mcp", "bridge"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	serveForTest(t, b)
	h := authed(b)
	var made struct{ Runtime struct{ ID string } }
	if code := e2eDo(t, h, "POST", "/api/acp/agents", map[string]any{"name": "Stdio only", "command": fake}, &made); code != http.StatusCreated {
		t.Fatalf("add the ACP agent: %d", code)
	}
	if _, err := b.Board.Create(context.Background(), board.NewTask{Title: "Find me through the bridge"}); err != nil {
		t.Fatal(err)
	}
	var ag struct{ Agent struct{ ID string } }
	if code := e2eDo(t, h, "POST", "/api/agents", map[string]any{"name": "Stdy", "runtime": made.Runtime.ID}, &ag); code != http.StatusCreated {
		t.Fatalf("agent: %d", code)
	}
	var res taskRunResult
	e2eDo(t, h, "POST", "/api/runtimes/"+made.Runtime.ID+"/run", map[string]any{
		"message": "!mcp clawboo-tasks list_tasks {}\n!mcp clawboo-teamchat team_delegate {\"assignee\":\"x\",\"task\":\"y\"}", "agentId": ag.Agent.ID,
	}, &res)
	if !res.OK || !strings.Contains(res.Summary, "mcp: ") || !strings.Contains(res.Summary, "Find me through the bridge") {
		t.Fatalf("the Tasks server through the bridge: %+v", res)
	}
	// The run's binding travels with its token: no team, no delegation.
	if !strings.Contains(res.Summary, "mcp error") {
		t.Fatalf("an unsigned session delegated through the bridge: %+v", res)
	}
}
