package memory

import (
	"slices"
	"sort"
	"testing"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
)

// seedScopes saves one fact per scope through an unbound session; every
// fact mentions "zebra", so each search below matches all of them.
func seedScopes(t *testing.T, s *session) {
	t.Helper()
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
		mustSave(t, s, args)
	}
}

// caller is anything that calls a Memory tool (in-process or HTTP).
type caller func(tool string, args map[string]any) memAnswer

// seen is every title visible through every read tool and mode.
func seen(t *testing.T, call caller, extra map[string]any) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	reads := map[string]map[string]any{
		"browse":        {},
		"search fts":    {"query": "zebra crossing", "mode": "fts", "limit": 100},
		"search vector": {"query": "zebra crossing", "mode": "vector", "limit": 100},
		"search hybrid": {"query": "zebra crossing", "limit": 100},
	}
	for name, args := range reads {
		for k, v := range extra {
			args[k] = v
		}
		tool := "memory_search"
		if name == "browse" {
			tool = "memory_browse"
		}
		a := call(tool, args)
		if a.isError {
			t.Fatalf("%s: %s", name, a.text)
		}
		got := a.titles()
		sort.Strings(got)
		out[name] = got
	}
	return out
}

func TestMemoryScopeIsolation(t *testing.T) {
	h, _ := newMemoryHub(t, Options{})
	seedScopes(t, memSession(t, h, toolcall.Binding{}))
	inProc := func(b toolcall.Binding) caller {
		s := memSession(t, h, b)
		return func(tool string, args map[string]any) memAnswer { return memCall(t, s, tool, args) }
	}
	all := []string{"alice-only", "global", "team-a", "team-a-alice", "team-a-bob", "team-b", "team-b-carol"}
	for _, tc := range []struct {
		name  string
		b     toolcall.Binding
		extra map[string]any
		want  []string
	}{
		{"team-a alice", toolcall.Binding{TeamID: "team-a", AgentID: "alice"}, nil, []string{"alice-only", "global", "team-a", "team-a-alice"}},
		{"team-a alice naming herself", toolcall.Binding{TeamID: "team-a", AgentID: "alice"}, map[string]any{"scopeTeamId": "team-a", "scopeAgentId": "alice"}, []string{"alice-only", "global", "team-a", "team-a-alice"}},
		{"team-a, no agent", toolcall.Binding{TeamID: "team-a"}, nil, []string{"global", "team-a"}},
		{"team-b carol", toolcall.Binding{TeamID: "team-b", AgentID: "carol"}, nil, []string{"global", "team-b", "team-b-carol"}},
		{"agent only", toolcall.Binding{AgentID: "alice"}, nil, []string{"alice-only", "global"}},
		{"unbound", toolcall.Binding{}, nil, all},
		{"unbound, team-a filter", toolcall.Binding{}, map[string]any{"scopeTeamId": "team-a"}, []string{"global", "team-a"}},
		{"unbound, team-b carol filter", toolcall.Binding{}, map[string]any{"scopeTeamId": "team-b", "scopeAgentId": "carol"}, []string{"global", "team-b", "team-b-carol"}},
	} {
		for transport, open := range map[string]func(toolcall.Binding) caller{"in-process": inProc} {
			for read, got := range seen(t, open(tc.b), tc.extra) {
				if !slices.Equal(got, tc.want) {
					t.Errorf("%s over %s, %s: saw %v, want %v", tc.name, transport, read, got, tc.want)
				}
				for _, title := range got {
					team := map[string]string{"team-a": "team-a", "team-a-alice": "team-a", "team-a-bob": "team-a", "team-b": "team-b", "team-b-carol": "team-b"}[title]
					if tc.b.TeamID != "" && team != "" && team != tc.b.TeamID {
						t.Errorf("%s over %s: another team's fact %q leaked", tc.name, transport, title)
					}
				}
			}
		}
	}
}

