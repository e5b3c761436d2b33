package backend

import (
	"context"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/adapters/openclaw"
	"github.com/clawboo/desktop/backend/approval"
)

// TestOpenClawCardWakesOnApprovals: the card's status stream wakes when a
// Gateway exec approval is asked and again when it is settled (it shows
// the pending count), not only on connection changes.
func TestOpenClawCardWakesOnApprovals(t *testing.T) {
	b := e2eBackend(t, map[string]string{})
	if b.openClaw == nil {
		t.Fatal("the openclaw service is not wired")
	}
	wake, stop := b.openClaw.SubscribeStatus()
	defer stop()
	drain := func() {
		for {
			select {
			case <-wake:
			case <-time.After(100 * time.Millisecond):
				return
			}
		}
	}
	drain()
	waitWake := func(what string) {
		t.Helper()
		select {
		case <-wake:
		case <-time.After(5 * time.Second):
			t.Fatalf("no wake when %s", what)
		}
	}
	ctx := context.Background()
	done := make(chan bool, 1)
	go func() {
		ok, _ := b.openClaw.ask(ctx, openclaw.Question{Title: "OpenClaw asks to run a command", Command: "ls"}, time.Minute)
		done <- ok
	}()
	waitWake("the approval is asked")
	var ps []approval.Request
	for deadline := time.Now().Add(5 * time.Second); len(ps) == 0; time.Sleep(5 * time.Millisecond) {
		if ps, _ = b.Approvals.Pending(ctx); time.Now().After(deadline) {
			t.Fatal("no pending approval")
		}
	}
	drain()
	if _, err := b.Approvals.Resolve(ctx, ps[0].ID, approval.Approve, "page", ""); err != nil {
		t.Fatal(err)
	}
	if !<-done {
		t.Fatal("an approved request must allow")
	}
	waitWake("the approval is settled")
}
