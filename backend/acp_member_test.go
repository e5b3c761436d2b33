package backend

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/teams"
	"github.com/clawboo/desktop/internal/testkit"
)

// acpRig is a served backend with one person's ACP agent (the scripted
// one, taking MCP servers over HTTP) and agents on it.
type acpRig struct {
	b       *Backend
	h       http.Handler
	runtime string
}

func newACPRig(t *testing.T) *acpRig {
	t.Helper()
	fake := buildFakeACP(t)
	b := e2eBackend(t, map[string]string{"FAKEACP_MCP_HTTP": "1"})
	serveForTest(t, b)
	rg := &acpRig{b: b, h: authed(b)}
	var made struct{ Runtime struct{ ID string } }
	if code := e2eDo(t, rg.h, "POST", "/api/acp/agents", map[string]any{"name": "Scripted", "command": fake, "envVars": []string{"FAKEACP_MCP_HTTP"}}, &made); code != http.StatusCreated {
		t.Fatalf("add the ACP agent: %d", code)
	}
	rg.runtime = made.Runtime.ID
	return rg
}

func (rg *acpRig) agent(t *testing.T, name string) string {
	t.Helper()
	rt := rg.runtime
	a, err := rg.b.Agents.Create(context.Background(), agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// runsOf are an agent's runs, oldest first.
func (rg *acpRig) runsOf(t *testing.T, agentID string) []store.Run {
	t.Helper()
	all, err := rg.b.Store.ListRuns(context.Background(), "", 200)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Run
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].AgentID != nil && *all[i].AgentID == agentID {
			out = append(out, all[i])
		}
	}
	return out
}

// TestACPLeaderDelegatesThroughItsSignedSession: an ACP agent leads a team.
// Its turn's session is signed for delegation, so its team_delegate call on
// the TeamChat MCP server (over HTTP, with the run's own token) hands a task
// to its ACP member; the member's session is not signed, so the same call
// from it is refused. The member writes its file in its worktree, reports
// up, and the leader takes its [Task Update] turn.
func TestACPLeaderDelegatesThroughItsSignedSession(t *testing.T) {
	rg := newACPRig(t)
	lead, member := rg.agent(t, "Leada"), rg.agent(t, "Memba")
	var created struct{ Team teams.Team }
	if code := e2eDo(t, rg.h, "POST", "/api/teams", map[string]any{
		"name": "All ACP", "leaderAgentId": lead, "brief": "Write notes.", "repoPath": e2eRepo(t),
	}, &created); code != http.StatusCreated {
		t.Fatalf("create team: %d", code)
	}
	if code := e2eDo(t, rg.h, "POST", "/api/teams/"+created.Team.ID+"/agents", map[string]any{"agentId": member}, &created); code != http.StatusOK {
		t.Fatalf("add the member: %d", code)
	}
	team := created.Team
	inner, _ := json.Marshal(map[string]any{"assignee": lead, "task": "a member may not delegate"})
	task := "Write the lead note\n!write notes/lead.md from the ACP leader\\n\n" +
		"!mcp clawboo-teamchat team_delegate " + string(inner) + "\n!say member done"
	args, _ := json.Marshal(map[string]any{"assignee": member, "task": task})
	if code := e2eDo(t, rg.h, "POST", "/api/teams/"+team.ID+"/chat", map[string]any{"message": "!mcp clawboo-teamchat team_delegate " + string(args)}, nil); code != http.StatusAccepted {
		t.Fatalf("chat: %d", code)
	}
	room := func() (string, int) {
		var out struct{ Posts []wirePost }
		e2eDo(t, rg.h, "GET", "/api/teams/"+team.ID+"/chat?after=0&limit=500", nil, &out)
		var s strings.Builder
		delegations := 0
		for _, p := range out.Posts {
			s.WriteString(p.AuthorName + " [" + p.Kind + "] " + p.Body + "\n")
			if p.Kind == "delegate" {
				delegations++
			}
		}
		return s.String(), delegations
	}
	testkit.EventuallySays(t, 60*time.Second, "the member reports up and the leader takes its [Task Update] turn", func() (bool, string) {
		text, _ := room()
		runs := rg.runsOf(t, lead)
		return strings.Contains(text, "Memba [peer] Report on ") && len(runs) == 2 && runs[1].Status == store.RunSucceeded, text
	})
	text, delegations := room()
	if delegations != 1 {
		t.Fatalf("%d delegations, want the leader's one:\n%s", delegations, text)
	}
	leaderRuns := rg.runsOf(t, lead)
	if !strings.Contains(leaderRuns[0].Summary, "mcp: ") || strings.Contains(leaderRuns[0].Summary, "mcp error") {
		t.Fatalf("the leader's team_delegate: %q", leaderRuns[0].Summary)
	}
	memberRuns := rg.runsOf(t, member)
	if len(memberRuns) != 1 || !strings.Contains(memberRuns[0].Summary, "mcp error") || !strings.Contains(memberRuns[0].Summary, "member done") {
		t.Fatalf("the member's runs: %+v", memberRuns)
	}
	ts, err := rg.b.Board.List(context.Background(), board.Filter{TeamID: team.ID})
	if err != nil {
		t.Fatal(err)
	}
	var child *board.Task
	for i := range ts {
		if ts[i].AssigneeAgentID != nil && *ts[i].AssigneeAgentID == member {
			child = &ts[i]
		}
	}
	if child == nil || child.Status != board.InReview {
		t.Fatalf("the member's task: %+v\n%s", child, text)
	}
	var diff struct {
		Paths []string `json:"paths"`
		Diff  string   `json:"diff"`
	}
	if code := e2eDo(t, rg.h, "GET", "/api/board/"+child.ID+"/diff", nil, &diff); code != http.StatusOK || len(diff.Paths) != 1 ||
		diff.Paths[0] != "notes/lead.md" || !strings.Contains(diff.Diff, "+from the ACP leader") {
		t.Fatalf("diff: %d %+v", code, diff)
	}
}

