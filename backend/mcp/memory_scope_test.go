package mcp

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"

	"github.com/clawboo/desktop/backend/store"
	"github.com/mark3labs/mcp-go/mcp"
)

// The memory package checks which facts each binding sees in-process,
// against the expected lists; this checks that over HTTP, with the binding
// signed into the URL, every read answers exactly what the in-process
// Session of the same binding answers.
func TestMemoryScopeSameOverHTTP(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := newTestHub(t, Options{Store: st})
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx := context.Background()
	seed, err := h.Session(ctx, Memory, Binding{})
	if err != nil {
		t.Fatal(err)
	}
	defer seed.Close()
	for _, f := range []struct{ title, team, agent string }{
		{"global", "", ""},
		{"team-a", "team-a", ""},
		{"team-a-alice", "team-a", "alice"},
		{"team-a-bob", "team-a", "bob"},
		{"alice-only", "", "alice"},
		{"team-b", "team-b", ""},
		{"team-b-carol", "team-b", "carol"},
	} {
		args := map[string]any{"title": f.title, "content": "zebra crossing notes for " + f.title}
		if f.team != "" {
			args["scopeTeamId"] = f.team
		}
		if f.agent != "" {
			args["scopeAgentId"] = f.agent
		}
		if res, err := seed.CallTool(ctx, "memory_save", args); err != nil || res.IsError {
			t.Fatalf("%v %+v", err, res)
		}
	}
	titles := func(res *mcp.CallToolResult, err error) []string {
		t.Helper()
		var a struct{ Results, Items []struct{ Title string } }
		if text := callText(t, res, err); res.IsError || json.Unmarshal([]byte(text), &a) != nil {
			t.Fatalf("%s", text)
		}
		var out []string
		for _, it := range append(a.Results, a.Items...) {
			out = append(out, it.Title)
		}
		slices.Sort(out)
		return out
	}
	auth := map[string]string{"Authorization": "Bearer " + testToken}
	reads := map[string]map[string]any{
		"memory_browse":        {},
		"memory_search fts":    {"query": "zebra crossing", "mode": "fts", "limit": 100},
		"memory_search vector": {"query": "zebra crossing", "mode": "vector", "limit": 100},
		"memory_search hybrid": {"query": "zebra crossing", "limit": 100},
	}
	for _, tc := range []struct {
		b     Binding
		extra map[string]any
	}{
		{Binding{TeamID: "team-a", AgentID: "alice"}, nil},
		{Binding{TeamID: "team-a", AgentID: "alice"}, map[string]any{"scopeTeamId": "team-a", "scopeAgentId": "alice"}},
		{Binding{TeamID: "team-a"}, nil},
		{Binding{TeamID: "team-b", AgentID: "carol"}, nil},
		{Binding{AgentID: "alice"}, nil},
		{Binding{}, nil},
		{Binding{}, map[string]any{"scopeTeamId": "team-a"}},
		{Binding{}, map[string]any{"scopeTeamId": "team-b", "scopeAgentId": "carol"}},
	} {
		url := srv.URL + "/mcp/memory"
		if q := h.Signer().Query(tc.b); q != "" {
			url += "?" + q
		}
		c, err := httpClient(t, url, auth)
		if err != nil {
			t.Fatal(err)
		}
		s, err := h.Session(ctx, Memory, tc.b)
		if err != nil {
			t.Fatal(err)
		}
		for read, args := range reads {
			args = withArgs(args, tc.extra)
			tool := "memory_search"
			if read == "memory_browse" {
				tool = read
			}
			web := titles(call(c, tool, args))
			local := titles(s.CallTool(ctx, tool, args))
			if len(local) == 0 || !slices.Equal(web, local) {
				t.Errorf("%+v %v, %s: http saw %v, in-process %v", tc.b, tc.extra, read, web, local)
			}
		}
		_ = s.Close()
	}
}

// withArgs is a copy of a with b's entries on top.
func withArgs(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
