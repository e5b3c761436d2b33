//go:build unix

package claudecode

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/backend/fakes/fakeanthropic"
)

// oauthToken stands in for a claude.ai login. The pinned CLI reads the
// unified rate-limit headers, and writes rate_limit_event, only for a
// claude.ai login: with ANTHROPIC_API_KEY it ignores them (measured on
// 2.1.197: the same rejected answer then gives no rate_limit_event, only
// "API Error: Request rejected (429) · ..."). CLAUDE_CODE_OAUTH_TOKEN is
// such a login, sent as a bearer token to ANTHROPIC_BASE_URL.
const oauthToken = "sk-ant-oat01-sentinel-claudecode-0123456789"

// newLoginRig is newRig with a claude.ai login instead of an API key, and
// u on every answer of the fake.
func newLoginRig(t *testing.T, u *fakeanthropic.Unified, rules ...fakeanthropic.Rule) *rig {
	t.Helper()
	rg := newRig(t, rules...)
	rg.fake.SetUnified(u)
	rg.opts.Key = func(context.Context) string { return "" }
	rg.opts.Env["CLAUDE_CODE_OAUTH_TOKEN"] = oauthToken
	return rg
}

// quotaRun runs "hello" against u and returns the events, checked for
// order, the login reaching the fake, and no token in any event.
func quotaRun(t *testing.T, u *fakeanthropic.Unified) []executor.Event {
	t.Helper()
	rg := newLoginRig(t, u, fakeanthropic.Rule{Match: "hello", Text: "Hello, person."})
	r := start(t, New(rg.opts), executor.StartRequest{Message: "hello"})
	evs := collect(t, r, nil)
	CheckEvents(t, r.ID(), evs)
	noSecret(t, evs, oauthToken)
	reqs := rg.fake.Requests()
	if len(reqs) == 0 || reqs[0].Bearer != oauthToken || reqs[0].APIKey != "" {
		t.Fatalf("the login did not reach the fake: %d requests", len(reqs))
	}
	return evs
}

func oneQuota(t *testing.T, evs []executor.Event) executor.QuotaWindow {
	t.Helper()
	q := executortest.OfKind(evs, executor.KindQuota)
	if len(q) != 1 || q[0].Quota == nil {
		t.Fatalf("want one quota event: %v", briefs(evs))
	}
	return *q[0].Quota
}

// The fake's unified headers make the real claude write rate_limit_event,
// and the run reports it as the window's quota: the API's own warning
// threshold (-5h-surpassed-threshold) gives allowed_warning with the
// five-hour utilization (a fraction) and reset (seconds → ms); a plain
// allowed answer gives the representative claim's window and the overall
// reset, without utilization (the CLI sends none with allowed).
func TestRealQuotaWindows(t *testing.T) {
	claudeBin(t)
	reset5h := time.Now().Add(4 * time.Hour).Unix()
	reset7d := time.Now().Add(72 * time.Hour).Unix()
	t.Run("warning", func(t *testing.T) {
		evs := quotaRun(t, &fakeanthropic.Unified{
			Status: "allowed", Reset: reset5h, Claim: "five_hour",
			Windows: []fakeanthropic.UnifiedWindow{
				{Abbrev: "5h", Status: "allowed", Utilization: 0.93, Reset: reset5h, SurpassedThreshold: 0.9},
				{Abbrev: "7d", Status: "allowed", Utilization: 0.4, Reset: reset7d},
			},
		})
		if d := last(evs); d.Reason != executor.DoneSuccess || d.Summary != "Hello, person." {
			t.Fatalf("%v", briefs(evs))
		}
		q := oneQuota(t, evs)
		if q.Window != "five_hour" || q.Status != executor.QuotaAllowedWarning || q.Utilization == nil ||
			*q.Utilization != 0.93 || q.ResetsAt != reset5h*1000 || q.Source != QuotaSource || q.Account != "" {
			t.Fatalf("quota %+v (utilization %v)", q, q.Utilization)
		}
	})
	t.Run("allowed", func(t *testing.T) {
		evs := quotaRun(t, &fakeanthropic.Unified{
			Status: "allowed", Reset: reset7d, Claim: "seven_day",
			OverageStatus: "rejected", OverageDisabledReason: "org_level_disabled",
			Windows: []fakeanthropic.UnifiedWindow{{Abbrev: "7d", Status: "allowed", Utilization: 0.1, Reset: reset7d}},
		})
		if d := last(evs); d.Reason != executor.DoneSuccess {
			t.Fatalf("%v", briefs(evs))
		}
		q := oneQuota(t, evs)
		if q.Window != "seven_day" || q.Status != executor.QuotaAllowed || q.Utilization != nil || q.ResetsAt != reset7d*1000 {
			t.Fatalf("quota %+v", q)
		}
	})
}

// A spent window: the fake answers 429 with status rejected, as the API
// does. Measured on 2.1.197 with a claude.ai login (and the rig's
// CLAUDE_CODE_MAX_RETRIES=0): one request, then rate_limit_event
// {"status":"rejected","resetsAt":<s>,"rateLimitType":"five_hour",
// "isUsingOverage":false} (no utilization),
// then a <synthetic> assistant message and a result with subtype success,
// is_error true, api_error_status 429 and result "You've hit your session
// limit · resets 5:21pm (UTC)". The run reports the rejected window before
// it ends in error.
func TestRealQuotaRejected(t *testing.T) {
	claudeBin(t)
	reset := time.Now().Add(90 * time.Minute).Unix()
	evs := quotaRun(t, &fakeanthropic.Unified{
		Status: "rejected", Reset: reset, Claim: "five_hour",
		OverageStatus: "rejected", OverageDisabledReason: "org_level_disabled",
		Windows: []fakeanthropic.UnifiedWindow{{Abbrev: "5h", Status: "rejected", Utilization: 1, Reset: reset}},
	})
	q := oneQuota(t, evs)
	if q.Window != "five_hour" || q.Status != executor.QuotaRejected || q.ResetsAt != reset*1000 || q.Source != QuotaSource {
		t.Fatalf("quota %+v", q)
	}
	qi, ei := -1, -1
	for i, ev := range evs {
		switch ev.Kind {
		case executor.KindQuota:
			qi = i
		case executor.KindError:
			ei = i
		}
	}
	d := last(evs)
	if d.Reason != executor.DoneError || ei < 0 || qi > ei || !evs[ei].Fatal ||
		!strings.Contains(d.Summary, "You've hit your session limit") {
		t.Fatalf("%v", briefs(evs))
	}
}
