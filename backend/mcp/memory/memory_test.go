package memory

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"

	"github.com/clawboo/desktop/backend/store"
	"github.com/mark3labs/mcp-go/mcp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testServer is the Memory tools on an MCP server built as the hub builds
// clawboo-memory (the hub's own tests drive them over HTTP).
type testServer struct{ srv *server.MCPServer }

// newMemoryHub is a test server over a real SQLite store in t.TempDir().
func newMemoryHub(t *testing.T, o Options) (*testServer, *store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	o.Store = st
	return newTestServer(o), st
}

func newTestServer(o Options) *testServer {
	srv := server.NewMCPServer("clawboo-memory", "test", server.WithToolCapabilities(false), server.WithRecovery())
	New(o).Attach(srv)
	return &testServer{srv: srv}
}

// session is an in-process client acting as its binding, the way the hub's
// Session carries its caller on every request.
type session struct {
	c      *client.Client
	caller toolcall.Caller
}

// memSession is an in-process Memory session closed with the test.
func memSession(t *testing.T, h *testServer, b toolcall.Binding) *session {
	t.Helper()
	c, err := client.NewInProcessClient(h.srv)
	if err != nil {
		t.Fatal(err)
	}
	s := &session{c: c, caller: toolcall.Caller{Binding: b, Transport: "in-process"}}
	ctx := toolcall.WithCaller(context.Background(), s.caller)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return s
}

func (s *session) CallTool(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	return s.c.CallTool(toolcall.WithCaller(ctx, s.caller), req)
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

// memAnswer is any Memory tool's answer, decoded.
type memAnswer struct {
	Saved     savedFact    `json:"saved"`
	Results   []memoryItem `json:"results"`
	Items     []memoryItem `json:"items"`
	Embedders []string     `json:"embedders"`
	Truncated bool         `json:"truncated"`
	text      string
	denied    string
	isError   bool
}

// titles lists the titles of a search's results or a browse's items.
func (a memAnswer) titles() []string {
	var out []string
	for _, it := range append(append([]memoryItem{}, a.Results...), a.Items...) {
		out = append(out, it.Title)
	}
	return out
}

func answerOf(t *testing.T, res *mcp.CallToolResult, err error) memAnswer {
	t.Helper()
	a := memAnswer{text: callText(t, res, err), isError: res.IsError}
	if res.Meta != nil {
		a.denied, _ = res.Meta.AdditionalFields["denied"].(string)
	}
	if !a.isError {
		if err := json.Unmarshal([]byte(a.text), &a); err != nil {
			t.Fatalf("%v: %s", err, a.text)
		}
	}
	return a
}

func memCall(t *testing.T, s *session, tool string, args map[string]any) memAnswer {
	t.Helper()
	res, err := s.CallTool(context.Background(), tool, args)
	return answerOf(t, res, err)
}

// mustSave saves and fails the test on a refusal.
func mustSave(t *testing.T, s *session, args map[string]any) savedFact {
	t.Helper()
	a := memCall(t, s, "memory_save", args)
	if a.isError {
		t.Fatalf("memory_save %v: %s", args, a.text)
	}
	return a.Saved
}

func TestMemorySaveSearchBrowse(t *testing.T) {
	h, _ := newMemoryHub(t, Options{})
	s := memSession(t, h, toolcall.Binding{})
	deploy := mustSave(t, s, map[string]any{"title": "Deploys", "content": "Production deployments go out on Tuesdays via the ship script.", "tags": []any{"ops", "ops", "release"}})
	mustSave(t, s, map[string]any{"title": "Database", "content": "PostgreSQL 15 is the primary datastore."})
	mustSave(t, s, map[string]any{"title": "Frontend", "content": "The dashboard uses React and Vite."})
	if deploy.Kind != "fact" || deploy.Embedder != hashEmbedderID || !strings.HasPrefix(deploy.ID, "mem_") || deploy.Redacted {
		t.Fatalf("%+v", deploy)
	}

	b := memCall(t, s, "memory_browse", nil)
	if got := b.titles(); !slices.Equal(got, []string{"Frontend", "Database", "Deploys"}) {
		t.Fatalf("browse: %v", got)
	}
	if it := b.Items[2]; !slices.Equal(it.Tags, []string{"ops", "release"}) || it.CreatedAt == "" || it.Kind != "fact" {
		t.Fatalf("%+v", it)
	}
	if got := memCall(t, s, "memory_browse", map[string]any{"limit": 1}).titles(); len(got) != 1 {
		t.Fatal(got)
	}
	for _, mode := range []string{"fts", "vector", "hybrid", ""} {
		args := map[string]any{"query": "when do we deploy to production?"}
		if mode != "" {
			args["mode"] = mode
		}
		a := memCall(t, s, "memory_search", args)
		if a.isError || len(a.Results) == 0 || a.Results[0].ID != deploy.ID || a.Results[0].Score <= 0 {
			t.Fatalf("mode %q: %s", mode, a.text)
		}
		if mode != "fts" && !slices.Equal(a.Embedders, []string{hashEmbedderID}) {
			t.Fatalf("mode %q embedders %v", mode, a.Embedders)
		}
	}
	// A query with no word in common: fts finds nothing, and says so.
	if a := memCall(t, s, "memory_search", map[string]any{"query": "xylophone", "mode": "fts"}); a.isError || len(a.Results) != 0 {
		t.Fatal(a.text)
	}
}

func TestMemoryInvalidArgs(t *testing.T) {
	h, st := newMemoryHub(t, Options{})
	s := memSession(t, h, toolcall.Binding{})
	tags := make([]any, maxTags+1)
	for i := range tags {
		tags[i] = "t"
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"memory_save", map[string]any{"title": "x"}, "content is required"},
		{"memory_save", map[string]any{"title": "x", "content": "   "}, "content is required"},
		{"memory_save", map[string]any{"content": "no title"}, "a fact needs a title"},
		{"memory_save", map[string]any{"title": "x", "content": strings.Repeat("a", maxContentBytes+1)}, "at most 16384"},
		{"memory_save", map[string]any{"title": strings.Repeat("t", maxTitleBytes+1), "content": "x"}, "title is longer"},
		{"memory_save", map[string]any{"title": "x", "content": "x", "tags": tags}, "at most 16 tags"},
		{"memory_save", map[string]any{"title": "x", "content": "x", "tags": []any{" "}}, "tags are non-empty"},
		{"memory_save", map[string]any{"title": "x", "content": "x", "tags": []any{1}}, "invalid args"},
		{"memory_save", map[string]any{"title": "x", "content": "x", "scopeTeamId": "bad team"}, "scopeTeamId"},
		{"memory_save", map[string]any{"title": "x", "content": "x", "teamId": "t"}, "unknown field"},
		{"memory_search", map[string]any{}, "query is required"},
		{"memory_search", map[string]any{"query": strings.Repeat("q", maxQueryBytes+1)}, "query is longer"},
		{"memory_search", map[string]any{"query": "q", "mode": "semantic"}, "mode is fts, vector or hybrid"},
		{"memory_search", map[string]any{"query": "q", "limit": 101}, "limit is 1..100"},
		{"memory_search", map[string]any{"query": "q", "limit": -1}, "limit is 1..100"},
		{"memory_search", map[string]any{"query": "q", "limit": 2.5}, "invalid args"},
		{"memory_browse", map[string]any{"limit": 201}, "limit is 1..200"},
		{"memory_browse", map[string]any{"scopeAgentId": strings.Repeat("a", 129)}, "scopeAgentId"},
	} {
		a := memCall(t, s, tc.tool, tc.args)
		if !a.isError || a.denied != "invalid_args" || !strings.Contains(a.text, tc.want) {
			t.Errorf("%s %v: %q (denied %q), want %q", tc.tool, tc.args, a.text, a.denied, tc.want)
		}
	}
	var n int
	if err := st.Reader().QueryRow(`SELECT COUNT(*) FROM memory_facts`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d facts stored by refused calls (%v)", n, err)
	}
}

