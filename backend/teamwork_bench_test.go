package backend

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/teams"
)

// mockTeam makes a team of n mock agents ("M0" leads) without a
// repository, so delegations are research tasks (no worktree).
func mockTeam(tb testing.TB, b *Backend, n int) teams.Team {
	tb.Helper()
	ctx := context.Background()
	var ids []string
	for i := 0; i < n; i++ {
		name, rt := fmt.Sprintf("M%d", i), "clawboo-mock"
		ag, err := b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
		if err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, ag.ID)
	}
	name := fmt.Sprintf("Team %d", time.Now().UnixNano())
	team, err := b.Teams.Create(ctx, teams.Input{Name: &name, LeaderAgentID: &ids[0]})
	if err != nil {
		tb.Fatal(err)
	}
	for _, id := range ids[1:] {
		if team, err = b.Teams.AddMember(ctx, team.ID, id); err != nil {
			tb.Fatal(err)
		}
	}
	return team
}

// sseSeqs reads a room stream and collects the seq of every post.
func sseSeqs(ctx context.Context, url string, got chan<- int64) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var id int64
	var post bool
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			id, _ = strconv.ParseInt(strings.TrimPrefix(line, "id: "), 10, 64)
		case line == "event: post":
			post = true
		case line == "":
			if post && id > 0 {
				got <- id
			}
			id, post = 0, false
		}
	}
	return nil
}

// TestTeamRoomReachesTenClientsWithNoLoss: a team of 10 whose leader
// delegates 8 children at once; 10 SSE clients each see every post of the
// room exactly once, in order.
func TestTeamRoomReachesTenClientsWithNoLoss(t *testing.T) {
	b := e2eBackend(t, map[string]string{"CLAWBOO_ENABLE_MOCK_RUNTIME": "1"})
	srv := httptest.NewServer(authed(b))
	defer srv.Close()
	team := mockTeam(t, b, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const clients = 10
	got := make([]chan int64, clients)
	var wg sync.WaitGroup
	for i := range got {
		got[i] = make(chan int64, 4096)
		wg.Add(1)
		go func(ch chan int64) {
			defer wg.Done()
			_ = sseSeqs(ctx, srv.URL+"/api/teams/"+team.ID+"/chat/stream", ch)
		}(got[i])
	}
	time.Sleep(200 * time.Millisecond) // the clients are subscribed
	var msg strings.Builder
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&msg, "!delegate @M%d !ok child %d\n", i, i)
	}
	msg.WriteString("!ok fanned out")
	if code := e2eDo(t, authed(b), "POST", "/api/teams/"+team.ID+"/chat", map[string]any{"message": msg.String()}, nil); code != http.StatusAccepted {
		t.Fatalf("chat: %d", code)
	}
	rg := &teamRig{b: b, h: authed(b), team: team}
	rg.waitPost(t, "of the follow-up", func(p wirePost) bool { return p.AuthorName == "M0" && p.Body == "mock run complete" })
	posts := rg.posts(t)
	want := posts[len(posts)-1].Seq
	if len(posts) < 19 { // the message, 8 delegations, the reply, 8 report-ups, the follow-up
		t.Fatalf("only %d posts", len(posts))
	}
	for i, ch := range got {
		var seqs []int64
		deadline := time.After(10 * time.Second)
		for len(seqs) < int(want) {
			select {
			case s := <-ch:
				seqs = append(seqs, s)
			case <-deadline:
				t.Fatalf("client %d saw %d of %d posts", i, len(seqs), want)
			}
		}
		if !sort.SliceIsSorted(seqs, func(a, b int) bool { return seqs[a] < seqs[b] }) || seqs[0] != 1 || seqs[len(seqs)-1] != want {
			t.Fatalf("client %d: %v", i, seqs)
		}
		for j := 1; j < len(seqs); j++ {
			if seqs[j] != seqs[j-1]+1 {
				t.Fatalf("client %d: a gap or a duplicate at %d: %v", i, j, seqs)
			}
		}
	}
	cancel()
	wg.Wait()
}

// BenchmarkTeamDelegateToChildStart is the host time from a leader's
// delegate call to its child's run started (task, delegation row, room
// post, claim and Start; research tasks, so no worktree), beside the floor
// measured in the same run: the same task made and started directly
// through the board and the supervisor.
func BenchmarkTeamDelegateToChildStart(bm *testing.B) {
	b := e2eBackend(bm, map[string]string{"CLAWBOO_ENABLE_MOCK_RUNTIME": "1"})
	team := mockTeam(bm, b, 2)
	ctx := context.Background()
	lead, _ := team.Leader()
	var member teams.Member
	for _, m := range team.Members {
		if m.Role != "leader" {
			member = m
		}
	}
	// A live leader turn that holds on (!abort), renewed every 8
	// delegations (the fan-out limit), outside the timer.
	turn := func() string {
		_, id, err := b.Orchestrator.Chat(ctx, team.ID, "!abort", "")
		if err != nil {
			bm.Fatal(err)
		}
		for len(b.Orchestrator.LiveTurns(team.ID)) == 0 {
			time.Sleep(time.Millisecond)
		}
		return id
	}
	var delegated, bare time.Duration
	runID := ""
	for i := 0; i < bm.N; i++ {
		if i%8 == 0 {
			bm.StopTimer()
			if runID != "" {
				_ = b.Supervisor.Abort(ctx, runID)
				for len(b.Orchestrator.LiveTurns(team.ID)) > 0 {
					time.Sleep(time.Millisecond)
				}
			}
			runID = turn()
			bm.StartTimer()
		}
		t0 := time.Now()
		out, err := b.Orchestrator.DelegateFromMCP(ctx, team.ID, lead.AgentID, "@"+member.Name, "!ok child")
		delegated += time.Since(t0)
		if err != nil || !strings.HasPrefix(out, "Delegated to") {
			bm.Fatalf("delegate: %q %v", out, err)
		}
		// The floor: the same task, made and started directly.
		t1 := time.Now()
		tk, err := b.Board.Create(ctx, board.NewTask{Title: "bare", Description: "!ok child", Kind: board.Research, TeamID: team.ID})
		if err != nil {
			bm.Fatal(err)
		}
		if _, err := b.Supervisor.Start(ctx, supervisor.StartParams{RuntimeID: "clawboo-mock", AgentID: member.AgentID, TaskID: tk.ID}); err != nil {
			bm.Fatal(err)
		}
		bare += time.Since(t1)
	}
	bm.StopTimer()
	if runID != "" {
		_ = b.Supervisor.Abort(ctx, runID)
	}
	bm.ReportMetric(float64(delegated.Microseconds())/float64(bm.N)/1000, "ms/delegate")
	bm.ReportMetric(float64(bare.Microseconds())/float64(bm.N)/1000, "ms/bare-start")
	bm.ReportMetric(float64(delegated)/float64(bare), "x-floor")
}
