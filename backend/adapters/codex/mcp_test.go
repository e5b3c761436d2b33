package codex

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
)

// echoMCP is a minimal MCP server over Streamable HTTP, answering JSON
// (not SSE) and 405 on GET, which codex accepts (runtimes-protocols.md
// section 3.5). Its one tool, echo, answers "echo: <text>". It records
// the bearer tokens it was called with.
type echoMCP struct {
	mu    sync.Mutex
	auths []string
	calls int
}

func (m *echoMCP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		} `json:"params"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	m.mu.Lock()
	m.auths = append(m.auths, r.Header.Get("Authorization"))
	m.mu.Unlock()
	if len(req.ID) == 0 {
		w.WriteHeader(http.StatusAccepted) // a notification
		return
	}
	var result any
	switch req.Method {
	case "initialize":
		result = map[string]any{
			"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "echo", "version": "1"},
		}
	case "tools/list":
		result = map[string]any{"tools": []any{map[string]any{
			"name": "echo", "description": "Echo text.",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}},
		}}}
	case "tools/call":
		m.mu.Lock()
		m.calls++
		m.mu.Unlock()
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo: " + req.Params.Arguments["text"]}}}
	default:
		result = map[string]any{}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
}

// TestMCPServers: the run's MCP servers reach codex through the thread's
// config (app-server), the managed config.toml (exec, and app-server
// without per-thread URLs), with the bearer token from the environment.
func TestMCPServers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		mode      Mode
		toml      bool
		perThread bool
	}{
		{"app-server, thread config", AppServer, false, true},
		{"app-server, config.toml", AppServer, true, false},
		{"exec, config.toml", Exec, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mcp := &echoMCP{}
			srv := httptest.NewServer(mcp)
			defer srv.Close()
			w := newWorld(t, fakeresponses.Rule{Match: "echo", Steps: []fakeresponses.Step{
				{Text: "Calling echo.", Call: &fakeresponses.Call{Tool: "fake/echo$", Args: `{"text":"ping"}`}},
				{Text: "Tool said: {result}"},
			}})
			w.mode = tc.mode
			const token = "mcp-attach-token-test-93e1"
			w.attach = func(context.Context, executor.StartRequest) (*MCP, error) {
				m := &MCP{TokenEnv: "FAKE_MCP_TOKEN", Env: map[string]string{"FAKE_MCP_TOKEN": token}}
				if tc.toml {
					m.TOML = "[mcp_servers.fake]\nurl = \"" + srv.URL + "/mcp\"\nbearer_token_env_var = \"FAKE_MCP_TOKEN\"\n"
				}
				if tc.perThread {
					m.URLs = map[string]string{"fake": srv.URL + "/mcp"}
				}
				return m, nil
			}
			evs := w.runToEnd(executor.StartRequest{AgentID: "agent-m", Message: "please use the echo tool", WorkDir: t.TempDir()})
			var res *executor.Event
			for i := range evs {
				if evs[i].Kind == executor.KindToolResult {
					res = &evs[i]
				}
			}
			if res == nil || res.Name != "mcp__fake__echo" || res.Output != "echo: ping" || res.IsError {
				t.Fatalf("events: %s", executortest.Describe(evs))
			}
			if d := executortest.Done(t, evs); d.Reason != executor.DoneSuccess || !strings.Contains(d.Summary, "echo: ping") {
				t.Fatalf("done %+v", d)
			}
			mcp.mu.Lock()
			defer mcp.mu.Unlock()
			if mcp.calls != 1 || len(mcp.auths) == 0 {
				t.Fatalf("the MCP server saw %d calls", mcp.calls)
			}
			for _, a := range mcp.auths {
				if a != "Bearer "+token {
					t.Fatalf("MCP request with authorization %q", a)
				}
			}
			noSecret(t, evs, token)
		})
	}
}
