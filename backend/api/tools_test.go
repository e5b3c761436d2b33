package api

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/mcp/toolbroker"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// toolsSink is an Approver over the queue, as the composition root's
// adapter is; broker is the hub's (Hub.Tools).
type toolsSink struct {
	q      *approval.Queue
	broker *toolbroker.Broker
}

func (s *toolsSink) Ask(ctx context.Context, r toolbroker.ApprovalRequest) (toolbroker.ApprovalAnswer, error) {
	res, err := s.q.Ask(ctx, approval.Request{Kind: approval.KindTool, Title: r.Title, Tool: r.Tool, Args: r.Args}, r.TTL)
	if err != nil {
		return toolbroker.ApprovalAnswer{}, err
	}
	out := toolbroker.ApprovalAnswer{ID: res.ID, Outcome: toolbroker.ApprovalExpired}
	if res.Status == approval.Approved {
		out.Outcome = toolbroker.ApprovalApproved
	}
	return out, nil
}

func withTools(t *testing.T) (*fixture, *mcp.Hub, *toolbroker.Broker) {
	t.Helper()
	var hub *mcp.Hub
	sink := &toolsSink{}
	f, q := withApprovals(t, func(o *Options) {
		h, err := mcp.New(mcp.Options{
			Token: "api-test-token-0123456789", BindingKey: []byte("api-test-binding-key-0123"),
			Store: o.Store, Approvals: sink,
		})
		if err != nil {
			t.Fatal(err)
		}
		hub = h
		sink.broker = h.Tools()
		o.Tools = sink.broker
		o.MCP = h
	})
	sink.q = q
	t.Cleanup(hub.Close)
	if err := sink.broker.Start(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return f, hub, sink.broker
}

type toolsBody struct {
	Tools []toolbroker.ToolInfo `json:"tools"`
}

func TestToolsAPI(t *testing.T) {
	f, hub, _ := withTools(t)
	code, _, b := f.do(t, "GET", "/api/tools", "")
	if code != 200 {
		t.Fatal(code, string(b))
	}
	byName := map[string]toolbroker.ToolInfo{}
	for _, ti := range decode[toolsBody](t, b).Tools {
		byName[ti.Name] = ti
	}
	if byName["echo"].Risk != toolbroker.RiskLow || !byName["echo"].Available || byName["delete_path"].Risk != toolbroker.RiskHigh ||
		byName["web_fetch"].Risk != toolbroker.RiskMedium || len(byName["echo"].InputSchema) == 0 {
		t.Fatalf("%+v", byName)
	}
	if _, ok := byName["web_search"]; !ok {
		t.Fatal("web_search missing from the registry")
	}

	// Two calls, then the audit, newest first.
	s, err := hub.Session(context.Background(), mcp.Tools, mcp.Binding{AgentID: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, m := range []string{"first", "second"} {
		if _, err := s.CallTool(context.Background(), "echo", map[string]any{"message": m}); err != nil {
			t.Fatal(err)
		}
	}
	code, _, b = f.do(t, "GET", "/api/tools/audit?limit=1", "")
	rows := decode[map[string][]toolbroker.AuditEntry](t, b)["audit"]
	if code != 200 || len(rows) != 1 || rows[0].Summary != `{"message":"second"}` || rows[0].AgentID != "alice" || rows[0].Decision != "allowed" {
		t.Fatal(code, string(b))
	}
	if code, _, b = f.do(t, "GET", "/api/tools/audit", ""); code != 200 || len(decode[map[string][]toolbroker.AuditEntry](t, b)["audit"]) != 2 {
		t.Fatal(code, string(b))
	}
	for _, bad := range []string{"abc", "0", "5000"} {
		if code, _, _ := f.do(t, "GET", "/api/tools/audit?limit="+bad, ""); code != 400 {
			t.Fatal(bad, code)
		}
	}
}

func TestToolServersAPI(t *testing.T) {
	f, _, _ := withTools(t)
	remote := server.NewMCPServer("remote", "1")
	remote.AddTool(mcpgo.NewTool("shout", mcpgo.WithString("text", mcpgo.Required())),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(strings.ToUpper(req.GetString("text", ""))), nil
		})
	streamable := server.NewStreamableHTTPServer(remote)
	ext := httptest.NewServer(streamable)
	t.Cleanup(func() {
		ext.CloseClientConnections()
		ext.Close()
		_ = streamable.Shutdown(context.Background())
	})

	for body, want := range map[string]int{
		`{"name":"Bad Name","transport":"http","url":"http://x"}`:                                                                  400,
		`{"name":"x","transport":"stdio","command":"npx","env":["ANTHROPIC_API_KEY"]}`:                                             400,
		`{"name":"x","transport":"http","url":"http://x","headers":{"Authorization":"Bearer ghp_abcdefghijklmnopqrstuvwxyz0123"}}`: 400,
		`not json`: 400,
	} {
		if code, _, b := f.do(t, "POST", "/api/tools/servers", body); code != want {
			t.Fatal(body, code, string(b))
		}
	}
	code, _, b := f.do(t, "POST", "/api/tools/servers", fmt.Sprintf(`{"name":"loud","transport":"http","url":%q}`, ext.URL+"/mcp"))
	st := decode[map[string]toolbroker.ServerStatus](t, b)["server"]
	if code != 201 || st.Status != toolbroker.ServerReady || !slices.Equal(st.Tools, []string{"loud__shout"}) || st.Risk != toolbroker.RiskMedium {
		t.Fatal(code, string(b))
	}
	if code, _, _ := f.do(t, "POST", "/api/tools/servers", fmt.Sprintf(`{"name":"loud","transport":"http","url":%q}`, ext.URL+"/mcp")); code != 409 {
		t.Fatal(code)
	}
	// A server that cannot start is added and reported.
	code, _, b = f.do(t, "POST", "/api/tools/servers", `{"name":"gone","transport":"stdio","command":"/nonexistent/mcp-server"}`)
	if st := decode[map[string]toolbroker.ServerStatus](t, b)["server"]; code != 201 || st.Status != toolbroker.ServerFailed || st.Error == "" {
		t.Fatal(code, string(b))
	}
	code, _, b = f.do(t, "GET", "/api/tools/servers", "")
	if sts := decode[map[string][]toolbroker.ServerStatus](t, b)["servers"]; code != 200 || len(sts) != 2 || sts[0].Name != "gone" {
		t.Fatal(code, string(b))
	}
	code, _, b = f.do(t, "GET", "/api/tools", "")
	if !strings.Contains(string(b), `"loud__shout"`) {
		t.Fatal(code, string(b))
	}
	if code, _, b := f.do(t, "POST", "/api/tools/servers/loud/reconnect", ""); code != 200 || !strings.Contains(string(b), `"ready"`) {
		t.Fatal(code, string(b))
	}
	if code, _, _ := f.do(t, "DELETE", "/api/tools/servers/loud", ""); code != 200 {
		t.Fatal(code)
	}
	for _, p := range []string{"/api/tools/servers/loud"} {
		if code, _, _ := f.do(t, "DELETE", p, ""); code != 404 {
			t.Fatal(code)
		}
	}
	if code, _, _ := f.do(t, "POST", "/api/tools/servers/loud/reconnect", ""); code != 404 {
		t.Fatal(code)
	}
	if _, _, b := f.do(t, "GET", "/api/tools", ""); strings.Contains(string(b), `"loud__shout"`) {
		t.Fatal(string(b))
	}
}
