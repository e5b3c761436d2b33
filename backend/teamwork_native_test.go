package backend

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/teams"
)

// The seeded members' prompts route the fake model's scripts: each
// conversation gets its own queue, so children running at once cannot
// take each other's answers.
const (
	leadPrompt     = "You lead a small software team"
	coderPrompt    = "You are a careful software engineer"
	researchPrompt = "You research and explain"
)

// TestNativeTeamFromOnboardingEndToEnd: a fresh home → the welcome's
// state → seed-native-team → a message → the native leader delegates a
// code task and a research task with its delegate tool → both run at once
// in the task runner → report-ups → the leader's follow-up turn → the code
// task in review with its diff, the research task done, each turn's cost
// recorded against the team.
func TestNativeTeamFromOnboardingEndToEnd(t *testing.T) {
	fake := fakeprovider.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	b := e2eBackend(t, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-team-e2e", "ANTHROPIC_BASE_URL": srv.URL})
	h := authed(b)
	repo := e2eRepo(t)

	var state struct {
		Needed    bool
		Providers []struct {
			ID        string
			Connected bool
		}
	}
	if code := e2eDo(t, h, "GET", "/api/onboarding/state", nil, &state); code != http.StatusOK || !state.Needed {
		t.Fatalf("onboarding state: %d %+v", code, state)
	}
	var seeded struct {
		Team             teams.Team
		SuggestedMessage string
	}
	if code := e2eDo(t, h, "POST", "/api/onboarding/seed-native-team", map[string]any{"provider": "anthropic", "repoPath": repo}, &seeded); code != http.StatusCreated {
		t.Fatalf("seed: %d %+v", code, seeded)
	}
	team := seeded.Team
	if len(team.Members) != 3 || team.Members[0].Name != "Lead" || team.Members[0].Role != "leader" || seeded.SuggestedMessage == "" {
		t.Fatalf("seeded team %+v", team)
	}
	for _, m := range team.Members {
		if m.Runtime != "clawboo-native" {
			t.Fatalf("member %+v is not native", m)
		}
		ag, err := b.Agents.Get(context.Background(), m.AgentID)
		if err != nil || ag.Config == nil || ag.Config.Tools.Shell != nil && *ag.Config.Tools.Shell {
			t.Fatalf("member %s config %+v %v (shell must be off)", m.Name, ag.Config, err)
		}
	}
	if code := e2eDo(t, h, "GET", "/api/onboarding/state", nil, &state); code != http.StatusOK || state.Needed {
		t.Fatalf("the welcome is still needed once a team exists: %+v", state)
	}

	use := func(r fakeprovider.Response) fakeprovider.Response {
		r.Usage = fakeprovider.Usage{Input: 1000, Output: 100}
		return r
	}
	fake.PushWhen("/v1/messages", leadPrompt,
		use(fakeprovider.Tools(
			fakeprovider.ToolCall{ID: "toolu_d1", Name: "delegate", Args: `{"assignee":"@Coder","task":"Add NOTES.md with one line of notes","kind":"code"}`},
			fakeprovider.ToolCall{ID: "toolu_d2", Name: "delegate", Args: `{"assignee":"@Researcher","task":"Explain how the repository is laid out","kind":"research"}`})),
		use(fakeprovider.Text("I asked Coder for NOTES.md and Researcher for a layout note.")),
		use(fakeprovider.Text("Both are done: NOTES.md waits for your review.")),
	)
	slow := func(r fakeprovider.Response) fakeprovider.Response { r.Delay = 600 * time.Millisecond; return use(r) }
	fake.PushWhen("/v1/messages", coderPrompt,
		slow(fakeprovider.Tools(fakeprovider.ToolCall{ID: "toolu_w", Name: "write_file", Args: `{"path":"NOTES.md","content":"notes: one line\n"}`})),
		use(fakeprovider.Text("Added NOTES.md.")),
	)
	fake.PushWhen("/v1/messages", researchPrompt, slow(fakeprovider.Text("One README at the top; nothing else yet.")))

	var sent struct{ RunID string }
	if code := e2eDo(t, h, "POST", "/api/teams/"+team.ID+"/chat", map[string]any{"message": seeded.SuggestedMessage}, &sent); code != http.StatusAccepted {
		t.Fatalf("chat: %d", code)
	}
	rg := &teamRig{b: b, h: h, team: team}
	rg.waitPost(t, "of the follow-up", func(p wirePost) bool { return p.AuthorName == "Lead" && strings.HasPrefix(p.Body, "Both are done") })
	if n := fake.Pending("/v1/messages"); n != 0 {
		t.Fatalf("%d scripted answers never asked for", n)
	}

	// The follow-up was told both results in one [Task Update].
	var updates int
	for _, r := range fake.RequestsTo("/v1/messages") {
		// The update itself, as JSON carries it (the leader's context also
		// mentions [Task Update]s in passing).
		if strings.Contains(string(r.Body), leadPrompt) && strings.Contains(string(r.Body), `[Task Update]\n- @`) {
			updates++
			if !strings.Contains(string(r.Body), "@Coder") || !strings.Contains(string(r.Body), "@Researcher") {
				t.Fatalf("the [Task Update] does not name both children: %s", r.Body)
			}
		}
	}
	if updates != 1 {
		t.Fatalf("%d [Task Update] requests (want 1)", updates)
	}

	ctx := context.Background()
	ts, err := b.Board.List(ctx, board.Filter{TeamID: team.ID})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[board.Kind]board.Task{}
	for _, tk := range ts {
		if tk.ParentID != nil {
			kinds[tk.Kind] = tk
		}
	}
	code, research := kinds[board.Code], kinds[board.Research]
	if code.Status != board.InReview || research.Status != board.Done {
		t.Fatalf("code %q, research %q", code.Status, research.Status)
	}
	var diff struct{ Diff string }
	if st := e2eDo(t, h, "GET", "/api/board/"+code.ID+"/diff", nil, &diff); st != http.StatusOK || !strings.Contains(diff.Diff, "notes: one line") {
		t.Fatalf("diff: %d %q", st, diff.Diff)
	}

	// Cost: every run of the team (two leader turns, two children) has its
	// reported cost, and today's team spend is their sum.
	rows, err := b.Store.Reader().Query(`SELECT id, task_id IS NULL, COALESCE(cost_usd, -1), COALESCE(cost_kind, '') FROM runs WHERE team_id = ?`, team.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var total float64
	var turns, children int
	for rows.Next() {
		var id, kind string
		var turn bool
		var usd float64
		if err := rows.Scan(&id, &turn, &usd, &kind); err != nil {
			t.Fatal(err)
		}
		if usd <= 0 || kind != "reported" {
			t.Fatalf("run %s: cost %v (%s)", id, usd, kind)
		}
		total += usd
		if turn {
			turns++
		} else {
			children++
		}
	}
	if turns != 2 || children != 2 {
		t.Fatalf("%d turns and %d children", turns, children)
	}
	var mission struct{ CostTodayUSD float64 }
	if st := e2eDo(t, h, "GET", "/api/teams/"+team.ID+"/mission", nil, &mission); st != http.StatusOK || mission.CostTodayUSD < total-1e-9 || mission.CostTodayUSD > total+1e-9 {
		t.Fatalf("mission control's cost today %v, the runs' sum %v", mission.CostTodayUSD, total)
	}
	// The children ran at once.
	var overlap int
	if err := b.Store.Reader().QueryRow(`SELECT COUNT(*) FROM runs a JOIN runs b ON a.id < b.id
		WHERE a.team_id = ?1 AND b.team_id = ?1 AND a.task_id IS NOT NULL AND b.task_id IS NOT NULL
		AND a.started_at < b.ended_at AND b.started_at < a.ended_at`, team.ID).Scan(&overlap); err != nil || overlap != 1 {
		t.Fatalf("the children did not run at once: %d %v", overlap, err)
	}
}

// TestTeamMailReachesALiveNativeRunAsASignal: a post naming a member whose
// native turn is live is steered into that run (read at its next model
// request) and marked delivered, so its next run's digest does not repeat it.
func TestTeamMailReachesALiveNativeRunAsASignal(t *testing.T) {
	fake := fakeprovider.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	b := e2eBackend(t, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-team-signal", "ANTHROPIC_BASE_URL": srv.URL})
	h := authed(b)
	var seeded struct{ Team teams.Team }
	if code := e2eDo(t, h, "POST", "/api/onboarding/seed-native-team", map[string]any{"provider": "anthropic"}, &seeded); code != http.StatusCreated {
		t.Fatalf("seed: %d", code)
	}
	team := seeded.Team
	var coder, researcher teams.Member
	for _, m := range team.Members {
		switch m.Name {
		case "Coder":
			coder = m
		case "Researcher":
			researcher = m
		}
	}
	first := fakeprovider.Tools(fakeprovider.ToolCall{ID: "toolu_l", Name: "list_tasks", Args: `{}`})
	first.Delay = 800 * time.Millisecond
	fake.PushWhen("/v1/messages", coderPrompt, first, fakeprovider.Text("noted"))
	if code := e2eDo(t, h, "POST", "/api/teams/"+team.ID+"/chat", map[string]any{"message": "Coder, look at the board", "targetAgentId": coder.AgentID}, nil); code != http.StatusAccepted {
		t.Fatalf("chat: %d", code)
	}
	// While Coder's first model request is pending, Researcher posts to it.
	ctx := context.Background()
	s, err := b.MCP.Session(ctx, mcp.TeamChat, mcp.Binding{TeamID: team.ID, AgentID: researcher.AgentID})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for len(fake.RequestsTo("/v1/messages")) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if res, err := s.CallTool(ctx, "team_chat_post", map[string]any{"text": "@Coder use tabs, not spaces"}); err != nil || res.IsError {
		t.Fatalf("post: %+v %v", res, err)
	}
	rg := &teamRig{b: b, h: h, team: team}
	rg.waitPost(t, "of Coder's reply", func(p wirePost) bool { return p.AuthorName == "Coder" && p.Body == "noted" })
	reqs := fake.RequestsTo("/v1/messages")
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "use tabs, not spaces") {
		t.Fatalf("the post did not reach the live run: %d requests", len(reqs))
	}
	var via string
	if err := b.Store.Reader().QueryRow(`SELECT via FROM team_deliveries d JOIN team_chat c ON c.room_id = d.room_id AND c.seq = d.seq
		WHERE d.agent_id = ? AND c.body LIKE '%use tabs%'`, coder.AgentID).Scan(&via); err != nil || via != "signal" {
		t.Fatalf("delivery %q %v", via, err)
	}
}

// TestTeamMessageToABusyMemberJoinsItsLiveTurn: a second message to a
// member already taking a turn is steered into that turn (the same run
// answers both) instead of starting a second run of the same session.
func TestTeamMessageToABusyMemberJoinsItsLiveTurn(t *testing.T) {
	fake := fakeprovider.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	b := e2eBackend(t, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-team-steer", "ANTHROPIC_BASE_URL": srv.URL})
	h := authed(b)
	var seeded struct{ Team teams.Team }
	if code := e2eDo(t, h, "POST", "/api/onboarding/seed-native-team", map[string]any{"provider": "anthropic"}, &seeded); code != http.StatusCreated {
		t.Fatalf("seed: %d", code)
	}
	team := seeded.Team
	first := fakeprovider.Tools(fakeprovider.ToolCall{ID: "toolu_l", Name: "list_tasks", Args: `{}`})
	first.Delay = 800 * time.Millisecond
	fake.PushWhen("/v1/messages", leadPrompt, first, fakeprovider.Text("Both noted."))
	var one, two struct{ RunID string }
	if code := e2eDo(t, h, "POST", "/api/teams/"+team.ID+"/chat", map[string]any{"message": "Plan the release"}, &one); code != http.StatusAccepted {
		t.Fatalf("chat: %d", code)
	}
	for len(fake.RequestsTo("/v1/messages")) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if code := e2eDo(t, h, "POST", "/api/teams/"+team.ID+"/chat", map[string]any{"message": "and include the changelog"}, &two); code != http.StatusAccepted {
		t.Fatalf("second chat: %d", code)
	}
	if two.RunID != one.RunID {
		t.Fatalf("the second message started run %s beside %s", two.RunID, one.RunID)
	}
	rg := &teamRig{b: b, h: h, team: team}
	rg.waitPost(t, "of the reply", func(p wirePost) bool { return p.AuthorName == "Lead" && p.Body == "Both noted." })
	reqs := fake.RequestsTo("/v1/messages")
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "and include the changelog") {
		t.Fatalf("the second message did not reach the live turn (%d requests)", len(reqs))
	}
	var turns int
	if err := b.Store.Reader().QueryRow(`SELECT COUNT(*) FROM runs WHERE team_id = ?`, team.ID).Scan(&turns); err != nil || turns != 1 {
		t.Fatalf("%d runs (%v)", turns, err)
	}
}
