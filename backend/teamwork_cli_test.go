package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/fakes/fakeanthropic"
	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/teams"
)

// TestTeamMixedRealCLIs: a mixed team on the real CLIs, offline — a native
// leader with a Claude Code and a Codex specialist.
//
// First the native leader (its delegate tool, scripted through the fake
// provider) hands a code task to each specialist. Each child runs its real
// CLI in the task runner, in its own worktree of a real repository: it
// writes a file with its shell tool and claims a follow-up task over the
// Tasks MCP server, and its task lands in review with the file in its
// diff. Each reports up (a post in the room and a comment on the mission),
// and the leader takes its [Task Update] follow-up turn. The specialists'
// runs are not offered team_delegate.
//
// Then Claude Code leads: its team turn is signed delegate=1, so the CLI
// is offered the TeamChat server's team_delegate and calls it; the task is
// made under a new mission for the Codex specialist, runs, reports up, and
// Claude Code takes the [Task Update] turn (resuming its session). A
// signed team_delegate from a member that is not leading a live turn is
// refused with a post in the room.
func TestTeamMixedRealCLIs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	rg := newMixedRig(t, ctx)
	rg.agent(t, ctx, "Lead", "clawboo-native", `{"systemPrompt":"You lead the team.","primaryProvider":"anthropic",`+
		`"primaryModel":"claude-haiku-4-5","envVar":"ANTHROPIC_API_KEY",`+
		`"tools":{"memory":false,"tools":false,"tasks":false,"teamchat":false},"maxTurns":10}`)
	rg.agent(t, ctx, "Claudia", "claude-code", "")
	rg.agent(t, ctx, "Codey", "codex", "")
	repo := e2eRepo(t)
	var created struct{ Team teams.Team }
	if code := e2eDo(t, rg.h, "POST", "/api/teams", map[string]any{
		"name": "Mixed", "leaderAgentId": rg.ids["Lead"],
		"brief": "Greet people well.", "repoPath": repo,
	}, &created); code != http.StatusCreated {
		t.Fatalf("create team: %d", code)
	}
	for _, name := range []string{"Claudia", "Codey"} {
		if code := e2eDo(t, rg.h, "POST", "/api/teams/"+created.Team.ID+"/agents", map[string]any{"agentId": rg.ids[name]}, &created); code != http.StatusOK {
			t.Fatalf("add %s: %d", name, code)
		}
	}
	rg.team = created.Team
	// A follow-up task on the team's board for each specialist to claim.
	followUps := map[string]string{}
	for _, name := range []string{"Claudia", "Codey"} {
		var tc struct{ Task board.Task }
		if code := e2eDo(t, rg.h, "POST", "/api/board", map[string]any{
			"title":  "Proofread the greeting of " + name,
			"teamId": rg.team.ID, "status": "todo",
		}, &tc); code != http.StatusCreated {
			t.Fatalf("create follow-up: %d", code)
		}
		followUps[name] = tc.Task.ID
	}

	// The scripts. Each CLI's user text carries its context (the room's
	// unseen posts, the open tasks) above its message, so the more
	// specific rules come first.
	const (
		claudeTask = "Write the claude greeting (CLAUDE-CHILD)\nPut a greeting in notes/claude.md."
		codexTask  = "Write the codex greeting (CODEX-CHILD)\nPut a greeting in notes/codex.md."
		reviewTask = "Review both greetings (CODEX-REVIEW)"
		taskUpdate = `\[Task Update\]\n- @`
	)
	rg.claude.SetRules(
		fakeanthropic.Rule{Match: taskUpdate, Text: "wrapped up by Claudia"},
		fakeanthropic.Rule{
			Match: "LEAD-BY-CLAUDE", Tool: "^mcp__clawboo-teamchat__team_delegate$", TextBefore: "Handing over.",
			Input: map[string]any{"assignee": "@Codey", "task": reviewTask}, AfterTool: "handed over: {result}",
		},
		fakeanthropic.Rule{
			Match: "CLAUDE-CHILD", Tool: "^Bash$", TextBefore: "Writing the greeting.",
			Input: map[string]any{"command": "mkdir -p notes && printf 'hello from claude\\n' > notes/claude.md", "description": "write the greeting"},
			Then: &fakeanthropic.Rule{
				Tool:      "^mcp__clawboo-tasks__claim_task$",
				Input:     map[string]any{"taskId": followUps["Claudia"], "assigneeAgentId": rg.ids["Claudia"]},
				AfterTool: "claude child done: {result}",
			},
		},
	)
	rg.codex.SetRules(
		fakeresponses.Text("CODEX-REVIEW", "reviewed: both greetings read well"),
		fakeresponses.Rule{Match: "CODEX-CHILD", Steps: []fakeresponses.Step{
			{Text: "Writing the greeting.", Call: &fakeresponses.Call{
				Tool: "^exec_command$",
				Args: `{"cmd":"mkdir -p notes && printf 'hello from codex\\n' > notes/codex.md"}`,
			}},
			{Call: &fakeresponses.Call{
				Tool: `clawboo.tasks/claim_task$`,
				Args: fmt.Sprintf(`{"taskId":%q,"assigneeAgentId":%q}`, followUps["Codey"], rg.ids["Codey"]),
			}},
			{Text: "codex child done: {result}"},
		}},
	)
	args := func(v map[string]any) string { b, _ := json.Marshal(v); return string(b) }
	rg.native.Push("/v1/messages",
		fakeprovider.Tools(
			fakeprovider.ToolCall{ID: "toolu_d1", Name: "delegate", Args: args(map[string]any{"assignee": "@Claudia", "task": claudeTask, "kind": "code"})},
			fakeprovider.ToolCall{ID: "toolu_d2", Name: "delegate", Args: args(map[string]any{"assignee": "@Codey", "task": codexTask, "kind": "code"})}),
		fakeprovider.Text("planned"),
		// The [Task Update] turn (a second one should the two children end
		// more than a window apart).
		fakeprovider.Text("wrapped up"), fakeprovider.Text("wrapped up"),
	)

	// 1. The native leader delegates to both specialists.
	start := time.Now()
	first := "Greet our users in the repository, one greeting per specialist."
	rg.chat(t, first)
	rg.waitPost(t, ctx, "from the leader", func(p wirePost) bool { return p.AuthorName == "Lead" && p.Body == "planned" })
	for _, name := range []string{"Claudia", "Codey"} {
		rg.waitPost(t, ctx, "reporting up from "+name, func(p wirePost) bool {
			return p.AuthorAgentID == rg.ids[name] && p.Kind == "peer" && strings.HasPrefix(p.Body, "Report on ")
		})
	}
	// Both delegations reported, and every [Task Update] turn of the
	// leader over and answered (one, or two should the children have
	// ended more than a window apart).
	updateTurns := `SELECT COUNT(*) FROM runs WHERE team_id = ? AND task_id IS NULL AND agent_id = ? AND title LIKE '[Task Update]%'`
	var updates int
	for {
		wrapped := 0
		for _, p := range rg.posts(t) {
			if p.AuthorName == "Lead" && p.Body == "wrapped up" {
				wrapped++
			}
		}
		updates = rg.count(t, updateTurns, rg.team.ID, rg.ids["Lead"])
		if rg.count(t, `SELECT COUNT(*) FROM delegations WHERE team_id = ? AND status = 'reported'`, rg.team.ID) == 2 &&
			updates > 0 && wrapped == updates && len(rg.b.Orchestrator.LiveTurns(rg.team.ID)) == 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the delegations were not both reported and answered\n%s", rg.room(t))
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("native leader → claude + codex children → [Task Update]: %v", time.Since(start).Round(time.Millisecond))

	// The leader's tool calls went through; the provider saw the delegate
	// tool, and its results name the tasks.
	nreqs := rg.native.RequestsTo("/v1/messages")
	if len(nreqs) < 3 {
		t.Fatalf("the native provider saw %d requests", len(nreqs))
	}
	if !strings.Contains(string(nreqs[0].Body), `"name":"delegate"`) {
		t.Fatal("the leader's turn was not offered the delegate tool")
	}
	if body := string(nreqs[1].Body); strings.Count(body, "Delegated to @") != 2 || strings.Contains(body, `"is_error":true`) {
		t.Fatalf("the delegate results: %s", body)
	}
	mission := rg.missionOf(t, ctx, first)
	kids := rg.children(t, ctx, mission.ID)
	if len(kids) != 2 {
		t.Fatalf("children of the mission: %+v", kids)
	}
	for name, want := range map[string]struct{ file, runtime string }{"Claudia": {"notes/claude.md", "claude-code"}, "Codey": {"notes/codex.md", "codex"}} {
		file := want.file
		k, ok := kids[name]
		if !ok || k.Kind != board.Code || k.Status != board.InReview || k.AssigneeRuntime == nil || *k.AssigneeRuntime != want.runtime {
			t.Fatalf("%s's child: %+v", name, k)
		}
		var diff struct {
			Changed bool   `json:"changed"`
			Diff    string `json:"diff"`
		}
		if code := e2eDo(t, rg.h, "GET", "/api/board/"+k.ID+"/diff", nil, &diff); code != http.StatusOK || !diff.Changed || !strings.Contains(diff.Diff, file) {
			t.Fatalf("%s's diff: %d %+v", name, code, diff)
		}
		// The specialist claimed its follow-up over the Tasks server.
		wantClaimedBy(t, rg.h, followUps[name], rg.ids[name])
	}
	comments, err := rg.b.Board.Comments(ctx, mission.ID)
	if err != nil {
		t.Fatal(err)
	}
	ups := 0
	for _, c := range comments {
		if strings.HasPrefix(c.Body, "Report on ") {
			ups++
		}
	}
	if ups != 2 {
		t.Fatalf("%d report-up comments on the mission", ups)
	}
	// The leader's [Task Update] turns: every child in exactly one.
	if updates > 2 {
		t.Fatalf("%d [Task Update] turns of the leader", updates)
	}
	var listed []string
	for _, r := range nreqs {
		var w struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := r.JSON(&w); err != nil {
			t.Fatal(err)
		}
		if n := len(w.Messages); n > 0 && w.Messages[n-1].Role == "user" && strings.Contains(string(w.Messages[n-1].Content), `[Task Update]\n- @`) {
			listed = append(listed, string(w.Messages[n-1].Content))
		}
	}
	if len(listed) != updates {
		t.Fatalf("%d [Task Update] requests for %d turns: %q", len(listed), updates, listed)
	}
	for name, k := range kids {
		if n := strings.Count(strings.Join(listed, "\n"), "task "+k.ID+":"); n != 1 {
			t.Fatalf("%s's task is in %d [Task Update]s: %q", name, n, listed)
		}
	}
	// The specialists' own runs (not a leader's turn) had the TeamChat
	// server but not team_delegate.
	for _, r := range rg.claude.Requests() {
		if strings.Contains(r.UserText, "CLAUDE-CHILD") && !has(r.Tools, "team_chat_post") || has(r.Tools, "team_delegate") {
			t.Fatalf("the claude child's tools: %v", r.Tools)
		}
	}
	for _, r := range rg.codex.Requests() {
		if !has(r.Tools, "team_chat_post") || has(r.Tools, "team_delegate") {
			t.Fatalf("the codex child's tools: %v", r.Tools)
		}
	}
	claudeSeen := len(rg.claude.Requests())

	// 2. Claude Code leads, and delegates over team_delegate.
	start = time.Now()
	if code := e2eDo(t, rg.h, "PATCH", "/api/teams/"+rg.team.ID, map[string]any{"leaderAgentId": rg.ids["Claudia"]}, &created); code != http.StatusOK {
		t.Fatalf("make Claudia the leader: %d", code)
	}
	second := "LEAD-BY-CLAUDE: have the greetings reviewed."
	rg.chat(t, second)
	rg.waitPost(t, ctx, "of Claudia's turn", func(p wirePost) bool {
		return p.AuthorName == "Claudia" && strings.HasPrefix(p.Body, "handed over: ")
	})
	rg.waitPost(t, ctx, "reporting up the review", func(p wirePost) bool {
		return p.AuthorName == "Codey" && strings.HasPrefix(p.Body, "Report on ") && strings.Contains(p.Body, "reviewed: both greetings read well")
	})
	rg.waitPost(t, ctx, "of Claudia's follow-up", func(p wirePost) bool { return p.AuthorName == "Claudia" && p.Body == "wrapped up by Claudia" })
	t.Logf("claude leader → team_delegate → codex child → [Task Update]: %v", time.Since(start).Round(time.Millisecond))

	// Claude Code's model calls as the leader: its turn (offered
	// team_delegate), the tool's answer, and its [Task Update] turn.
	var turn, answer, update []fakeanthropic.Request
	reUpdate := regexp.MustCompile(`\[Task Update\]\n- @Codey, task `)
	for _, r := range rg.claude.Requests()[claudeSeen:] {
		switch {
		case r.Result != "":
			answer = append(answer, r)
		case reUpdate.MatchString(r.UserText):
			update = append(update, r)
		case strings.Contains(r.UserText, "LEAD-BY-CLAUDE"):
			turn = append(turn, r)
		}
	}
	if len(turn) != 1 || len(answer) != 1 || len(update) != 1 {
		t.Fatalf("the claude leader's model calls: %d turn, %d tool answer, %d update\n%+v", len(turn), len(answer), len(update), rg.claude.Requests()[claudeSeen:])
	}
	if !has(turn[0].Tools, "mcp__clawboo-teamchat__team_delegate") || !has(update[0].Tools, "mcp__clawboo-teamchat__team_delegate") {
		t.Fatalf("the leader's turns were not offered team_delegate: %v", turn[0].Tools)
	}
	if res := answer[0].Result; !strings.Contains(res, "Delegated to @Codey as task") || strings.Contains(res, "refused") {
		t.Fatalf("team_delegate said %q", res)
	}
	review := rg.missionOf(t, ctx, second)
	if review.ID == mission.ID {
		t.Fatal("the second message did not make its own mission")
	}
	rk := rg.children(t, ctx, review.ID)
	if k, ok := rk["Codey"]; len(rk) != 1 || !ok || k.Status != board.Done || k.Description != reviewTask {
		t.Fatalf("the review mission's children: %+v", rk)
	}
	// The delegation signal is in the room once, from Claudia.
	var signals []wirePost
	for _, p := range rg.posts(t) {
		if p.Kind == "delegate" && p.AuthorName == "Claudia" {
			signals = append(signals, p)
		}
	}
	if len(signals) != 1 || signals[0].Body != reviewTask {
		t.Fatalf("Claudia's delegate posts: %+v", signals)
	}
	if n := rg.count(t, `SELECT COUNT(*) FROM runs WHERE team_id = ? AND task_id IS NULL AND agent_id = ? AND title LIKE '[Task Update]%'`,
		rg.team.ID, rg.ids["Claudia"]); n != 1 {
		t.Fatalf("%d [Task Update] turns of Claudia", n)
	}
	if n := rg.count(t, `SELECT COUNT(*) FROM delegations WHERE team_id = ? AND status = 'reported'`, rg.team.ID); n != 3 {
		t.Fatalf("%d reported delegations", n)
	}

	// 3. A member not leading a live turn is refused, even with a session
	// signed delegate=1.
	for _, name := range []string{"Codey", "Lead"} {
		s, err := rg.b.MCP.Session(ctx, mcp.TeamChat, mcp.Binding{TeamID: rg.team.ID, AgentID: rg.ids[name], Delegate: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.CallTool(ctx, "team_delegate", map[string]any{"assignee": "@Claudia", "task": "Do my work"})
		s.Close()
		out, _ := json.Marshal(res)
		if err != nil || !res.IsError || !strings.Contains(string(out), "only the team leader's live turn may delegate") {
			t.Fatalf("%s's team_delegate: %v %s", name, err, out)
		}
		rg.waitPost(t, ctx, "refusing "+name, func(p wirePost) bool {
			return p.Kind == "system" && strings.Contains(p.Body, "a team_delegate from "+rg.ids[name]+" was refused")
		})
	}
	if n := rg.count(t, `SELECT COUNT(*) FROM delegations WHERE team_id = ?`, rg.team.ID); n != 3 {
		t.Fatalf("%d delegations after the refusals", n)
	}
	// Nothing else went wrong on the way: the only system posts are the
	// two refusals.
	var system []string
	for _, p := range rg.posts(t) {
		if p.Kind == "system" {
			system = append(system, p.Body)
		}
	}
	if len(system) != 2 {
		t.Fatalf("system posts: %q", system)
	}
}
