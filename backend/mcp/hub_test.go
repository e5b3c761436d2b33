package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testToken = "test-attach-token-0123456789"

// newTestHub is a Hub with no backends; each server also gets a "whoami"
// tool that reports the verified caller.
func newTestHub(t testing.TB, o Options) *Hub {
	t.Helper()
	o.Token, o.BindingKey = testToken, []byte("test-binding-key-0123456789")
	h, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	for _, name := range Names {
		h.servers[name].AddTool(mcp.NewTool("whoami"), toolcall.Handler(func(ctx context.Context, c Caller, _ struct{}) *mcp.CallToolResult {
			return toolcall.JSON(c)
		}))
	}
	return h
}

// httpClient connects an mcp-go client to the hub over real HTTP.
func httpClient(t *testing.T, url string, headers map[string]string) (*client.Client, error) {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(headers))
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		_ = c.Close()
		return nil, err
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, nil
}

func callText(t *testing.T, res *mcp.CallToolResult, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func mustCall(t *testing.T, c *client.Client, name string, args map[string]any) string {
	t.Helper()
	res, err := call(c, name, args)
	return callText(t, res, err)
}

func call(c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	return c.CallTool(context.Background(), req)
}

func TestHTTPAuthAndBinding(t *testing.T) {
	h := newTestHub(t, Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	auth := map[string]string{"Authorization": "Bearer " + testToken}

	// No token, wrong token: 401 before MCP.
	for _, hdr := range []map[string]string{nil, {"Authorization": "Bearer nope"}, {"Authorization": testToken}} {
		if _, err := httpClient(t, srv.URL+"/mcp/tasks", hdr); err == nil {
			t.Fatalf("connected with %v", hdr)
		}
	}
	resp, err := http.Post(srv.URL+"/mcp/tasks", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatal(resp.StatusCode)
	}
	// Unbound.
	c, err := httpClient(t, srv.URL+"/mcp/tasks", auth)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustCall(t, c, "whoami", nil); got != `{"Transport":"http"}` {
		t.Fatal(got)
	}
	// Signed binding.
	b := Binding{TeamID: "team-a", AgentID: "alice", Delegate: true}
	c, err = httpClient(t, srv.URL+"/mcp/teamchat?"+h.Signer().Query(b), auth)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustCall(t, c, "whoami", nil); got != `{"teamId":"team-a","agentId":"alice","delegate":true,"Transport":"http"}` {
		t.Fatal(got)
	}
	// Spoofing: change the agent, drop the signature, sign with another key.
	q := h.Signer().Query(b)
	other := NewSigner([]byte("another-key-0123456789")).Query(b)
	for _, bad := range []string{
		strings.Replace(q, "alice", "mallory", 1), "team=team-a&agent=alice", other,
		strings.Replace(q, "delegate=1&", "", 1), q + "&ro=1",
	} {
		if _, err := httpClient(t, srv.URL+"/mcp/tasks?"+bad, auth); err == nil {
			t.Fatalf("a forged binding was accepted: %s", bad)
		}
	}
	// Arguments cannot name the caller.
	c, _ = httpClient(t, srv.URL+"/mcp/tasks", auth)
	res, err := call(c, "whoami", map[string]any{"agentId": "mallory"})
	if err != nil || !res.IsError || !strings.Contains(callText(t, res, nil), "invalid args") {
		t.Fatalf("%+v %v", res, err)
	}
	// Unknown server.
	resp, _ = http.Post(srv.URL+"/mcp/nope", "application/json", strings.NewReader(`{}`))
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatal(resp.StatusCode)
	}
}

func TestInProcessSessionKeepsItsBinding(t *testing.T) {
	h := newTestHub(t, Options{})
	ctx := context.Background()
	s, err := h.Session(ctx, Memory, Binding{TeamID: "t1", AgentID: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A context claiming another identity changes nothing.
	res, err := s.CallTool(toolcall.WithCaller(ctx, Caller{Binding: Binding{AgentID: "mallory"}}), "whoami", nil)
	if got := callText(t, res, err); got != `{"teamId":"t1","agentId":"a1","Transport":"in-process"}` {
		t.Fatal(got)
	}
}

func TestSignerRoundTrip(t *testing.T) {
	s := NewSigner([]byte("k-0123456789abcdef"))
	for _, b := range []Binding{{}, {TeamID: "t"}, {AgentID: "a", ReadOnly: true}, {TeamID: "t", AgentID: "a", Delegate: true}} {
		q := s.Query(b)
		vals, _ := parseQuery(q)
		got, ok := s.FromQuery(vals)
		if !ok || got != b {
			t.Fatalf("%+v → %q → %+v %v", b, q, got, ok)
		}
	}
	vals, _ := parseQuery("team=t%1Fx&sig=00")
	if _, ok := s.FromQuery(vals); ok {
		t.Fatal("a control character in an id was accepted")
	}
}
