package mcp

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"

	"github.com/clawboo/desktop/backend/store"
)

// The Memory tools' own tests (backend/mcp/memory) drive them in-process;
// this one checks the hub's part: over HTTP, a signed binding scopes what
// a session saves and sees, and a scope naming another team is refused.
func TestMemoryOverHTTP(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := newTestHub(t, Options{Store: st})
	srv := httptest.NewServer(h)
	defer srv.Close()
	auth := map[string]string{"Authorization": "Bearer " + testToken}
	type answer struct {
		text    string
		isError bool
		denied  string
		Saved   struct{ ScopeTeamID string }
		Results []struct{ Title string }
	}
	connect := func(b Binding) func(tool string, args map[string]any) answer {
		c, err := httpClient(t, srv.URL+"/mcp/memory?"+h.Signer().Query(b), auth)
		if err != nil {
			t.Fatal(err)
		}
		return func(tool string, args map[string]any) answer {
			res, err := call(c, tool, args)
			a := answer{text: callText(t, res, err), isError: res.IsError}
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
	}
	titles := func(a answer) []string {
		var out []string
		for _, r := range a.Results {
			out = append(out, r.Title)
		}
		return out
	}
	alice, carol := connect(Binding{TeamID: "team-a", AgentID: "alice"}), connect(Binding{TeamID: "team-b", AgentID: "carol"})
	if a := alice("memory_save", map[string]any{"title": "Queue", "content": "Jobs run on RabbitMQ."}); a.isError || a.Saved.ScopeTeamID != "team-a" {
		t.Fatal(a.text)
	}
	if a := alice("memory_save", map[string]any{"title": "x", "content": "x", "scopeTeamId": "team-b"}); a.denied != "scope_denied" {
		t.Fatal(a.text)
	}
	if got := titles(alice("memory_search", map[string]any{"query": "rabbitmq jobs"})); !slices.Equal(got, []string{"Queue"}) {
		t.Fatal(got)
	}
	if got := titles(carol("memory_search", map[string]any{"query": "rabbitmq jobs"})); len(got) != 0 {
		t.Fatalf("team-b sees team-a's fact: %v", got)
	}
}
