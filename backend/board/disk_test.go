package board

import (
	"context"
	"testing"
)

func TestFinishedAndTheWorktreeBudget(t *testing.T) {
	b, _ := newBoard(t)
	ctx := context.Background()
	task := mustCreate(t, b, NewTask{Title: "t", RepoPath: "/r"})
	if !b.Finished(ctx, task.ID) || b.Finished(ctx, "nope") {
		t.Fatal("a todo task is finished; an unknown one is not")
	}
	if _, err := b.Claim(ctx, task.ID, ClaimSpec{AgentID: "a", RunID: "run-1"}); err != nil {
		t.Fatal(err)
	}
	if b.Finished(ctx, task.ID) {
		t.Fatal("a task a run works on is finished")
	}
	if n, err := b.WorktreeBudget(ctx); err != nil || n != DefaultWorktreeBudget {
		t.Fatal(n, err)
	}
	if err := b.SetWorktreeBudget(ctx, -1); err == nil {
		t.Fatal("a negative budget was taken")
	}
	if err := b.SetWorktreeBudget(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if n, _ := b.WorktreeBudget(ctx); n != 0 {
		t.Fatal(n)
	}
}