func TestMemoryProcedureVersions(t *testing.T) {
	h, _ := newMemoryHub(t, Options{})
	s := memSession(t, h, toolcall.Binding{TeamID: "team-a", AgentID: "alice"})
	v1 := mustSave(t, s, map[string]any{"procedureName": "release", "content": "1. tag 2. push"})
	v2 := mustSave(t, s, map[string]any{"procedureName": "release", "title": "How to release", "content": "1. tag 2. push 3. announce"})
	if v1.Kind != "procedure" || v1.Version != 1 || v1.Title != "release" || v2.Version != 2 || v2.Supersedes != v1.ID {
		t.Fatalf("%+v %+v", v1, v2)
	}
	// Another team's procedure of the same name is its own line.
	other := memSession(t, h, toolcall.Binding{TeamID: "team-b"})
	if v := mustSave(t, other, map[string]any{"procedureName": "release", "content": "ship it"}); v.Version != 1 {
		t.Fatalf("%+v", v)
	}
	b := memCall(t, s, "memory_browse", nil)
	if len(b.Items) != 1 || b.Items[0].ID != v2.ID || b.Items[0].Version != 2 || b.Items[0].ProcedureName != "release" {
		t.Fatal(b.text)
	}
	a := memCall(t, s, "memory_search", map[string]any{"query": "release announce"})
	if len(a.Results) != 1 || a.Results[0].ID != v2.ID {
		t.Fatalf("search shows only the current version: %s", a.text)
	}
}

func TestMemoryWithoutStore(t *testing.T) {
	h := newTestServer(Options{})
	s := memSession(t, h, toolcall.Binding{})
	for _, tool := range []string{"memory_save", "memory_search", "memory_browse"} {
		a := memCall(t, s, tool, map[string]any{})
		if !a.isError || !strings.Contains(a.text, "without a database") {
			t.Fatalf("%s: %s", tool, a.text)
		}
	}
}
