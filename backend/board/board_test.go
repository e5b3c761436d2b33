package board

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/store"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newBoard(t testing.TB) (*Board, *bus.Broker[Event]) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	ev := bus.New[Event](0)
	b := New(Options{Store: st, Events: ev})
	t.Cleanup(func() { b.Close(); ev.Close(); st.Close() })
	return b, ev
}

func mustCreate(t testing.TB, b *Board, n NewTask) Task {
	t.Helper()
	task, err := b.Create(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func wantRule(t *testing.T, err error, code string) {
	t.Helper()
	var re *RuleError
	if !errors.As(err, &re) || re.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
}

func TestTransitionTable(t *testing.T) {
	legal := map[Status][]Status{
		Backlog: {Todo, Blocked, Cancelled}, Todo: {InProgress, Blocked, Backlog, Cancelled},
		InProgress: {InReview, Done, Blocked, Todo, Cancelled}, InReview: {Done, InProgress, Blocked, Todo, Cancelled},
		Blocked: {Todo, InProgress, Backlog, Cancelled},
	}
	for _, from := range Statuses {
		for _, to := range Statuses {
			want := from == to
			for _, s := range legal[from] {
				want = want || s == to
			}
			if CanMove(from, to) != want {
				t.Errorf("%s → %s: got %v", from, to, !want)
			}
		}
	}
}

func TestCreateAndTreeCaps(t *testing.T) {
	b, _ := newBoard(t)
	ctx := context.Background()
	root := mustCreate(t, b, NewTask{Title: " Mission ", TeamID: "team-a", RepoPath: "/repo"})
	if root.Title != "Mission" || root.Status != Todo || root.Kind != Code || root.RootID != root.ID || root.Depth != 0 {
		t.Fatalf("%+v", root)
	}
	child := mustCreate(t, b, NewTask{Title: "child", ParentID: root.ID})
	if *child.TeamID != "team-a" || *child.RepoPath != "/repo" || child.RootID != root.ID || child.Depth != 1 {
		t.Fatalf("child does not inherit: %+v", child)
	}
	grand := mustCreate(t, b, NewTask{Title: "grandchild", ParentID: child.ID, Kind: Research})
	_, err := b.Create(ctx, NewTask{Title: "too deep", ParentID: grand.ID})
	wantRule(t, err, "too_deep")
	for i := 1; i < MaxChildren; i++ {
		mustCreate(t, b, NewTask{Title: fmt.Sprint("c", i), ParentID: root.ID})
	}
	_, err = b.Create(ctx, NewTask{Title: "25th", ParentID: root.ID})
	wantRule(t, err, "too_many_children")
	// A finished child frees a place.
	if _, err := b.Update(ctx, child.ID, Patch{Status: ptr(Cancelled)}); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, b, NewTask{Title: "now fits", ParentID: root.ID})
	for _, bad := range []NewTask{
		{Title: "  "},
		{Title: "x", Status: Done},
		{Title: "x", Kind: "deploy"},
		{Title: "x", RepoPath: "relative/path"},
		{Title: string(make([]rune, 501))},
	} {
		_, err := b.Create(ctx, bad)
		wantRule(t, err, "invalid")
	}
	if _, err := b.Create(ctx, NewTask{Title: "orphan", ParentID: "nope"}); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestUpdateFollowsTheTableAndTheVerificationGate(t *testing.T) {
	b, _ := newBoard(t)
	ctx := context.Background()
	task := mustCreate(t, b, NewTask{Title: "t", Status: Backlog})
	_, err := b.Update(ctx, task.ID, Patch{Status: ptr(Done)})
	wantRule(t, err, "illegal_transition")
	claimed, err := b.Update(ctx, task.ID, Patch{Status: ptr(Todo)})
	if err != nil || claimed.Status != Todo {
		t.Fatal(err)
	}
	if _, err := b.Claim(ctx, task.ID, ClaimSpec{AgentID: "a", RunID: "run-1"}); err != nil {
		t.Fatal(err)
	}
	// A run holds it: only cancelling is allowed by hand.
	_, err = b.Update(ctx, task.ID, Patch{Status: ptr(Todo)})
	wantRule(t, err, "illegal_transition")
	failed := &Verification{Command: "make test", ExitCode: 2, Passed: false}
	if _, err := b.Finish(ctx, task.ID, "run-1", Outcome{To: InReview, Verification: failed}); err != nil {
		t.Fatal(err)
	}
	_, err = b.Update(ctx, task.ID, Patch{Status: ptr(Done)})
	wantRule(t, err, "verification_required")
	done, err := b.Update(ctx, task.ID, Patch{Status: ptr(Done), Override: &Override{By: "alice", Reason: "flaky test"}})
	if err != nil || done.Status != Done || done.Override == nil || done.Override.By != "alice" || done.CompletedAt == nil {
		t.Fatalf("%+v %v", done, err)
	}
	_, err = b.Update(ctx, task.ID, Patch{Status: ptr(Todo)})
	wantRule(t, err, "illegal_transition") // done is terminal
	if _, err := b.Update(ctx, "nope", Patch{}); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
}

func TestSixteenClaimersOneWinner(t *testing.T) {
	b, _ := newBoard(t)
	ctx := context.Background()
	task := mustCreate(t, b, NewTask{Title: "prize"})
	var wins, conflicts atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			_, err := b.Claim(ctx, task.ID, ClaimSpec{AgentID: fmt.Sprint("agent-", i), RunID: fmt.Sprint("run-", i)})
			switch {
			case err == nil:
				wins.Add(1)
			case errors.Is(err, ErrConflict):
				conflicts.Add(1)
			default:
				t.Error(err)
			}
		}(i)
	}
	close(start)
	wg.Wait()
	if wins.Load() != 1 || conflicts.Load() != 15 {
		t.Fatalf("wins %d conflicts %d", wins.Load(), conflicts.Load())
	}
	got, _ := b.Get(ctx, task.ID)
	if got.Status != InProgress || got.RunID == nil || got.AssigneeAgentID == nil {
		t.Fatalf("%+v", got)
	}
	if _, err := b.Claim(ctx, "nope", ClaimSpec{}); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
}

