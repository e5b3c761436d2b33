package backend

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
)

// A run held at the door comes back as it was asked: what the caller
// added to its task (here a send-back's line comments) is the resumed
// run's message, and a task secret's value in it is stored nowhere.
func TestQuotaDeferredRunComesBackWithItsMessage(t *testing.T) {
	q := newQuotaRig(t)
	ctx := context.Background()
	const sentinel = "rk_live_QUOTA_CARRY_SENTINEL_9d1e4b"
	var put map[string]any
	if code := e2eDo(t, q.h, "PUT", "/api/secrets/PAY_KEY", map[string]any{"value": sentinel}, &put); code != http.StatusOK {
		t.Fatalf("put secret: %d %v", code, put)
	}
	ag := q.agent(t, "Worker", "clawboo-mock", nil)
	task, err := q.b.Board.Create(ctx, board.NewTask{
		Title: "Charge a card", Description: "!ok charged", Kind: board.Research,
		AssigneeAgentID: ag.ID, Secrets: []string{"PAY_KEY"},
	})
	if err != nil {
		t.Fatal(err)
	}
	q.b.Quota.Observe(ctx, "clawboo-mock", executor.QuotaWindow{
		Window: "five_hour", Status: "rejected",
		ResetsAt: q.clock().Add(time.Hour).UnixMilli(),
	})
	comments := "Line comments:\nmain.go:3 read the key from PAY_KEY, not " + sentinel
	var refused struct{ Reason string }
	if code := e2eDo(t, q.h, "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"taskId": task.ID, "message": comments}, &refused); code != http.StatusUnprocessableEntity || refused.Reason != "quota" {
		t.Fatalf("the send-back is deferred: %d %+v", code, refused)
	}
	scanHomeFor(t, q.home, sentinel)

	q.step(61 * time.Minute)
	q.b.Quota.FireDue(ctx, q.b.door.Resume)
	q.waitTask(t, task.ID, board.Done)
	runs, err := q.b.Store.TaskRuns(ctx, task.ID, 10)
	if err != nil || len(runs) != 1 || runs[0].Status != store.RunSucceeded {
		t.Fatalf("one run after the reset: %v %+v", err, runs)
	}
	run, err := q.b.Store.GetRun(ctx, runs[0].ID)
	if err != nil || !strings.Contains(run.Prompt, "main.go:3 read the key from PAY_KEY, not ") {
		t.Fatalf("the resumed run was not asked what was held: %v %q", err, run.Prompt)
	}
	scanHomeFor(t, q.home, sentinel)
}
