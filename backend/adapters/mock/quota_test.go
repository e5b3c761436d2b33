package mock

import (
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

func TestQuotaDirective(t *testing.T) {
	now := time.UnixMilli(1_800_000_000_000)
	ev, ok := quotaEvent("five_hour 97 allowed_warning 3600", now)
	if !ok || ev.Kind != executor.KindQuota || ev.Quota == nil {
		t.Fatalf("no quota event: %+v %v", ev, ok)
	}
	q := ev.Quota
	if q.Window != "five_hour" || q.Status != executor.QuotaAllowedWarning || q.Utilization == nil || *q.Utilization != 0.97 ||
		q.ResetsAt != now.Add(time.Hour).UnixMilli() {
		t.Fatalf("window %+v", q)
	}
	if ev, _ := quotaEvent("seven_day 100", now); ev.Quota.Status != executor.QuotaRejected || ev.Quota.ResetsAt != 0 {
		t.Fatalf("100%% without a status is rejected, no reset: %+v", ev.Quota)
	}
	if ev, _ := quotaEvent("seven_day 40%", now); ev.Quota.Status != executor.QuotaAllowed {
		t.Fatalf("40%% is allowed: %+v", ev.Quota)
	}
	for _, bad := range []string{"", "five_hour", "Five-Hour 10", "five_hour x", "five_hour -1", "five_hour 10 maybe", "five_hour 10 allowed soon", "five_hour 10 allowed 99999999999"} {
		if _, ok := quotaEvent(bad, now); ok {
			t.Errorf("%q was accepted", bad)
		}
	}
	evs, _ := play(t, "!quota five_hour 50 allowed 60\n!ok", "")
	var seen bool
	for _, e := range evs {
		if e.Kind == executor.KindQuota && e.Quota.Window == "five_hour" && e.Quota.ResetsAt > time.Now().UnixMilli() {
			seen = true
		}
	}
	if !seen {
		t.Fatalf("a run with !quota reported no window: %+v", evs)
	}
}
