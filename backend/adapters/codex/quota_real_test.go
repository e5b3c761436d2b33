package codex

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
)

// The real codex 0.171.0 against the fake Responses API sending Codex's
// x-codex-* usage headers. What it did (recorded 2026-12-02): after each
// model answer it sent account/rateLimits/updated with limitId "codex",
// usedPercent rounded to a whole number (42.5 -> 43), the window length
// in minutes and resetsAt in Unix seconds, just before turn/completed. A
// 429 usage_limit_reached answer gave the same update (the exhausted
// window at 100), then error {codexErrorInfo "usageLimitExceeded",
// willRetry false} and turn/completed failed; a 429 without the headers
// gave an update with both windows null, then the same error.

// runQuota runs message and checks the stream's invariants.
func (w *world) runQuota(message string) []executor.Event {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run := w.start(ctx, w.adapter(), executor.StartRequest{AgentID: "agent-q", Message: message, WorkDir: w.t.TempDir()})
	evs := executortest.Collect(w.t, ctx, run)
	// executortest.CheckStream does not know the quota kind yet: quota
	// events are checked here and stand in as status events there.
	view := make([]executor.Event, len(evs))
	for i, e := range evs {
		if e.Kind == executor.KindQuota {
			if e.Quota == nil {
				w.t.Fatalf("quota event %d without a window", i)
			}
			e.Kind, e.Quota = executor.KindStatus, nil
		}
		view[i] = e
	}
	executortest.CheckStream(w.t.(*testing.T), run.ID(), view)
	return evs
}

// TestQuotaFromHeaders: the fake's x-codex-* headers make the real codex
// emit account/rateLimits/updated, and the adapter reports both windows,
// once each though every answer carries them.
func TestQuotaFromHeaders(t *testing.T) {
	reset := time.Now().Add(3 * time.Hour).Truncate(time.Second)
	week := reset.Add(96 * time.Hour)
	h := fakeresponses.RateLimitHeaders(&fakeresponses.Window{UsedPercent: 42.5, Minutes: 300, ResetAt: reset.Unix()},
		&fakeresponses.Window{UsedPercent: 7, Minutes: 10080, ResetAt: week.Unix()})
	h = fakeresponses.Credits(h, true, false, "12.5")
	w := newWorld(t, fakeresponses.Rule{Match: "check", Steps: []fakeresponses.Step{
		{Text: "Running it.", Call: &fakeresponses.Call{Tool: "^exec_command$", Args: `{"cmd":"echo quota-ok"}`}, Headers: h},
		{Text: "Done: {result}", Headers: h},
	}})
	evs := w.runQuota("check the quota")
	if d := executortest.Done(t, evs); d.Reason != executor.DoneSuccess {
		t.Fatalf("events: %s", executortest.Describe(evs))
	}
	if n := len(w.fake.Requests()); n != 2 {
		t.Fatalf("%d model calls, want 2", n)
	}
	// codex rounds 42.5 % to 43 %.
	want := "five_hour/allowed/0.43/" + ms(reset) + "/account/rateLimits/updated seven_day/allowed/0.07/" + ms(week) + "/account/rateLimits/updated"
	if got := qs(quotas(evs)); got != want {
		t.Fatalf("quota events %s, want %s: %s", got, want, executortest.Describe(evs))
	}
	noSecret(t, evs)
}

func ms(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// TestQuotaUsageLimit: a 429 usage_limit_reached ends the run failed, and
// before the end the exhausted window is reported rejected with its
// reset; without the headers the rejected window is "primary".
func TestQuotaUsageLimit(t *testing.T) {
	reset := time.Now().Add(2 * time.Hour).Truncate(time.Second)
	week := reset.Add(72 * time.Hour)
	for _, tc := range []struct {
		name string
		step fakeresponses.Step
		want string
	}{
		{
			"with the windows", fakeresponses.UsageLimit("plus", reset, &fakeresponses.Window{UsedPercent: 100, Minutes: 300, ResetAt: reset.Unix()},
				&fakeresponses.Window{UsedPercent: 40, Minutes: 10080, ResetAt: week.Unix()}),
			"five_hour/rejected/1/" + ms(reset) + "/account/rateLimits/updated seven_day/allowed/0.4/" + ms(week) + "/account/rateLimits/updated",
		},
		{"without headers", fakeresponses.UsageLimit("plus", reset, nil, nil), "primary/rejected/nil/0/error usageLimitExceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, fakeresponses.Rule{Match: "work", Steps: []fakeresponses.Step{tc.step}})
			evs := w.runQuota("work please")
			d := executortest.Done(t, evs)
			if d.Reason != executor.DoneError || !strings.Contains(d.Summary, "usage limit") {
				t.Fatalf("done %+v: %s", d, executortest.Describe(evs))
			}
			if got := qs(quotas(evs)); got != tc.want {
				t.Fatalf("quota events %s, want %s: %s", got, tc.want, executortest.Describe(evs))
			}
			// The rejected window is known before the run's error.
			rejected, failed := -1, -1
			for i, e := range evs {
				if e.Kind == executor.KindQuota && e.Quota.Status == executor.QuotaRejected && rejected < 0 {
					rejected = i
				}
				if e.Kind == executor.KindError && e.Fatal && failed < 0 {
					failed = i
				}
			}
			if rejected < 0 || failed < 0 || rejected > failed {
				t.Fatalf("rejected at %d, error at %d: %s", rejected, failed, executortest.Describe(evs))
			}
		})
	}
}
