package board

import (
	"context"
	"errors"
	"testing"
)

func TestCheckoutLockOfADeadRunIsReleasedByTheSweep(t *testing.T) {
	b, _ := newBoard(t)
	ctx := context.Background()
	a, err := b.Create(ctx, NewTask{Title: "a", RepoPath: "/repo", WorkInPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	if !a.WorkInPlace {
		t.Fatal("workInPlace not stored")
	}
	c, _ := b.Create(ctx, NewTask{Title: "c", RepoPath: "/repo", WorkInPlace: true})
	if _, err := b.Claim(ctx, a.ID, ClaimSpec{AgentID: "x", RunID: "run-a"}); err != nil {
		t.Fatal(err)
	}
	if err := b.LockCheckout(ctx, "/repo", a.ID, "run-a", func(string) bool { return true }); err != nil {
		t.Fatal(err)
	}
	dead := func(string) bool { return false }
	// Not live here, but its claim stands (a run of another process): busy.
	var busy *CheckoutBusyError
	if err := b.LockCheckout(ctx, "/repo", c.ID, "run-c", dead); !errors.As(err, &busy) || busy.Holder.TaskID != a.ID {
		t.Fatalf("want busy naming %s, got %v", a.ID, err)
	}
	// The same task's successor run takes the lock over.
	if err := b.LockCheckout(ctx, "/repo", a.ID, "run-a", dead); err != nil {
		t.Fatal(err)
	}
	// The sweep that releases the dead claim releases its checkout too.
	released, err := b.ReleaseDead(ctx, 0, dead)
	if err != nil || len(released) != 1 || released[0] != a.ID {
		t.Fatalf("%v %v", released, err)
	}
	if locks, _ := b.CheckoutLocks(ctx); len(locks) != 0 {
		t.Fatalf("lock kept: %+v", locks)
	}
	if err := b.LockCheckout(ctx, "/repo", c.ID, "run-c", dead); err != nil {
		t.Fatal(err)
	}
	// Unlocking by another run leaves it; by its own frees it.
	_ = b.UnlockCheckout(ctx, "run-a")
	if locks, _ := b.CheckoutLocks(ctx); len(locks) != 1 {
		t.Fatalf("%+v", locks)
	}
	_ = b.UnlockCheckout(ctx, "run-c")
	if locks, _ := b.CheckoutLocks(ctx); len(locks) != 0 {
		t.Fatalf("%+v", locks)
	}
	on := false
	if got, err := b.Update(ctx, a.ID, Patch{WorkInPlace: &on}); err != nil || got.WorkInPlace {
		t.Fatalf("%+v %v", got, err)
	}
}
