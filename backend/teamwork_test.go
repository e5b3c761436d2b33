package backend

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/orchestrate"
	"github.com/clawboo/desktop/backend/teams"
)

// teamRig is a backend with the mock runtime (working in worktrees) and a
// team of three mock agents: Lead (leader), Coder and Researcher.
type teamRig struct {
	b    *Backend
	h    http.Handler
	team teams.Team
	repo string
	ids  map[string]string // name → agent id
}

func newTeamRig(t *testing.T) *teamRig {
	t.Helper()
	b := e2eBackend(t, map[string]string{"CLAWBOO_ENABLE_MOCK_RUNTIME": "1", "CLAWBOO_MOCK_WORKTREES": "1"})
	rg := &teamRig{b: b, h: authed(b), repo: e2eRepo(t), ids: map[string]string{}}
	ctx := context.Background()
	for _, name := range []string{"Lead", "Coder", "Researcher"} {
		n, rt := name, "clawboo-mock"
		ag, err := b.Agents.Create(ctx, agents.Input{Name: &n, Runtime: &rt})
		if err != nil {
			t.Fatal(err)
		}
		rg.ids[name] = ag.ID
	}
	var created struct{ Team teams.Team }
	if code := e2eDo(t, rg.h, "POST", "/api/teams", map[string]any{
		"name": "Core", "leaderAgentId": rg.ids["Lead"],
		"brief": "Ship small changes.", "repoPath": rg.repo,
	}, &created); code != http.StatusCreated {
		t.Fatalf("create team: %d", code)
	}
	for _, name := range []string{"Coder", "Researcher"} {
		if code := e2eDo(t, rg.h, "POST", "/api/teams/"+created.Team.ID+"/agents", map[string]any{"agentId": rg.ids[name]}, &created); code != http.StatusOK {
			t.Fatalf("add %s: %d", name, code)
		}
	}
	rg.team = created.Team
	return rg
}

type wirePost struct {
	Seq           int64   `json:"seq"`
	AuthorAgentID string  `json:"authorAgentId"`
	AuthorName    string  `json:"authorName"`
	Kind          string  `json:"kind"`
	Body          string  `json:"body"`
	Assignee      *string `json:"assignee"`
}

func (rg *teamRig) posts(t *testing.T) []wirePost {
	t.Helper()
	var out struct{ Posts []wirePost }
	if code := e2eDo(t, rg.h, "GET", "/api/teams/"+rg.team.ID+"/chat?after=0&limit=500", nil, &out); code != http.StatusOK {
		t.Fatalf("posts: %d", code)
	}
	return out.Posts
}

