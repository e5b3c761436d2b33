package backend

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/mcp/toolbroker"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// TestToolApprovalEndToEnd drives a high-risk tool call through the whole
// backend: the broker asks, the request appears on the API, a person
// answers over HTTP, and the call runs (or not) with the answer on its
// audit row.
func TestToolApprovalEndToEnd(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home) // delete_path's boundary
	env := map[string]string{"HOME": home, "PATH": "", config.EnvVault: "file"}
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(filepath.Join(home, ".clawboo"), getenv)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(context.Background(), Options{Config: cfg, Getenv: getenv, Environ: func() []string { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(authed(b))
	defer func() {
		srv.CloseClientConnections()
		srv.Close()
		_ = b.Close(context.Background())
	}()
	if b.Approvals == nil || b.Tools == nil {
		t.Fatal("approvals or tools not wired")
	}
	do := func(method, path, body string) (int, []byte) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, out
	}
	// A run's session (as a native run opens it) names its run, and the
	// approval on the API names it too: one run shows the card.
	s, err := b.MCP.Session(context.Background(), mcp.Tools, mcp.Binding{TeamID: "team-a", AgentID: "alice", RunID: "01RUNOFALICE"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	for _, decision := range []string{"deny", "approve"} {
		victim := filepath.Join(home, "old-build")
		if err := os.MkdirAll(victim, 0o700); err != nil {
			t.Fatal(err)
		}
		done := make(chan *mcpgo.CallToolResult, 1)
		go func() {
			res, err := s.CallTool(context.Background(), "delete_path", map[string]any{"path": victim, "why": "stale output"})
			if err != nil {
				t.Error(err)
			}
			done <- res
		}()
		var pending []approval.Request
		for deadline := time.Now().Add(10 * time.Second); len(pending) == 0; {
			code, body := do("GET", "/api/approvals", "")
			var got struct{ Approvals []approval.Request }
			if code != 200 || json.Unmarshal(body, &got) != nil {
				t.Fatal(code, string(body))
			}
			pending = got.Approvals
			select {
			case res := <-done:
				t.Fatalf("answered without asking: %+v", res)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatal("no pending approval")
			}
			time.Sleep(10 * time.Millisecond)
		}
		p := pending[0]
		if p.Kind != approval.KindTool || p.Tool != "delete_path" || p.AgentID != "alice" || p.TeamID != "team-a" || p.RunID != "01RUNOFALICE" ||
			p.Reason != "stale output" || p.Risk != "high" || !strings.Contains(p.Title, "Delete") {
			t.Fatalf("%+v", p)
		}
		if code, body := do("POST", "/api/approvals/"+p.ID+"/resolve", `{"decision":"`+decision+`"}`); code != 200 {
			t.Fatal(code, string(body))
		}
		res := <-done
		_, statErr := os.Stat(victim)
		if decision == "approve" && (res.IsError || !errors.Is(statErr, os.ErrNotExist)) {
			t.Fatalf("%+v %v", res, statErr)
		}
		if decision == "deny" && (!res.IsError || statErr != nil) {
			t.Fatalf("%+v %v", res, statErr)
		}
		code, body := do("GET", "/api/tools/audit?limit=1", "")
		var audit struct{ Audit []toolbroker.AuditEntry }
		if code != 200 || json.Unmarshal(body, &audit) != nil || len(audit.Audit) != 1 {
			t.Fatal(code, string(body))
		}
		want := map[string]string{"deny": "denied", "approve": "allowed"}[decision]
		if row := audit.Audit[0]; row.Decision != want || row.ApprovalID != p.ID || row.AgentID != "alice" {
			t.Fatalf("%+v", row)
		}
	}
}

// Provider keys are never handed to an external MCP server: the tools
// broker reads config's table, and this checks it end to end.
func TestExternalServersNeverGetProviderKeys(t *testing.T) {
	for _, name := range config.ProviderEnvVars() {
		stdio := toolbroker.ServerConfig{Name: "x", Transport: toolbroker.TransportStdio, Command: "npx", Env: []string{name}}
		if err := stdio.Validate(); !errors.Is(err, toolbroker.ErrInvalidServer) {
			t.Errorf("%s may be listed for a stdio server: %v", name, err)
		}
		web := toolbroker.ServerConfig{
			Name: "x", Transport: toolbroker.TransportHTTP, URL: "https://x.example/mcp",
			Headers: map[string]string{"Authorization": "Bearer ${" + name + "}"},
		}
		if err := web.Validate(); !errors.Is(err, toolbroker.ErrInvalidServer) {
			t.Errorf("%s may be referenced in a header: %v", name, err)
		}
	}
}
