package backend

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

// A team turn the quota held is not taken at the reset when the person
// pressed Stop since (before: it started by itself after Stop all).
func TestStopAllDropsATurnTheQuotaHeld(t *testing.T) {
	rg := newTeamRig(t)
	rg.b.Quota.Observe(context.Background(), "clawboo-mock", executor.QuotaWindow{
		Window: "five_hour", Status: "rejected",
		ResetsAt: time.Now().Add(1500 * time.Millisecond).UnixMilli(),
	})
	var refused struct{ Reason string }
	if code := e2eDo(t, rg.h, "POST", "/api/teams/"+rg.team.ID+"/chat", map[string]any{"message": "!ok on it"}, &refused); code != http.StatusUnprocessableEntity || refused.Reason != "quota" {
		t.Fatalf("the turn is deferred: %d %+v", code, refused)
	}
	if code := e2eDo(t, rg.h, "POST", "/api/teams/"+rg.team.ID+"/chat/stop", map[string]any{}, nil); code != http.StatusOK {
		t.Fatalf("stop: %d", code)
	}
	rg.waitPost(t, "saying the held turn is not taken", func(p wirePost) bool {
		return p.Kind == "stop" && strings.Contains(p.Body, "Stopped by you: the turn of @Lead the quota held back was not taken.")
	})
	var turns int
	if err := rg.b.Store.Reader().QueryRow(`SELECT COUNT(*) FROM runs WHERE team_id = ? AND task_id IS NULL`, rg.team.ID).Scan(&turns); err != nil || turns != 0 {
		t.Fatalf("%d turns started after the stop (%v)", turns, err)
	}
}
