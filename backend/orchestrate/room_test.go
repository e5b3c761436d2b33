package orchestrate

import (
	"context"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/teams"
)

// A person's Run again on a stopped delegated task works, and its end is
// reported as any child's: a report-up about the task, the mission settled
// done once its only child is done, and the leader's [Task Update].
func TestRunAgainAfterAStopIsReported(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	d := delegateTo(t, r, leadTurn(r), "@Mo", working)
	r.waitWorking(t, d)
	r.e.StopMember(ctx, r.team.ID, "mo")
	until(t, "the delegation to be stopped", func() bool { return r.delegation(t, d.id).status == "stopped" })
	desc := "Write the parser\n!ok parsed it"
	if _, err := r.bd.Update(ctx, d.taskID, board.Patch{Description: &desc}); err != nil {
		t.Fatal(err)
	}
	turns := r.teamTurns(t)
	h, err := r.sup.Start(ctx, supervisor.StartParams{RuntimeID: executor.Mock, TaskID: d.taskID, AgentID: "mo"})
	if err != nil {
		t.Fatal(err)
	}
	report := r.waitPost(t, "the report-up of the run again", func(p teams.Post) bool {
		return p.Kind == teams.KindPeer && strings.HasPrefix(p.Body, `Report on "Write the parser": done.`)
	})
	if report.TaskID != d.taskID || report.Author != "mo" {
		t.Fatalf("report %+v", report)
	}
	until(t, "the leader's [Task Update]", func() bool { return r.delegation(t, d.id).status == "reported" && r.teamTurns(t) == turns+1 })
	if got := r.delegation(t, d.id); got.status != "reported" {
		t.Fatalf("delegation %+v", got)
	}
	var child string
	_ = r.st.Reader().QueryRow(`SELECT child_run_id FROM delegations WHERE id = ?`, d.id).Scan(&child)
	if child != h.ID {
		t.Fatalf("the delegation follows run %s, not the run again %s", child, h.ID)
	}
	until(t, "the mission to settle done", func() bool {
		m, _ := r.bd.Get(ctx, d.mission)
		return m.Status == board.Done
	})
}

// A delegated card shows its assignee before it starts (before: only the
// runtime, the agent set by the claim), and the delegation post names the
// task it made.
func TestDelegatedTaskNamesItsAssigneeBeforeItStarts(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	d := delegateTo(t, r, leadTurn(r), "@Ghost", "Haunt the attic")
	task, err := r.bd.Get(ctx, d.taskID)
	if err != nil {
		t.Fatal(err)
	}
	if task.Status != board.Todo || task.AssigneeAgentID == nil || *task.AssigneeAgentID != "ghost" {
		t.Fatalf("task %s assigned to %v", task.Status, task.AssigneeAgentID)
	}
	p := r.waitPost(t, "the delegation post", func(p teams.Post) bool { return p.Kind == teams.KindDelegate })
	if p.TaskID != d.taskID || p.Assignee != "ghost" {
		t.Fatalf("delegation post %+v", p)
	}
	// A start that never happened says "did not start", by title and name.
	r.waitSystem(t, `"Haunt the attic" for @Ghost did not start (attempt 1 of 3)`)
}

// "did not start" is said only of a run that never started: a child run
// that started and failed says it stopped before it finished, and why.
func TestAStartedRunThatFailedIsNotSaidNotToHaveStarted(t *testing.T) {
	r := newRig(t)
	d := delegateTo(t, r, leadTurn(r), "@Mo", "Break things\n!ok trying\n!error the disk is on fire")
	p := r.waitPost(t, "the retry post", func(p teams.Post) bool { return p.TaskID == d.taskID && strings.Contains(p.Body, "attempt 1 of 3") })
	if strings.Contains(p.Body, "did not start") || !strings.Contains(p.Body, `"Break things" for @Mo stopped before it finished`) ||
		!strings.Contains(p.Body, "the disk is on fire") {
		t.Fatalf("retry post %q", p.Body)
	}
}

