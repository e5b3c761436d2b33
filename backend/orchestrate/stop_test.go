package orchestrate

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/teams"
)

// working is a delegated task that works until stopped.
const working = "Write the parser\n!ok working on it\n!silent 600000\n!ok done"

func leadTurn(r *rig) *turn {
	return &turn{teamID: r.team.ID, agentID: "lead", name: "Lead", runtime: "clawboo-mock", leader: true, title: "Mission: parse"}
}

// delegateTo delegates task to a member in a leader's turn and returns
// the delegation.
func delegateTo(t *testing.T, r *rig, tn *turn, member, task string) delegationRow {
	t.Helper()
	ctx := context.Background()
	before, _ := r.e.delegationsWhere(ctx, `1 = 1`)
	if _, err := r.e.delegate(ctx, tn, executor.Delegation{Assignee: member, Task: task, Kind: "research"}); err != nil {
		t.Fatal(err)
	}
	rows, err := r.e.delegationsWhere(ctx, `1 = 1`)
	if err != nil || len(rows) != len(before)+1 {
		t.Fatalf("%d delegations (%v)", len(rows), err)
	}
	return rows[len(rows)-1]
}

func until(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (r *rig) delegation(t *testing.T, id string) delegationRow {
	t.Helper()
	d, err := r.e.loadDelegation(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// waitWorking waits until a delegation's child run is running and returns it.
func (r *rig) waitWorking(t *testing.T, d delegationRow) string {
	t.Helper()
	var runID string
	until(t, "the child to be working", func() bool {
		task, err := r.bd.Get(context.Background(), d.taskID)
		if err != nil || task.RunID == nil {
			return false
		}
		run, ok := r.sup.Live(*task.RunID)
		runID = *task.RunID
		return ok && run.Status == store.RunRunning && r.delegation(t, d.id).status == "running"
	})
	return runID
}

func (r *rig) posts(t *testing.T) []teams.Post {
	t.Helper()
	ps, _, _, err := teams.ReadPosts(context.Background(), r.st, r.team.ID, 0, "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func (r *rig) waitPost(t *testing.T, what string, ok func(teams.Post) bool) teams.Post {
	t.Helper()
	var got teams.Post
	until(t, what, func() bool {
		for _, p := range r.posts(t) {
			if ok(p) {
				got = p
				return true
			}
		}
		return false
	})
	return got
}

func (r *rig) teamTurns(t *testing.T) int {
	t.Helper()
	var n int
	if err := r.st.Reader().QueryRow(`SELECT COUNT(*) FROM runs WHERE team_id = ? AND task_id IS NULL`, r.team.ID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// checkStopFinal asserts a stopped delegation stays stopped through pump
// passes: no new run of its task, no leader turn, no retry post.
func (r *rig) checkStopFinal(t *testing.T, d delegationRow, runs int) {
	t.Helper()
	ctx := context.Background()
	turns := r.teamTurns(t)
	for i := 0; i < 3; i++ {
		r.e.Pump(ctx)
	}
	if n := countRuns(t, r, d.taskID); n != runs {
		t.Fatalf("the stopped task ran %d times, want %d", n, runs)
	}
	if got := r.delegation(t, d.id).status; got != "stopped" {
		t.Fatalf("delegation %s after the pump", got)
	}
	if n := r.teamTurns(t); n != turns {
		t.Fatalf("a stop woke the leader: %d turns, then %d", turns, n)
	}
	for _, p := range r.posts(t) {
		if strings.Contains(p.Body, "did not start") || strings.Contains(p.Body, "attempt ") || strings.Contains(p.Body, "Gave up") {
			t.Fatalf("a stop was taken for a failure: %q", p.Body)
		}
	}
}

// Stop on a working member ends the work for good: the room says
// "Stopped by you" by task title and member name (before: "did not start
// (attempt 1 of 3): aborted:" and the pump started it again), the task is
// back in todo with the member's name still on the delegation, and the
// mission waits for the person in review.
func TestStopAWorkingMemberIsFinal(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	d := delegateTo(t, r, leadTurn(r), "@Mo", working)
	runID := r.waitWorking(t, d)
	if n := r.e.StopMember(ctx, r.team.ID, "mo"); n != 1 {
		t.Fatalf("stopped %d runs", n)
	}
	until(t, "the delegation to be stopped", func() bool { return r.delegation(t, d.id).status == "stopped" })
	stop := r.waitPost(t, "the stop post", func(p teams.Post) bool { return p.Kind == teams.KindStop })
	if want := `Stopped by you: "Write the parser" for @Mo.`; !strings.HasPrefix(stop.Body, want) || stop.TaskID != d.taskID || stop.Author != teams.AuthorSystem {
		t.Fatalf("stop post %+v, want it to start %q about %s", stop, want, d.taskID)
	}
	run, err := r.st.GetRun(ctx, runID)
	if err != nil || !supervisor.StoppedByPerson(run) {
		t.Fatalf("run %s %q (%v)", run.Status, run.Error, err)
	}
	task, _ := r.bd.Get(ctx, d.taskID)
	if task.Status != board.Todo || task.RunID != nil {
		t.Fatalf("task %s", task.Status)
	}
	until(t, "the mission to wait for the person in review", func() bool {
		mission, _ := r.bd.Get(ctx, d.mission)
		return mission.Status == board.InReview
	})
	// The run's end may settle the mission before the stop's comment is
	// written: wait for the comment, not for the order.
	until(t, "the stop's comment on the mission", func() bool {
		cs, _ := r.bd.Comments(ctx, d.mission)
		return len(cs) > 0 && strings.HasPrefix(cs[len(cs)-1].Body, "Stopped by you:")
	})
	// The leader hears of it in its mail, and is not woken for it.
	lead, _ := r.team.Leader()
	if !addressed(stop, lead) {
		t.Fatal("the stop is not in the leader's mail")
	}
	r.checkStopFinal(t, d, 1)
}

// Stop all stops the working child and the one waiting for it (a plan's
// next step): neither starts again.
func TestStopAllIsFinal(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.e.actOnTags(ctx, leadTurn(r), `<plan><step to="@Mo">`+working+`</step><step to="@Mo">Test the parser
!ok tested</step></plan>`)
	var rows []delegationRow
	until(t, "two delegations", func() bool { rows, _ = r.e.delegationsWhere(ctx, `1 = 1`); return len(rows) == 2 })
	r.waitWorking(t, rows[0])
	if n := r.e.Stop(ctx, r.team.ID); n != 1 {
		t.Fatalf("stopped %d runs", n)
	}
	for _, d := range rows {
		until(t, "both delegations to be stopped", func() bool { return r.delegation(t, d.id).status == "stopped" })
	}
	r.waitPost(t, "the first step's stop", func(p teams.Post) bool {
		return p.Kind == teams.KindStop && strings.HasPrefix(p.Body, `Stopped by you: "Write the parser" for @Mo.`)
	})
	r.waitPost(t, "the second step's stop", func(p teams.Post) bool {
		return p.Kind == teams.KindStop && strings.HasPrefix(p.Body, `Stopped by you: "Test the parser" for @Mo, before it started.`)
	})
	r.checkStopFinal(t, rows[0], 1)
	r.checkStopFinal(t, rows[1], 0)
}

// Abort on the Runs page (or in the drawer) of a delegated run is a
// person's stop like the room's.
func TestRunsAbortOfADelegatedRunIsFinal(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	d := delegateTo(t, r, leadTurn(r), "@Mo", working)
	runID := r.waitWorking(t, d)
	if err := r.sup.Abort(ctx, runID); err != nil {
		t.Fatal(err)
	}
	until(t, "the delegation to be stopped", func() bool { return r.delegation(t, d.id).status == "stopped" })
	r.waitPost(t, "the stop post", func(p teams.Post) bool { return p.Kind == teams.KindStop && p.TaskID == d.taskID })
	r.checkStopFinal(t, d, 1)
}

// A restart does not dispatch a stopped delegation again, nor one whose
// run a person stopped just before the process ended (its marking lost).
func TestRecoveryKeepsAStopFinal(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	d := delegateTo(t, r, leadTurn(r), "@Mo", working)
	r.waitWorking(t, d)
	r.e.StopMember(ctx, r.team.ID, "mo")
	until(t, "the delegation to be stopped", func() bool { return r.delegation(t, d.id).status == "stopped" })
	restart := func() *Engine {
		e2 := New(Options{Store: r.st, Teams: r.e.o.Teams, Board: r.bd, Supervisor: r.sup, UpdateWindow: 20 * time.Millisecond, PumpEvery: time.Hour})
		if err := e2.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(e2.Close)
		e2.Pump(ctx)
		return e2
	}
	restart()
	if got := r.delegation(t, d.id).status; got != "stopped" {
		t.Fatalf("after a restart the delegation is %s", got)
	}
	// The process ended after the stop but before the marking.
	if _, err := r.st.Writer().Exec(`UPDATE delegations SET status = 'running' WHERE id = ?`, d.id); err != nil {
		t.Fatal(err)
	}
	restart()
	if got := r.delegation(t, d.id).status; got != "stopped" {
		t.Fatalf("a stop whose marking was lost became %s", got)
	}
	if n := countRuns(t, r, d.taskID); n != 1 {
		t.Fatalf("the stopped task ran %d times", n)
	}
}

// Cancelling a delegated task at work (the drawer's Close) stops its run
// as the person's stop: the room says it was stopped and closed, and the
// mission, whose only child is closed, settles done.
func TestCancellingADelegatedTaskIsAFinalStop(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	d := delegateTo(t, r, leadTurn(r), "@Mo", working)
	runID := r.waitWorking(t, d)
	cancelled := board.Cancelled
	if _, err := r.bd.Update(ctx, d.taskID, board.Patch{Status: &cancelled}); err != nil {
		t.Fatal(err)
	}
	if err := r.sup.Abort(ctx, runID); err != nil { // as PATCH /api/board/{id} does
		t.Fatal(err)
	}
	until(t, "the delegation to be stopped", func() bool { return r.delegation(t, d.id).status == "stopped" })
	r.waitPost(t, "the stop post", func(p teams.Post) bool {
		return p.Kind == teams.KindStop && p.Body == `Stopped by you: "Write the parser" for @Mo, and closed.`
	})
	until(t, "the mission to settle done", func() bool { m, _ := r.bd.Get(ctx, d.mission); return m.Status == board.Done })
	r.checkStopFinal(t, d, 1)
}