// TestACPAgentAsRoutineAgentAndCritic: a routine's agent on an ACP runtime
// runs its task; a task with the critic on is reviewed by a fresh session
// of the same ACP agent, whose findings are read and recorded.
func TestACPAgentAsRoutineAgentAndCritic(t *testing.T) {
	rg := newACPRig(t)
	nightly := rg.agent(t, "Nightly")
	routine := &routineRig{b: rg.b, h: rg.h}
	sc := routine.create(t, nightly, map[string]any{"title": "Nightly note", "description": "!say nightly from ACP", "kind": "research"})
	f := routine.runNow(t, sc.ID, time.Minute)
	if f.Outcome != "success" || f.RunID == nil {
		t.Fatalf("fire %+v", f)
	}
	if run := routine.run(t, *f.RunID); run.RuntimeID != rg.runtime || run.Summary != "nightly from ACP" || run.AgentID == nil || *run.AgentID != nightly {
		t.Fatalf("the routine's run: %+v", run)
	}

	coder := rg.agent(t, "Coder")
	var created struct{ Task board.Task }
	desc := "Write hello.txt.\n!write hello.txt hi\\n\n!say {\"findings\":[{\"severity\":\"style\",\"file\":\"hello.txt\",\"note\":\"call it greeting.txt\"}]}"
	if code := e2eDo(t, rg.h, "POST", "/api/board", map[string]any{
		"title": "Greet", "description": desc, "repoPath": e2eRepo(t), "assigneeAgentId": coder, "critic": "on",
		"verifyCommand": "test -f hello.txt",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create task: %d", code)
	}
	task := created.Task
	var started struct{ RunID string }
	if code := e2eDo(t, rg.h, "POST", "/api/runtimes/"+rg.runtime+"/run", map[string]any{"taskId": task.ID, "agentId": coder, "wait": false}, &started); code/100 != 2 {
		t.Fatalf("run the task: %d", code)
	}
	comments := func() string {
		cs, _ := rg.b.Board.Comments(context.Background(), task.ID)
		var all []string
		for _, c := range cs {
			all = append(all, c.Body)
		}
		return strings.Join(all, "\n---\n")
	}
	var critic *store.Run
	testkit.EventuallySays(t, 60*time.Second, "the task reaches review after the critic's run", func() (bool, string) {
		for _, r := range rg.runsOf(t, coder) {
			if strings.HasPrefix(r.Title, "Critic review of") && !r.Live() {
				critic = &r
			}
		}
		got, err := rg.b.Board.Get(context.Background(), task.ID)
		return err == nil && critic != nil && got.Status == board.InReview, string(got.Status) + "\n" + comments()
	})
	// The critic's answer was read as findings and recorded as debt.
	if !strings.Contains(comments(), "- [style] hello.txt — call it greeting.txt") {
		t.Fatalf("the critic's finding was not recorded:\n%s", comments())
	}
	if critic == nil || critic.RuntimeID != rg.runtime || critic.Status != store.RunSucceeded {
		t.Fatalf("no critic run on the ACP runtime: %+v\n%s", critic, comments())
	}
}

// TestWelcomeOffersReadyACPAgents: the welcome's specialists list a ready
// ACP agent, and ticking it makes a member on it, named as its runtime.
func TestWelcomeOffersReadyACPAgents(t *testing.T) {
	rg := newACPRig(t)
	var state struct {
		Specialists []struct {
			Runtime, Name string
			Ready         bool
		}
	}
	if code := e2eDo(t, rg.h, "GET", "/api/onboarding/state", nil, &state); code != http.StatusOK {
		t.Fatalf("state: %d", code)
	}
	var offered []string
	for _, s := range state.Specialists {
		offered = append(offered, s.Runtime)
		if s.Runtime == rg.runtime && (!s.Ready || s.Name != "Scripted") {
			t.Fatalf("offered %+v", s)
		}
		if strings.HasPrefix(s.Runtime, "acp-") && s.Runtime != rg.runtime {
			t.Fatalf("an ACP agent that is not installed here is offered: %+v", s)
		}
	}
	if strings.Join(offered, ",") != "claude-code,codex,"+rg.runtime {
		t.Fatalf("offered %v", offered)
	}
	if err := rg.b.Vault.Set(context.Background(), "ANTHROPIC_API_KEY", "sk-ant-test-welcome"); err != nil {
		t.Fatal(err)
	}
	var seeded struct{ Team teams.Team }
	if code := e2eDo(t, rg.h, "POST", "/api/onboarding/seed-native-team", map[string]any{"provider": "anthropic", "specialists": []string{rg.runtime}}, &seeded); code != http.StatusCreated {
		t.Fatalf("seed: %d", code)
	}
	found := false
	for _, m := range seeded.Team.Members {
		if m.Runtime == rg.runtime {
			found = m.Name == "Scripted" && m.Role == "member"
		}
	}
	if !found {
		t.Fatalf("no member on the ACP agent in %+v", seeded.Team)
	}
}