func TestDependenciesGateClaimsAndRefuseCycles(t *testing.T) {
	b, _ := newBoard(t)
	ctx := context.Background()
	a := mustCreate(t, b, NewTask{Title: "a"})
	bb := mustCreate(t, b, NewTask{Title: "b"})
	c := mustCreate(t, b, NewTask{Title: "c"})
	if _, err := b.Link(ctx, c.ID, bb.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Link(ctx, bb.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Link(ctx, a.ID, c.ID); !errors.Is(err, ErrCycle) {
		t.Fatalf("cycle accepted: %v", err)
	}
	if _, err := b.Link(ctx, a.ID, a.ID); !errors.Is(err, ErrCycle) {
		t.Fatal(err)
	}
	_, err := b.Claim(ctx, c.ID, ClaimSpec{RunID: "r"})
	wantRule(t, err, "waiting_on_dependencies")
	ready, _ := b.List(ctx, Filter{Ready: true})
	if len(ready) != 1 || ready[0].ID != a.ID {
		t.Fatalf("ready %+v", ready)
	}
	got, _ := b.Get(ctx, c.ID)
	if len(got.DependsOn) != 1 || got.DependsOn[0] != bb.ID {
		t.Fatal(got.DependsOn)
	}
	if _, err := b.Unlink(ctx, c.ID, bb.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Claim(ctx, c.ID, ClaimSpec{RunID: "r"}); err != nil {
		t.Fatal(err)
	}
}

func TestFinishOnlyByTheHoldingRunAndTheSweep(t *testing.T) {
	b, _ := newBoard(t)
	ctx := context.Background()
	task := mustCreate(t, b, NewTask{Title: "t"})
	if _, err := b.Claim(ctx, task.ID, ClaimSpec{AgentID: "a", Runtime: "clawboo-mock", RunID: "run-1"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.Finish(ctx, task.ID, "run-other", Outcome{To: Done}); got.Status != InProgress {
		t.Fatal("a run that does not hold the task moved it")
	}
	if err := b.Heartbeat(ctx, task.ID, "run-1"); err != nil {
		t.Fatal(err)
	}
	// A live run is never swept; a dead one is, with a note.
	if ids, _ := b.ReleaseDead(ctx, 0, func(string) bool { return true }); len(ids) != 0 {
		t.Fatal(ids)
	}
	if ids, _ := b.ReleaseDead(ctx, int64(time.Hour/time.Millisecond), func(string) bool { return false }); len(ids) != 0 {
		t.Fatal("a fresh heartbeat was swept")
	}
	ids, err := b.ReleaseDead(ctx, 0, func(string) bool { return false })
	if err != nil || len(ids) != 1 {
		t.Fatal(ids, err)
	}
	got, _ := b.Get(ctx, task.ID)
	cs, _ := b.Comments(ctx, task.ID)
	if got.Status != Todo || got.RunID != nil || got.AssigneeAgentID != nil || len(cs) != 1 || cs[0].AuthorType != "system" {
		t.Fatalf("%+v %+v", got, cs)
	}
}

func TestCommentsWorktreesAndEvents(t *testing.T) {
	b, ev := newBoard(t)
	ctx := context.Background()
	sub := ev.Subscribe(16)
	defer sub.Close()
	task := mustCreate(t, b, NewTask{Title: "t"})
	if e := <-sub.C(); e.Kind != "task" || e.Task.ID != task.ID {
		t.Fatalf("%+v", e)
	}
	if _, err := b.AddComment(ctx, task.ID, NewComment{Body: "  hello  "}); err != nil {
		t.Fatal(err)
	}
	if e := <-sub.C(); e.Kind != "comment" || e.Comment.Body != "hello" {
		t.Fatalf("%+v", e)
	}
	if _, err := b.AddComment(ctx, "nope", NewComment{Body: "x"}); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	_, err := b.AddComment(ctx, task.ID, NewComment{Body: " "})
	wantRule(t, err, "invalid")
	w := Worktree{TaskID: task.ID, RepoPath: "/r", Path: "/h/w", Branch: "clawboo/task-x", BaseCommit: "abc", Status: "active"}
	if err := b.SetWorktree(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := b.SetWorktreeStatus(ctx, task.ID, "paused"); err != nil {
		t.Fatal(err)
	}
	got, err := b.Worktree(ctx, task.ID)
	if err != nil || got.Status != "paused" || got.Branch != w.Branch {
		t.Fatalf("%+v %v", got, err)
	}
	if b.Protected(ctx, task.ID) {
		t.Fatal("a todo task is not protected")
	}
	_, _ = b.Claim(ctx, task.ID, ClaimSpec{RunID: "r"})
	if !b.Protected(ctx, task.ID) {
		t.Fatal("an in-progress task must be protected")
	}
}

func TestListFilters(t *testing.T) {
	b, _ := newBoard(t)
	ctx := context.Background()
	mustCreate(t, b, NewTask{Title: "low", Priority: 1, TeamID: "t1"})
	hi := mustCreate(t, b, NewTask{Title: "high", Priority: 9, TeamID: "t2"})
	mustCreate(t, b, NewTask{Title: "later", Status: Backlog})
	all, _ := b.List(ctx, Filter{})
	if len(all) != 3 || all[0].ID != hi.ID {
		t.Fatalf("%+v", all)
	}
	if ts, _ := b.List(ctx, Filter{Statuses: []Status{Backlog}}); len(ts) != 1 {
		t.Fatal(ts)
	}
	if ts, _ := b.List(ctx, Filter{TeamID: "t2"}); len(ts) != 1 || ts[0].ID != hi.ID {
		t.Fatal(ts)
	}
}