func TestMemorySpoofedScopeIsRefused(t *testing.T) {
	h, st := newMemoryHub(t, Options{})
	seedScopes(t, memSession(t, h, toolcall.Binding{}))
	s := memSession(t, h, toolcall.Binding{TeamID: "team-a", AgentID: "alice"})
	agentOnly := memSession(t, h, toolcall.Binding{AgentID: "alice"})
	for _, tc := range []struct {
		s    *session
		tool string
		args map[string]any
	}{
		{s, "memory_save", map[string]any{"title": "x", "content": "x", "scopeTeamId": "team-b"}},
		{s, "memory_save", map[string]any{"title": "x", "content": "x", "scopeAgentId": "bob"}},
		{s, "memory_search", map[string]any{"query": "zebra", "scopeTeamId": "team-b"}},
		{s, "memory_search", map[string]any{"query": "zebra", "mode": "vector", "scopeAgentId": "carol"}},
		{s, "memory_browse", map[string]any{"scopeTeamId": "team-b"}},
		{s, "memory_browse", map[string]any{"scopeTeamId": "team-a", "scopeAgentId": "bob"}},
		{agentOnly, "memory_browse", map[string]any{"scopeTeamId": "team-a"}},
	} {
		a := memCall(t, tc.s, tc.tool, tc.args)
		if !a.isError || a.denied != "scope_denied" || len(a.Results)+len(a.Items) != 0 {
			t.Errorf("%s %v: %q (denied %q)", tc.tool, tc.args, a.text, a.denied)
		}
	}
	var n int
	if err := st.Reader().QueryRow(`SELECT COUNT(*) FROM memory_facts WHERE title = 'x'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d refused saves stored (%v)", n, err)
	}
}

func TestMemoryBoundSavesAreTeamShared(t *testing.T) {
	h, _ := newMemoryHub(t, Options{})
	alice := memSession(t, h, toolcall.Binding{TeamID: "team-a", AgentID: "alice"})
	bob := memSession(t, h, toolcall.Binding{TeamID: "team-a", AgentID: "bob"})
	carol := memSession(t, h, toolcall.Binding{TeamID: "team-b", AgentID: "carol"})
	loner := memSession(t, h, toolcall.Binding{AgentID: "dave"})

	shared := mustSave(t, alice, map[string]any{"title": "shared", "content": "okapi habitat"})
	private := mustSave(t, alice, map[string]any{"title": "private", "content": "okapi diet", "scopeAgentId": "alice"})
	solo := mustSave(t, loner, map[string]any{"title": "solo", "content": "okapi sightings"})
	if shared.ScopeTeamID != "team-a" || shared.ScopeAgentID != "" || private.ScopeAgentID != "alice" ||
		solo.ScopeTeamID != "" || solo.ScopeAgentID != "dave" {
		t.Fatalf("%+v %+v %+v", shared, private, solo)
	}
	for _, tc := range []struct {
		name string
		s    *session
		want []string
	}{
		{"alice", alice, []string{"private", "shared"}},
		{"bob", bob, []string{"shared"}},
		{"carol", carol, nil},
		{"dave", loner, []string{"solo"}},
	} {
		got := memCall(t, tc.s, "memory_search", map[string]any{"query": "okapi"}).titles()
		sort.Strings(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s sees %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestReadScopeMatchesSQL(t *testing.T) {
	// visible (Go) and scopeWhere (SQL) state the same rule; the isolation
	// test above checks the SQL, this pins the Go form to it.
	sc := readScope{team: "t", agent: "a"}
	for _, tc := range []struct {
		team, agent string
		want        bool
	}{{"", "", true}, {"t", "", true}, {"t", "a", true}, {"", "a", true}, {"u", "", false}, {"t", "b", false}, {"u", "a", false}} {
		if got := sc.visible(tc.team, tc.agent); got != tc.want {
			t.Errorf("visible(%q, %q) = %v", tc.team, tc.agent, got)
		}
	}
	if !(readScope{all: true}).visible("u", "b") {
		t.Error("unscoped must see all")
	}
}
