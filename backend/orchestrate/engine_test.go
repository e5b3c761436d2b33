package orchestrate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/adapters/mock"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/teams"
)

// rig is an engine over a real store, board and supervisor with the mock
// runtime, and a team: Lead (leader, mock), Mo (mock) and Ghost (on a
// runtime this host does not have).
type rig struct {
	e      *Engine
	st     *store.Store
	bd     *board.Board
	sup    *supervisor.Supervisor
	events *bus.Broker[board.Event]
	team   teams.Team
}

func newRig(t *testing.T) *rig {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	reg := executor.NewRegistry()
	if err := reg.Register(mock.New()); err != nil {
		t.Fatal(err)
	}
	events := bus.New[board.Event](0)
	bd := board.New(board.Options{Store: st, Events: events})
	sup, err := supervisor.New(ctx, supervisor.Options{Store: st, Registry: reg, Board: bd})
	if err != nil {
		t.Fatal(err)
	}
	ts := teams.New(st, nil)
	e := New(Options{Store: st, Teams: ts, Board: bd, BoardEvents: events, Supervisor: sup, UpdateWindow: 20 * time.Millisecond, PumpEvery: time.Hour})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Shutdown()
		_ = sup.Close(context.Background())
		e.Close()
		bd.Close()
		st.Close()
	})
	for _, a := range [][2]string{{"lead", "clawboo-mock"}, {"mo", "clawboo-mock"}, {"ghost", "codex"}} {
		if err := st.InsertAgent(ctx, a[0], strings.ToUpper(a[0][:1])+a[0][1:], a[1], 0); err != nil {
			t.Fatal(err)
		}
	}
	name, lead := "T", "lead"
	team, err := ts.Create(ctx, teams.Input{Name: &name, LeaderAgentID: &lead})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"mo", "ghost"} {
		if team, err = ts.AddMember(ctx, team.ID, id); err != nil {
			t.Fatal(err)
		}
	}
	return &rig{e: e, st: st, bd: bd, sup: sup, events: events, team: team}
}

func (r *rig) systemPosts(t *testing.T) []string {
	t.Helper()
	ps, _, _, err := teams.ReadPosts(context.Background(), r.st, r.team.ID, 0, "", 500)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range ps {
		if p.Kind == teams.KindSystem {
			out = append(out, p.Body)
		}
	}
	return out
}