// A merge of a delegated task's work is told in the room (and so to the
// leader's mail), once, about the task; the mission settles done when
// every child landed or was closed.
func TestAMergedDelegationIsReportedAndTheMissionSettles(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	tn := leadTurn(r)
	// The leader's turn is live while it delegates: the first child
	// ending does not settle the mission under it.
	tn.runID = "turn-1"
	r.e.mu.Lock()
	r.e.turns[tn.runID] = tn
	r.e.mu.Unlock()
	a := delegateTo(t, r, tn, "@Mo", "Write the notes\n!ok wrote them")
	until(t, "the first to end", func() bool { s := r.delegation(t, a.id).status; return s == "ended" || s == "reported" })
	if m, _ := r.bd.Get(ctx, a.mission); m.Status != board.InProgress {
		t.Fatalf("the mission is %s while its leader's turn is live", m.Status)
	}
	b := delegateTo(t, r, tn, "@Mo", working)
	r.e.mu.Lock()
	delete(r.e.turns, tn.runID)
	r.e.mu.Unlock()
	r.waitWorking(t, b)
	// Landed as supervisor.Land records it; a later change of the done task
	// (a new priority) must not post the merge again.
	if _, err := r.bd.MarkMerged(ctx, a.taskID, board.Merged{Base: "main", Commit: strings.Repeat("a", 40), How: "ff"}, nil); err != nil {
		t.Fatal(err)
	}
	prio := 3
	if _, err := r.bd.Update(ctx, a.taskID, board.Patch{Priority: &prio}); err != nil {
		t.Fatal(err)
	}
	merge := r.waitPost(t, "the merge post", func(p teams.Post) bool { return p.Kind == teams.KindMerge })
	if merge.Body != `Merged "Write the notes" into main.` || merge.TaskID != a.taskID {
		t.Fatalf("merge post %+v", merge)
	}
	lead, _ := r.team.Leader()
	if !addressed(merge, lead) {
		t.Fatal("the merge is not in the leader's mail")
	}
	if m, _ := r.bd.Get(ctx, a.mission); m.Status != board.InProgress {
		t.Fatalf("the mission is %s with a child at work", m.Status)
	}
	// The person closes the other child: every child landed or was closed.
	cancelled := board.Cancelled
	if _, err := r.bd.Update(ctx, b.taskID, board.Patch{Status: &cancelled}); err != nil {
		t.Fatal(err)
	}
	until(t, "the mission to settle done", func() bool {
		m, _ := r.bd.Get(ctx, a.mission)
		return m.Status == board.Done
	})
	n := 0
	for _, p := range r.posts(t) {
		if p.Kind == teams.KindMerge {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d merge posts", n)
	}
}

// A send-back of a delegated task in review is told in the room, naming
// the member and what the person asked, and its run is reported as usual.
func TestASendBackIsToldInTheRoom(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	d := delegateTo(t, r, leadTurn(r), "@Mo", working)
	r.waitWorking(t, d)
	r.e.StopMember(ctx, r.team.ID, "mo")
	until(t, "the delegation to be stopped", func() bool { return r.delegation(t, d.id).status == "stopped" })
	// The work waits in review (as a green verify leaves it).
	desc := "Write the parser\n!ok fixed the names"
	if _, err := r.bd.Update(ctx, d.taskID, board.Patch{Description: &desc}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []board.Status{board.InProgress, board.InReview, board.Todo} {
		if _, err := r.bd.Update(ctx, d.taskID, board.Patch{Status: &s}); err != nil {
			t.Fatal(err)
		}
	}
	until(t, "the mission to follow", func() bool { m, _ := r.bd.Get(ctx, d.mission); return m.Status == board.InReview })
	if _, err := r.sup.Start(ctx, supervisor.StartParams{
		RuntimeID: executor.Mock, TaskID: d.taskID, AgentID: "mo",
		Message: "Review comments:\n- parser.go:3 — use clearer names", Reason: "review",
	}); err != nil {
		t.Fatal(err)
	}
	sent := r.waitPost(t, "the send-back post", func(p teams.Post) bool { return strings.HasPrefix(p.Body, "Sent back to @Mo:") })
	if sent.TaskID != d.taskID || !strings.Contains(sent.Body, `"Write the parser"`) || !strings.Contains(sent.Body, "use clearer names") {
		t.Fatalf("send-back post %+v", sent)
	}
	if lead, _ := r.team.Leader(); !addressed(sent, lead) {
		t.Fatal("the send-back is not in the leader's mail")
	}
	r.waitPost(t, "the report-up", func(p teams.Post) bool { return strings.HasPrefix(p.Body, `Report on "Write the parser": done.`) })
}

// An aborted child's retry post says why in words, never a code.
func TestRunWordsSayWhy(t *testing.T) {
	for _, c := range []struct {
		run  store.Run
		want string
	}{
		{store.Run{Status: store.RunAborted, Error: "quota:five_hour"}, "the run aborted: the runtime's five-hour quota window was used up"},
		{store.Run{Status: store.RunAborted, Error: "budget_paused:team"}, "the run aborted: the team budget is used up"},
		{store.Run{Status: store.RunTimedOut, Error: "idle timeout: no events for 8m0s"}, "the run timed out: idle timeout: no events for 8m0s"},
		{store.Run{Status: store.RunFailed}, "the run failed"},
	} {
		if got := runWords(c.run); got != c.want {
			t.Errorf("runWords(%+v) = %q, want %q", c.run, got, c.want)
		}
	}
}
