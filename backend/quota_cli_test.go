package backend

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/fakes/fakeanthropic"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
)

// The fake Responses server's x-codex-* headers make the real codex
// app-server send account/rateLimits/updated; both windows land in the
// ledger through the supervisor, and the next task asked of codex (its
// five-hour window at 97 %) is deferred with that reason.
func TestCodexUsageWindowsLandInTheLedger(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	e := newCodexEnv(t, ctx)
	now := time.Now()
	hdr := fakeresponses.RateLimitHeaders(&fakeresponses.Window{UsedPercent: 97, Minutes: 300, ResetAt: now.Add(time.Hour).Unix()},
		&fakeresponses.Window{UsedPercent: 40, Minutes: 10080, ResetAt: now.Add(96 * time.Hour).Unix()})
	e.fake.SetRules(fakeresponses.Rule{Match: "hello", Steps: []fakeresponses.Step{{Text: "Hi.", Headers: hdr}}})
	name, rt := "Chatter", "codex"
	agent, err := e.b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	h, err := e.b.Supervisor.Start(ctx, supervisor.StartParams{RuntimeID: "codex", AgentID: agent.ID, Message: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := h.Wait(ctx); err != nil || r.Status != store.RunSucceeded {
		t.Fatalf("run: %+v %v", r, err)
	}
	var l quotaAnswer
	if code := e2eDo(t, authed(e.b), "GET", "/api/quota", nil, &l); code != http.StatusOK {
		t.Fatalf("GET /api/quota: %d", code)
	}
	got := map[string]float64{}
	for _, w := range l.Windows {
		if w.Runtime == "codex" && w.Utilization != nil && w.ResetsAt != nil {
			got[w.Window] = *w.Utilization
		}
	}
	if got["five_hour"] != 0.97 || got["seven_day"] != 0.40 {
		t.Fatalf("codex's windows in the ledger: %+v", l.Windows)
	}
	task, err := e.b.Board.Create(ctx, board.NewTask{Title: "Tidy the notes", Kind: board.Research, AssigneeAgentID: agent.ID})
	if err != nil {
		t.Fatal(err)
	}
	var refused struct{ Reason, Error string }
	code := e2eDo(t, authed(e.b), "POST", "/api/runtimes/codex/run", map[string]any{"taskId": task.ID}, &refused)
	if code != http.StatusUnprocessableEntity || refused.Reason != "quota" || !strings.HasPrefix(refused.Error, "Codex five-hour window at 97 %") {
		t.Fatalf("the task is deferred: %d %+v", code, refused)
	}
}

// claudeLoginToken stands in for a claude.ai login: the pinned CLI reads
// the unified rate-limit headers only for one (with an API key it ignores
// them; docs/quota.md).
const claudeLoginToken = "sk-ant-oat01-SENTINEL-login-5e7d21"

// The fake Anthropic's unified rate-limit headers make the real claude
// (signed in, no key in the vault) write rate_limit_event; it lands in the
// ledger through the supervisor, and the token is in no event or log.
func TestClaudeRateLimitEventLandsInTheLedger(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	rg := newClaudeLoginRig(t, ctx)
	reset := time.Now().Add(90 * time.Minute).Unix()
	rg.fake.SetUnified(&fakeanthropic.Unified{
		Status: "allowed_warning", Reset: reset, Claim: "five_hour",
		Windows: []fakeanthropic.UnifiedWindow{{Abbrev: "5h", Utilization: 0.93, Reset: reset, SurpassedThreshold: 0.9}},
	})
	rg.fake.SetRules(fakeanthropic.Rule{Match: "hello", Text: "Hello, person."})
	h, err := rg.b.Supervisor.Start(ctx, supervisor.StartParams{RuntimeID: "claude-code", Message: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := h.Wait(ctx)
	if err != nil || r.Status != store.RunSucceeded {
		t.Fatalf("run: %+v %v", r, err)
	}
	var l quotaAnswer
	if code := e2eDo(t, rg.h, "GET", "/api/quota", nil, &l); code != http.StatusOK {
		t.Fatalf("GET /api/quota: %d", code)
	}
	var found bool
	for _, w := range l.Windows {
		if w.Runtime == "claude-code" && w.Window == "five_hour" && w.Status == "allowed_warning" && w.Utilization != nil &&
			*w.Utilization == 0.93 && w.ResetsAt != nil && *w.ResetsAt == reset*1000 {
			found = true
		}
	}
	if !found {
		t.Fatalf("claude's window in the ledger: %+v", l.Windows)
	}
	evs, _ := rg.b.Store.ListEvents(ctx, r.ID, 0, 1000)
	for _, e := range evs {
		if strings.Contains(string(e.Data), claudeLoginToken) {
			t.Fatalf("the login token reached a stored event: %s", e.Data)
		}
	}
	if strings.Contains(rg.logs.String(), claudeLoginToken) {
		t.Fatal("the login token reached the logs")
	}
}