func (r *rig) waitSystem(t *testing.T, sub string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, b := range r.systemPosts(t) {
			if strings.Contains(b, sub) {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no system post with %q; got %q", sub, r.systemPosts(t))
}

func (r *rig) waitIdle(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(r.e.LiveTurns(r.team.ID)) > 0; {
		if time.Now().After(deadline) {
			t.Fatal("turns still live")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAutomaticFollowUpsAreLimited: a mission gets at most three
// automatic follow-up turns; the fourth is refused with a post.
func TestAutomaticFollowUpsAreLimited(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	mission, err := r.bd.Create(ctx, board.NewTask{Title: "M", Kind: board.Research, TeamID: r.team.ID, Status: board.Backlog})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= MaxAutoFires; i++ {
		r.e.followUp(ctx, r.team.ID, mission.ID, "[Task Update]\n- done")
		r.waitIdle(t)
	}
	if got := r.systemPosts(t); len(got) != 0 {
		t.Fatalf("refused within the limit: %q", got)
	}
	r.e.followUp(ctx, r.team.ID, mission.ID, "[Task Update]\n- done")
	r.waitSystem(t, "at most 3 automatic follow-ups")
	var turns int
	if err := r.st.Reader().QueryRow(`SELECT COUNT(*) FROM runs WHERE team_id = ? AND task_id IS NULL`, r.team.ID).Scan(&turns); err != nil || turns != MaxAutoFires {
		t.Fatalf("%d follow-up turns (%v)", turns, err)
	}
}

// TestADelegationThatCannotStartIsGivenUpAfterThreeTries: a member on a
// runtime the host lacks fails to start; the pump retries; the third
// failure gives up, says so, and reports it to the leader.
func TestADelegationThatCannotStartIsGivenUpAfterThreeTries(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	tn := &turn{teamID: r.team.ID, agentID: "lead", name: "Lead", runtime: "clawboo-mock", leader: true, title: "Mission: x"}
	out, err := r.e.delegate(ctx, tn, executor.Delegation{Assignee: "@Ghost", Task: "haunt", Kind: "research"})
	if err != nil || !strings.Contains(out, "could not start yet") {
		t.Fatalf("delegate: %q %v", out, err)
	}
	r.waitSystem(t, "attempt 1 of 3")
	r.e.Pump(ctx)
	r.waitSystem(t, "attempt 2 of 3")
	r.e.Pump(ctx)
	r.waitSystem(t, "Gave up on \"haunt\"")
	var status string
	var failures int
	if err := r.st.Reader().QueryRow(`SELECT status, failures FROM delegations`).Scan(&status, &failures); err != nil || failures != 3 {
		t.Fatalf("delegation %s after %d failures (%v)", status, failures, err)
	}
	// The leader hears of it in a [Task Update] (its follow-up turn runs).
	deadline := time.Now().Add(10 * time.Second)
	for status != "reported" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		_ = r.st.Reader().QueryRow(`SELECT status FROM delegations`).Scan(&status)
	}
	if status != "reported" {
		t.Fatalf("delegation %s", status)
	}
	r.e.Pump(ctx) // nothing left to retry
	if n := len(r.systemPosts(t)); n != 3 {
		t.Fatalf("%d system posts after giving up: %q", n, r.systemPosts(t))
	}
}

// TestPlanStepsRunInOrder: a leader's <plan> becomes a chain; the second
// step starts only when the first has ended.
func TestPlanStepsRunInOrder(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	tn := &turn{teamID: r.team.ID, agentID: "lead", name: "Lead", runtime: "clawboo-mock", leader: true, title: "Mission: plan"}
	r.e.actOnTags(ctx, tn, `<plan><step to="@Mo">!silent 200
!ok first</step><step to="@Mo">!ok second</step></plan>`)
	var rows []delegationRow
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var err error
		if rows, err = r.e.delegationsWhere(ctx, `1 = 1`); err != nil {
			t.Fatal(err)
		}
		if len(rows) == 2 && rows[0].status != "pending" && rows[0].status != "running" && rows[1].status != "pending" && rows[1].status != "running" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(rows) != 2 {
		t.Fatalf("%d delegations", len(rows))
	}
	first, _ := r.bd.Get(ctx, rows[0].taskID)
	second, _ := r.bd.Get(ctx, rows[1].taskID)
	if len(second.DependsOn) != 1 || second.DependsOn[0] != first.ID {
		t.Fatalf("the second step does not wait for the first: %+v", second.DependsOn)
	}
	if first.CompletedAt == nil || second.CompletedAt == nil || *second.CompletedAt < *first.CompletedAt {
		t.Fatalf("steps ended out of order: %v %v", first.CompletedAt, second.CompletedAt)
	}
	var firstEnd, secondStart int64
	if err := r.st.Reader().QueryRow(`SELECT ended_at FROM runs WHERE task_id = ?`, first.ID).Scan(&firstEnd); err != nil {
		t.Fatal(err)
	}
	if err := r.st.Reader().QueryRow(`SELECT started_at FROM runs WHERE task_id = ?`, second.ID).Scan(&secondStart); err != nil {
		t.Fatal(err)
	}
	if secondStart < firstEnd {
		t.Fatalf("the second step started at %d, before the first ended at %d", secondStart, firstEnd)
	}
}

// TestConcurrentDispatchesStartADelegationOnce: the delegate path, a
// finished dependency and the pump can all dispatch the same delegation
// at once; exactly one starts it and none records a failure.
func TestConcurrentDispatchesStartADelegationOnce(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	tn := &turn{teamID: r.team.ID, agentID: "lead", name: "Lead", runtime: "clawboo-mock", leader: true, title: "Mission: race"}
	r.e.actOnTags(ctx, tn, `<plan><step to="@Mo">!silent 300
!ok first</step><step to="@Mo">!ok second</step></plan>`)
	var rows []delegationRow
	for deadline := time.Now().Add(10 * time.Second); len(rows) != 2; time.Sleep(5 * time.Millisecond) {
		rows, _ = r.e.delegationsWhere(ctx, `1 = 1`)
		if time.Now().After(deadline) {
			t.Fatalf("%d delegations", len(rows))
		}
	}
	second := rows[1].id
	// Hammer the waiting step from eight goroutines until it has run.
	stop := make(chan struct{})
	done := make(chan struct{})
	for i := 0; i < 8; i++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for {
				select {
				case <-stop:
					return
				default:
					_ = r.e.dispatch(ctx, second)
				}
			}
		}()
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		var status string
		_ = r.st.Reader().QueryRow(`SELECT status FROM delegations WHERE id = ?`, second).Scan(&status)
		if status != "pending" && status != "running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the second step is still %s", status)
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	for i := 0; i < 8; i++ {
		<-done
	}
	if n := countRuns(t, r, rows[1].taskID); n != 1 {
		t.Fatalf("the second step ran %d times", n)
	}
	for _, p := range r.systemPosts(t) {
		if strings.Contains(p, "did not start") {
			t.Fatalf("a concurrent dispatch was recorded as a failure: %q", r.systemPosts(t))
		}
	}
}

func countRuns(t *testing.T, r *rig, taskID string) int {
	t.Helper()
	var n int
	if err := r.st.Reader().QueryRow(`SELECT COUNT(*) FROM runs WHERE task_id = ?`, taskID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
