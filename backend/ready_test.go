package backend

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

// One answer to "can this runtime take work now?", with the reason in
// words, for the agents, mission control and the quota fallback alike
// (the door's Ready; its OpenClaw cases are backend/dispatch's tests).
func TestReadyIsOneAnswerForEveryRuntime(t *testing.T) {
	q := newQuotaRig(t)
	ctx := context.Background()
	if ok, why := q.b.door.Ready(ctx, "clawboo-mock"); !ok || why != "" {
		t.Fatalf("the mock: %v %q", ok, why)
	}
	if ok, why := q.b.door.Ready(ctx, "claude-code"); ok || !strings.HasPrefix(why, "Claude Code is not ready (") {
		t.Fatalf("claude without its program: %v %q", ok, why)
	}
	if ok, why := q.b.door.Ready(ctx, "no-such-runtime"); ok || why != "runtime no-such-runtime is not available" {
		t.Fatalf("unknown: %v %q", ok, why)
	}
	// OpenClaw has no catalog entry: its Gateway's connection decides.
	if ok, why := q.b.door.Ready(ctx, "openclaw"); ok || why != "the OpenClaw Gateway is not connected" {
		t.Fatalf("openclaw, no Gateway: %v %q", ok, why)
	}
}

// OpenClaw may be a fallback; while its Gateway is not connected the work
// waits for the window instead of being routed there.
func TestQuotaFallbackToOpenClawWaitsWhileItsGatewayIsAway(t *testing.T) {
	q := newQuotaRig(t)
	oc := "openclaw"
	ag := q.agent(t, "Coder", "clawboo-mock", &oc)
	q.b.Quota.Observe(context.Background(), "clawboo-mock", executor.QuotaWindow{
		Window: "five_hour", Status: "rejected",
		ResetsAt: q.clock().Add(time.Hour).UnixMilli(),
	})
	task := q.task(t, "Read the logs", "!ok read", ag.ID)
	var res runAnswer
	code := e2eDo(t, q.h, "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"taskId": task.ID}, &res)
	if code == http.StatusOK && res.RuntimeID == "openclaw" {
		t.Fatalf("routed to a Gateway that is not connected: %+v", res)
	}
	if l := q.ledger(t); len(l.Deferred) != 1 || l.Deferred[0].TaskID != task.ID {
		t.Fatalf("the task waits for the window: %d %+v %+v", code, res, l.Deferred)
	}
}
