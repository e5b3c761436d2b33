package backend

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
	"github.com/clawboo/desktop/backend/teams"
	"github.com/clawboo/desktop/internal/testkit"
)

// TestTeamNativeLeaderWithAnACPMember: a native leader (its delegate tool
// scripted through the fake provider) hands a code task to a member on an
// ACP agent (the scripted one, added as a person's own). The member's run
// writes a file in its worktree through the ACP client's fs method, its
// task lands in review with the file in its diff, it reports up in the
// room, and the leader takes its [Task Update] turn.
func TestTeamNativeLeaderWithAnACPMember(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	fake := buildFakeACP(t)
	native := fakeprovider.New()
	srv := httptest.NewServer(native)
	t.Cleanup(srv.Close)
	b := e2eBackend(t, map[string]string{"ANTHROPIC_BASE_URL": srv.URL})
	serveForTest(t, b)
	h := authed(b)
	if err := b.Vault.Set(ctx, "ANTHROPIC_API_KEY", "sk-ant-test-leader-key"); err != nil {
		t.Fatal(err)
	}
	var made struct{ Runtime struct{ ID string } }
	if code := e2eDo(t, h, "POST", "/api/acp/agents", map[string]any{"name": "Scripted", "command": fake}, &made); code != http.StatusCreated {
		t.Fatalf("add the ACP agent: %d", code)
	}
	ids := map[string]string{}
	for name, rt := range map[string]string{"Lead": "clawboo-native", "Acey": made.Runtime.ID} {
		in := agents.Input{Name: &name, Runtime: &rt}
		if name == "Lead" {
			in.Config = json.RawMessage(`{"systemPrompt":"You lead the team.","primaryProvider":"anthropic","primaryModel":"claude-haiku-4-5",` +
				`"envVar":"ANTHROPIC_API_KEY","tools":{"memory":false,"tools":false,"tasks":false,"teamchat":false},"maxTurns":10}`)
		}
		a, err := b.Agents.Create(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = a.ID
	}
	var created struct{ Team teams.Team }
	if code := e2eDo(t, h, "POST", "/api/teams", map[string]any{
		"name": "Mixed", "leaderAgentId": ids["Lead"], "brief": "Greet people.", "repoPath": e2eRepo(t),
	}, &created); code != http.StatusCreated {
		t.Fatalf("create team: %d", code)
	}
	if code := e2eDo(t, h, "POST", "/api/teams/"+created.Team.ID+"/agents", map[string]any{"agentId": ids["Acey"]}, &created); code != http.StatusOK {
		t.Fatalf("add the member: %d", code)
	}
	team := created.Team
	args, _ := json.Marshal(map[string]any{
		"assignee": "@Acey", "kind": "code",
		"task": "Write the ACP greeting\n!write notes/acp.md hello from an ACP agent\\n\n!say acp child done",
	})
	native.Push("/v1/messages",
		fakeprovider.Tools(fakeprovider.ToolCall{ID: "toolu_a1", Name: "delegate", Args: string(args)}),
		fakeprovider.Text("planned"), fakeprovider.Text("wrapped up"), fakeprovider.Text("wrapped up"))

	var res struct{ RunID string }
	if code := e2eDo(t, h, "POST", "/api/teams/"+team.ID+"/chat", map[string]any{"message": "Greet our users, please."}, &res); code != http.StatusAccepted {
		t.Fatalf("chat: %d", code)
	}
	posts := func() []wirePost {
		var out struct{ Posts []wirePost }
		e2eDo(t, h, "GET", "/api/teams/"+team.ID+"/chat?after=0&limit=500", nil, &out)
		return out.Posts
	}
	room := func() string {
		var s strings.Builder
		for _, p := range posts() {
			s.WriteString(p.AuthorName + " [" + p.Kind + "] " + p.Body + "\n")
		}
		return s.String()
	}
	testkit.EventuallySays(t, 60*time.Second, "the ACP member reports up and the leader wraps up", func() (bool, string) {
		var report, wrapped bool
		for _, p := range posts() {
			report = report || p.AuthorAgentID == ids["Acey"] && p.Kind == "peer" && strings.HasPrefix(p.Body, "Report on ")
			wrapped = wrapped || p.AuthorName == "Lead" && p.Body == "wrapped up"
		}
		return report && wrapped, room()
	})
	ts, err := b.Board.List(ctx, board.Filter{TeamID: team.ID})
	if err != nil {
		t.Fatal(err)
	}
	var child *board.Task
	for i := range ts {
		if ts[i].AssigneeAgentID != nil && *ts[i].AssigneeAgentID == ids["Acey"] {
			child = &ts[i]
		}
	}
	if child == nil || child.Status != board.InReview {
		t.Fatalf("the member's task: %+v\n%s", child, room())
	}
	var diff struct {
		Paths []string `json:"paths"`
		Diff  string   `json:"diff"`
	}
	if code := e2eDo(t, h, "GET", "/api/board/"+child.ID+"/diff", nil, &diff); code != http.StatusOK || len(diff.Paths) != 1 ||
		diff.Paths[0] != "notes/acp.md" || !strings.Contains(diff.Diff, "+hello from an ACP agent") {
		t.Fatalf("diff: %d %+v", code, diff)
	}
}