// waitPosts waits until the room has a post matching ok.
func (rg *teamRig) waitPost(t *testing.T, what string, ok func(wirePost) bool) wirePost {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, p := range rg.posts(t) {
			if ok(p) {
				return p
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	var seen []string
	for _, p := range rg.posts(t) {
		seen = append(seen, p.AuthorName+" ["+p.Kind+"] "+p.Body)
	}
	t.Fatalf("no post %s; the room:\n%s", what, strings.Join(seen, "\n"))
	return wirePost{}
}

func (rg *teamRig) chat(t *testing.T, msg string) {
	t.Helper()
	var res struct {
		RunID string `json:"runId"`
	}
	if code := e2eDo(t, rg.h, "POST", "/api/teams/"+rg.team.ID+"/chat", map[string]any{"message": msg}, &res); code != http.StatusAccepted || res.RunID == "" {
		t.Fatalf("chat: %d %+v", code, res)
	}
}

// TestTeamDelegatesCodeAndResearchEndToEnd: a person's message → the
// mock leader delegates a code task and a research task → both run in
// the task runner → report-ups in the room and on the mission → one
// batched [Task Update] → the leader's follow-up turn.
func TestTeamDelegatesCodeAndResearchEndToEnd(t *testing.T) {
	rg := newTeamRig(t)
	// Each child holds on for a moment, so both are seen running at once.
	rg.chat(t, "!delegate @Coder Add a greeting\\n!write hello.txt hi there\\n!silent 400\n"+
		"!delegate @Researcher kind=research Find the greeting convention\\n!silent 400\\n!ok use hi\n!ok planned")

	rg.waitPost(t, "from the leader", func(p wirePost) bool { return p.AuthorName == "Lead" && p.Body == "planned" })
	followUp := rg.waitPost(t, "of the follow-up turn", func(p wirePost) bool {
		return p.AuthorName == "Lead" && p.Body == "mock run complete"
	})
	posts := rg.posts(t)
	var delegates, reports []wirePost
	for _, p := range posts {
		switch {
		case p.Kind == "delegate":
			delegates = append(delegates, p)
		case strings.HasPrefix(p.Body, "Report on "):
			reports = append(reports, p)
		}
	}
	if len(delegates) != 2 || len(reports) != 2 {
		t.Fatalf("delegates %d, reports %d: %+v", len(delegates), len(reports), posts)
	}
	for _, r := range reports {
		if r.Seq > followUp.Seq {
			t.Fatalf("a report came after the follow-up: %+v", r)
		}
	}

	// The board: a mission with two children, the code one in review with
	// its diff, the research one done.
	ctx := context.Background()
	ts, err := rg.b.Board.List(ctx, board.Filter{TeamID: rg.team.ID})
	if err != nil {
		t.Fatal(err)
	}
	var mission *board.Task
	byKind := map[board.Kind]board.Task{}
	for i, tk := range ts {
		if tk.ParentID == nil {
			mission = &ts[i]
		} else {
			byKind[tk.Kind] = tk
		}
	}
	if mission == nil || len(byKind) != 2 {
		t.Fatalf("board: %+v", ts)
	}
	// The mission settles with its children: one waits for review, so the
	// mission does too.
	if mission.Status != board.InReview {
		t.Fatalf("mission %s", mission.Status)
	}
	code, research := byKind[board.Code], byKind[board.Research]
	if code.Status != board.InReview || research.Status != board.Done {
		t.Fatalf("code %s, research %s", code.Status, research.Status)
	}
	if code.AssigneeAgentID == nil || *code.AssigneeAgentID != rg.ids["Coder"] || *research.AssigneeAgentID != rg.ids["Researcher"] {
		t.Fatalf("assignees %v %v", deref(code.AssigneeAgentID), deref(research.AssigneeAgentID))
	}
	var diff struct {
		Diff string `json:"diff"`
	}
	if st := e2eDo(t, rg.h, "GET", "/api/board/"+code.ID+"/diff", nil, &diff); st != http.StatusOK || !strings.Contains(diff.Diff, "hi there") {
		t.Fatalf("diff: %d %q", st, diff.Diff)
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
	// Every delegation is reported exactly once: one [Task Update] turn.
	var n int
	if err := rg.b.Store.Reader().QueryRow(`SELECT COUNT(*) FROM delegations WHERE team_id = ? AND status = 'reported'`, rg.team.ID).Scan(&n); err != nil || n != 2 {
		t.Fatalf("reported delegations: %d %v", n, err)
	}
	var turns int
	if err := rg.b.Store.Reader().QueryRow(`SELECT COUNT(*) FROM runs WHERE team_id = ? AND task_id IS NULL`, rg.team.ID).Scan(&turns); err != nil || turns != 2 {
		t.Fatalf("team turns: %d %v (want the first and one follow-up)", turns, err)
	}
	// Both children ran at once: their runs overlap in time.
	var overlap int
	if err := rg.b.Store.Reader().QueryRow(`SELECT COUNT(*) FROM runs a JOIN runs b ON a.id < b.id
		WHERE a.team_id = ? AND b.team_id = ? AND a.task_id IS NOT NULL AND b.task_id IS NOT NULL
		AND a.started_at <= b.ended_at AND b.started_at <= a.ended_at`, rg.team.ID, rg.team.ID).Scan(&overlap); err != nil {
		t.Fatal(err)
	}
	if overlap != 1 {
		t.Fatalf("the two children did not run at once (%d overlapping pairs)", overlap)
	}
}

// TestTeamDelegationLimitsAndRefusals: an unknown assignee makes nothing
// and names the members; the ninth delegation of a turn is refused; a
// non-leader's signed team_delegate is refused; each refusal is a post.
func TestTeamDelegationLimitsAndRefusals(t *testing.T) {
	rg := newTeamRig(t)
	var msg strings.Builder
	msg.WriteString("!delegate @Nobody kind=research x\n")
	msg.WriteString("!delegate @Coder kind=code repo=/etc !write passwd pwned\n")
	for i := 0; i < 9; i++ {
		msg.WriteString("!delegate @Researcher kind=research !ok r\n")
	}
	msg.WriteString("!ok done")
	rg.chat(t, msg.String())
	rg.waitPost(t, "from the leader", func(p wirePost) bool { return p.AuthorName == "Lead" && p.Body == "done" })
	unknown := rg.waitPost(t, "refusing the unknown assignee", func(p wirePost) bool {
		return p.Kind == "system" && strings.Contains(p.Body, "unknown assignee '@Nobody'")
	})
	for _, name := range []string{"@Lead", "@Coder", "@Researcher"} {
		if !strings.Contains(unknown.Body, name) {
			t.Fatalf("the refusal does not name %s: %q", name, unknown.Body)
		}
	}
	rg.waitPost(t, "refusing another repository", func(p wirePost) bool {
		return p.Kind == "system" && strings.Contains(p.Body, `names the repository "/etc"; a delegation may only use the team's repository`)
	})
	rg.waitPost(t, "refusing the ninth", func(p wirePost) bool {
		return p.Kind == "system" && strings.Contains(p.Body, "fan-out limit")
	})
	var made int
	if err := rg.b.Store.Reader().QueryRow(`SELECT COUNT(*) FROM delegations WHERE team_id = ?`, rg.team.ID).Scan(&made); err != nil || made != 8 {
		t.Fatalf("delegations made: %d %v", made, err)
	}
	// A member that is not leading a live turn cannot delegate over MCP,
	// whatever its session says.
	if _, err := rg.b.Orchestrator.DelegateFromMCP(context.Background(), rg.team.ID, rg.ids["Coder"], "@Researcher", "x"); err == nil {
		t.Fatal("a non-leader's team_delegate was accepted")
	}
	// A member of another team is unknown here.
	other, err := rg.b.Teams.Create(context.Background(), teams.Input{Name: ptr("Other")})
	if err != nil {
		t.Fatal(err)
	}
	n, rt := "Outsider", "clawboo-mock"
	out, err := rg.b.Agents.Create(context.Background(), agents.Input{Name: &n, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rg.b.Teams.AddMember(context.Background(), other.ID, out.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := rg.team.Resolve("@Outsider"); err == nil {
		t.Fatal("a member of another team resolved")
	}
	if !slices.ContainsFunc(rg.posts(t), func(p wirePost) bool {
		return strings.Contains(p.Body, "only the team leader's live turn may delegate")
	}) {
		t.Fatal("the refused team_delegate left no post")
	}
}

func ptr[T any](v T) *T { return &v }

// MaxExchangeForTest is orchestrate.MaxExchange.
const MaxExchangeForTest = orchestrate.MaxExchange

// TestTeamTurnsCountAgainstTheTeamBudget: a turn's cost is charged to the
// team; once a capped team budget is used up, the next message is refused
// with the reason, and the room says so.
func TestTeamTurnsCountAgainstTheTeamBudget(t *testing.T) {
	rg := newTeamRig(t)
	if code := e2eDo(t, rg.h, "POST", "/api/budgets", map[string]any{"scope": "team", "scopeId": rg.team.ID, "limitUsd": 0.02, "mode": "cap"}, nil); code != http.StatusOK {
		t.Fatalf("budget: %d", code)
	}
	if code := e2eDo(t, rg.h, "POST", "/api/budgets", map[string]any{"scope": "team", "scopeId": "no-such-team", "limitUsd": 1, "mode": "cap"}, nil); code != http.StatusBadRequest {
		t.Fatalf("a budget for an unknown team: %d", code)
	}
	// The turn that crosses the cap is stopped by it, and the room says why.
	rg.chat(t, "!cost 0.05\n!ok spent")
	rg.waitPost(t, "saying the budget stopped the turn", func(p wirePost) bool {
		return p.Kind == "system" && strings.Contains(p.Body, "@Lead was stopped: the team budget is used up")
	})
	var res struct {
		Reason string `json:"reason"`
		Error  string `json:"error"`
	}
	deadline := time.Now().Add(10 * time.Second)
	code := 0
	for time.Now().Before(deadline) {
		if code = e2eDo(t, rg.h, "POST", "/api/teams/"+rg.team.ID+"/chat", map[string]any{"message": "!ok again"}, &res); code != http.StatusAccepted {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code != http.StatusConflict || res.Reason != "budget_paused" || !strings.Contains(res.Error, rg.team.ID) {
		t.Fatalf("after the cap: %d %+v", code, res)
	}
	rg.waitPost(t, "saying the turn did not start", func(p wirePost) bool {
		return p.Kind == "system" && strings.Contains(p.Body, "did not take a turn") && strings.Contains(p.Body, "budget")
	})
	var spent float64
	if err := rg.b.Store.Reader().QueryRow(`SELECT COALESCE(SUM(nano), 0) / 1e9 FROM spend WHERE team_id = ?`, rg.team.ID).Scan(&spent); err != nil || spent < 0.05 {
		t.Fatalf("team spend %v %v", spent, err)
	}
}

// TestTeamMailRidesOnTasksAnswersOnce: a post addressed to a member
// reaches it once, as a second content block of its next Tasks answer,
// and never again (nor in a later run's digest).
func TestTeamMailRidesOnTasksAnswersOnce(t *testing.T) {
	rg := newTeamRig(t)
	ctx := context.Background()
	if _, err := teams.AppendPost(ctx, rg.b.Store, teams.Post{
		RoomID: rg.team.ID, TeamID: rg.team.ID, Author: rg.ids["Lead"],
		Kind: teams.KindPeer, Body: "@Coder the parser needs tests", CreatedAt: 1,
	}); err != nil {
		t.Fatal(err)
	}
	s, err := rg.b.MCP.Session(ctx, mcp.Tasks, mcp.Binding{TeamID: rg.team.ID, AgentID: rg.ids["Coder"]})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first, err := s.CallTool(ctx, "list_tasks", map[string]any{})
	if err != nil || first.IsError {
		t.Fatalf("list_tasks: %+v %v", first, err)
	}
	if len(first.Content) != 2 {
		t.Fatalf("%d content blocks, want the answer and the mail", len(first.Content))
	}
	mail, _ := mcpgo.AsTextContent(first.Content[1])
	if mail == nil || !strings.Contains(mail.Text, "| @Coder the parser needs tests") || !strings.Contains(mail.Text, "[Inter-session message · from="+rg.ids["Lead"]) {
		t.Fatalf("mail block: %+v", first.Content[1])
	}
	again, err := s.CallTool(ctx, "list_tasks", map[string]any{})
	if err != nil || len(again.Content) != 1 {
		t.Fatalf("the mail came twice: %+v %v", again, err)
	}
	var via string
	if err := rg.b.Store.Reader().QueryRow(`SELECT via FROM team_deliveries WHERE room_id = ? AND agent_id = ?`, rg.team.ID, rg.ids["Coder"]).Scan(&via); err != nil || via != "piggyback" {
		t.Fatalf("delivery %q %v", via, err)
	}
}

// TestTeamPeerExchangeIsBounded: a member's post naming another member
// wakes it for a reply turn; the sixth wake of one exchange is refused
// with a post, until a person speaks.
func TestTeamPeerExchangeIsBounded(t *testing.T) {
	rg := newTeamRig(t)
	ctx := context.Background()
	s, err := rg.b.MCP.Session(ctx, mcp.TeamChat, mcp.Binding{TeamID: rg.team.ID, AgentID: rg.ids["Coder"]})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	replies := func() int {
		n := 0
		for _, p := range rg.posts(t) {
			if p.AuthorName == "Researcher" {
				n++
			}
		}
		return n
	}
	for i := 1; i <= MaxExchangeForTest; i++ {
		if res, err := s.CallTool(ctx, "team_chat_post", map[string]any{"text": "@Researcher which format, round " + strconv.Itoa(i) + "?"}); err != nil || res.IsError {
			t.Fatalf("post: %+v %v", res, err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for replies() < i && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if got := replies(); got != i {
			t.Fatalf("round %d: %d replies", i, got)
		}
		for len(rg.b.Orchestrator.LiveTurns(rg.team.ID)) > 0 {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if res, err := s.CallTool(ctx, "team_chat_post", map[string]any{"text": "@Researcher one more?"}); err != nil || res.IsError {
		t.Fatalf("post: %+v %v", res, err)
	}
	rg.waitPost(t, "saying the exchange stopped", func(p wirePost) bool {
		return p.Kind == "system" && strings.Contains(p.Body, "stopped after 5 turns")
	})
	if got := replies(); got != MaxExchangeForTest {
		t.Fatalf("%d replies after the limit", got)
	}
}

// TestTeamRoomNeverStoresAKey: a key in a person's message or in a turn's
// reply is scrubbed before the post is stored, served or streamed.
func TestTeamRoomNeverStoresAKey(t *testing.T) {
	rg := newTeamRig(t)
	const key = "sk-ant-api03-SENTINEL-team-4e9d1c7a2b"
	rg.chat(t, "here is "+key+"\n!delegate @Researcher kind=research use "+key+"\n!ok the key is "+key)
	rg.waitPost(t, "of the reply", func(p wirePost) bool { return p.AuthorName == "Lead" })
	rg.waitPost(t, "of the report-up", func(p wirePost) bool { return strings.HasPrefix(p.Body, "Report on ") })
	for _, p := range rg.posts(t) {
		if strings.Contains(p.Body, "SENTINEL") {
			t.Fatalf("a post carries the key: %+v", p)
		}
	}
	var n int
	if err := rg.b.Store.Reader().QueryRow(`SELECT COUNT(*) FROM team_chat WHERE body LIKE '%SENTINEL%'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d stored posts carry the key (%v)", n, err)
	}
	// The delegated task (a board task, the member's prompt) is scrubbed too.
	if err := rg.b.Store.Reader().QueryRow(`SELECT COUNT(*) FROM tasks WHERE description LIKE '%SENTINEL%' OR title LIKE '%SENTINEL%'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d tasks carry the key (%v)", n, err)
	}
}

// TestRoomStreamReadsItsResumePointAsRunStreamsDo: one reader of the
// resume point for every stream; a value that is not a number is refused
// in words, as a run's stream refuses it, rather than read as 0.
func TestRoomStreamReadsItsResumePointAsRunStreamsDo(t *testing.T) {
	rg := newTeamRig(t)
	for _, path := range []string{"/api/teams/" + rg.team.ID + "/chat/stream?after=-1", "/api/teams/" + rg.team.ID + "/chat/stream?after=x", "/api/runs/nope/events?after=x"} {
		var out struct{ Error string }
		if code := e2eDo(t, rg.h, "GET", path, nil, &out); code != http.StatusBadRequest || !strings.Contains(out.Error, "non-negative integer") {
			t.Fatalf("%s: %d %q", path, code, out.Error)
		}
	}
}
