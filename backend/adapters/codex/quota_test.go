package codex

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
)

// Unit tests of the usage-window mapping (quota.go), on notifications as
// the real codex 0.171.0 sent them (quota_real_test.go drives it).

func TestWindowName(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		limit, slot string
		mins        *float64
		want        string
	}{
		{"codex", "primary", f(300), "five_hour"},
		{"codex", "secondary", f(10080), "seven_day"},
		{"", "primary", f(1440), "1_day"},
		{"codex", "primary", f(60), "1_hour"},
		{"codex", "primary", f(90), "90_minute"},
		{"codex", "primary", nil, "primary"},
		{"codex", "secondary", f(0), "secondary"},
		{"codex", "primary", f(-5), "primary"},
		{"codex", "primary", f(12.5), "primary"},
		{"codex", "primary", f(1e12), "primary"},
		{"Codex", "primary", f(300), "five_hour"},
		{"codex_other", "primary", f(60), "codex_other_1_hour"},
		{"x-y Z", "secondary", nil, "x_y_z_secondary"},
	} {
		if got := windowName(tc.limit, tc.slot, tc.mins); got != tc.want {
			t.Errorf("windowName(%q, %q, %v) = %q, want %q", tc.limit, tc.slot, tc.mins, got, tc.want)
		}
	}
	if n := windowName(strings.Repeat("a", 500), "primary", nil); len(n) > 60 {
		t.Errorf("an unbounded limit id made %d bytes", len(n))
	}
}

// rl is an account/rateLimits/updated params with the given windows.
func rl(limit, primary, secondary string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"rateLimits":{"limitId":%q,"limitName":null,"normalModelSlug":null,"primary":%s,"secondary":%s,`+
		`"credits":{"hasCredits":true,"unlimited":false,"balance":"12.5"},"individualLimit":null,"spendControlReached":null,"planType":null,"rateLimitReachedType":null}}`,
		limit, primary, secondary))
}

func quotas(evs []executor.Event) []executor.QuotaWindow {
	var out []executor.QuotaWindow
	for _, e := range evs {
		if e.Kind == executor.KindQuota && e.Quota != nil {
			out = append(out, *e.Quota)
		}
	}
	return out
}

func qs(ws []executor.QuotaWindow) string {
	var b []string
	for _, w := range ws {
		u := "nil"
		if w.Utilization != nil {
			u = fmt.Sprintf("%.4g", *w.Utilization)
		}
		b = append(b, fmt.Sprintf("%s/%s/%s/%d/%s", w.Window, w.Status, u, w.ResetsAt, w.Source))
	}
	return strings.Join(b, " ")
}

func TestRateLimitsUpdated(t *testing.T) {
	m := &AppMapper{Thread: "th", Turn: "tu"}
	// The notification the real codex sent for x-codex-primary-used-percent
	// 42.5, -window-minutes 300 and the secondary 7 % of 10080 minutes.
	recorded := rl("codex", `{"usedPercent":43,"windowDurationMins":300,"resetsAt":1796224872}`,
		`{"usedPercent":7,"windowDurationMins":10080,"resetsAt":1796484072}`)
	evs, done := m.Notify("account/rateLimits/updated", recorded)
	want := "five_hour/allowed/0.43/1796224872000/account/rateLimits/updated seven_day/allowed/0.07/1796484072000/account/rateLimits/updated"
	if done != nil || qs(quotas(evs)) != want || len(evs) != 2 {
		t.Fatalf("got %s, want %s", qs(quotas(evs)), want)
	}
	// The same windows again (the next model answer) are not repeated.
	if evs, _ := m.Notify("account/rateLimits/updated", recorded); len(evs) != 0 {
		t.Fatalf("unchanged windows reported again: %s", qs(quotas(evs)))
	}
	// One window moved: only it is reported; at 100 % it is rejected.
	evs, _ = m.Notify("account/rateLimits/updated", rl("codex", `{"usedPercent":100,"windowDurationMins":300,"resetsAt":1796224872}`,
		`{"usedPercent":7,"windowDurationMins":10080,"resetsAt":1796484072}`))
	if got := qs(quotas(evs)); got != "five_hour/rejected/1/1796224872000/account/rateLimits/updated" {
		t.Fatalf("got %s", got)
	}
	// An API-key run's empty snapshot reports nothing.
	if evs, _ := m.Notify("account/rateLimits/updated", rl("codex", "null", "null")); len(evs) != 0 {
		t.Fatalf("null windows reported: %s", qs(quotas(evs)))
	}
}

func TestRateLimitsTolerant(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params string
		want   string
	}{
		{
			"over 100 is clamped and rejected", string(rl("codex", `{"usedPercent":130,"windowDurationMins":300,"resetsAt":null}`, "null")),
			"five_hour/rejected/1/0/account/rateLimits/updated",
		},
		{
			"no length, no reset", string(rl("codex", `{"usedPercent":12,"windowDurationMins":null,"resetsAt":null}`, "null")),
			"primary/allowed/0.12/0/account/rateLimits/updated",
		},
		{
			"odd reset dropped, window kept", string(rl("codex", `{"usedPercent":5,"windowDurationMins":300,"resetsAt":-4}`,
				`{"usedPercent":5,"windowDurationMins":10080,"resetsAt":1e20}`)),
			"five_hour/allowed/0.05/0/account/rateLimits/updated seven_day/allowed/0.05/0/account/rateLimits/updated",
		},
		{
			"odd windows skipped, the good one kept", string(rl("codex", `{"usedPercent":"lots","windowDurationMins":300}`,
				`{"usedPercent":50,"windowDurationMins":10080,"resetsAt":1796484072}`)),
			"seven_day/allowed/0.5/1796484072000/account/rateLimits/updated",
		},
		{"negative percent", string(rl("codex", `{"usedPercent":-1,"windowDurationMins":300}`, `{"usedPercent":1e9}`)), ""},
		{"no percent", string(rl("codex", `{"windowDurationMins":300}`, `[]`)), ""},
		{
			"another limit family", string(rl("codex_other", `{"usedPercent":91,"windowDurationMins":60,"resetsAt":null}`, "null")),
			"codex_other_1_hour/allowed/0.91/0/account/rateLimits/updated",
		},
		{"no rateLimits", `{}`, ""},
		{"rateLimits null", `{"rateLimits":null}`, ""},
		{"not an object", `[1,2]`, ""},
		{"wrong types", `{"rateLimits":{"limitId":7,"primary":"x","secondary":{"usedPercent":{}}}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &AppMapper{}
			evs, done := m.Notify("account/rateLimits/updated", json.RawMessage(tc.params))
			if done != nil || qs(quotas(evs)) != tc.want || len(evs) != len(quotas(evs)) {
				t.Fatalf("got %s (%d events), want %q", qs(quotas(evs)), len(evs), tc.want)
			}
		})
	}
}

// usageLimitError is the error notification the real codex sent for a
// 429 usage_limit_reached.
const usageLimitError = `{"error":{"message":"You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 3:21 PM.",` +
	`"codexErrorInfo":"usageLimitExceeded","additionalDetails":null,"misalignment":null},"willRetry":false,"threadId":"th","turnId":"tu"}`

const failedTurn = `{"threadId":"th","turn":{"id":"tu","items":[],"status":"failed","error":{"message":"You’ve hit your usage limit.","codexErrorInfo":%s,"additionalDetails":null}}}`

func TestUsageLimitError(t *testing.T) {
	t.Run("the fullest window of the last update", func(t *testing.T) {
		m := &AppMapper{Thread: "th", Turn: "tu"}
		m.Notify("account/rateLimits/updated", rl("codex", `{"usedPercent":90,"windowDurationMins":300,"resetsAt":1796224872}`,
			`{"usedPercent":40,"windowDurationMins":10080,"resetsAt":1796484072}`))
		evs, _ := m.Notify("error", json.RawMessage(usageLimitError))
		if got := qs(quotas(evs)); got != "five_hour/rejected/0.9/1796224872000/error usageLimitExceeded" {
			t.Fatalf("got %s", got)
		}
		evs, done := m.Notify("turn/completed", json.RawMessage(fmt.Sprintf(failedTurn, `"usageLimitExceeded"`)))
		if len(quotas(evs)) != 0 || done == nil || done.Reason != executor.DoneError || !strings.Contains(done.Summary, "usage limit") {
			t.Fatalf("after the error: %s, done %+v", qs(quotas(evs)), done)
		}
	})
	t.Run("already reported rejected", func(t *testing.T) {
		m := &AppMapper{Thread: "th", Turn: "tu"}
		evs, _ := m.Notify("account/rateLimits/updated", rl("codex", `{"usedPercent":100,"windowDurationMins":300,"resetsAt":1796224872}`, "null"))
		if got := qs(quotas(evs)); got != "five_hour/rejected/1/1796224872000/account/rateLimits/updated" {
			t.Fatalf("got %s", got)
		}
		if evs, _ := m.Notify("error", json.RawMessage(usageLimitError)); len(evs) != 0 {
			t.Fatalf("the rejected window was reported twice: %s", qs(quotas(evs)))
		}
	})
	t.Run("no window known", func(t *testing.T) {
		m := &AppMapper{Thread: "th", Turn: "tu"}
		m.Notify("account/rateLimits/updated", rl("codex", "null", "null"))
		evs, _ := m.Notify("error", json.RawMessage(usageLimitError))
		if got := qs(quotas(evs)); got != "primary/rejected/nil/0/error usageLimitExceeded" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("only the failed turn says so", func(t *testing.T) {
		m := &AppMapper{Thread: "th", Turn: "tu"}
		evs, done := m.Notify("turn/completed", json.RawMessage(fmt.Sprintf(failedTurn, `"usageLimitExceeded"`)))
		var order []executor.Kind
		for _, e := range evs {
			order = append(order, e.Kind)
		}
		if got := qs(quotas(evs)); got != "primary/rejected/nil/0/error usageLimitExceeded" || done == nil ||
			fmt.Sprint(order) != "[quota error]" {
			t.Fatalf("got %s, order %v, done %+v", got, order, done)
		}
	})
	for _, info := range []string{`"rateLimitExceeded"`, `{"httpConnectionFailed":{"httpStatusCode":429}}`, `null`, `"other"`} {
		t.Run("not a usage limit: "+info, func(t *testing.T) {
			m := &AppMapper{Thread: "th", Turn: "tu"}
			errNote := strings.Replace(usageLimitError, `"usageLimitExceeded"`, info, 1)
			evs, _ := m.Notify("error", json.RawMessage(errNote))
			more, done := m.Notify("turn/completed", json.RawMessage(fmt.Sprintf(failedTurn, info)))
			if q := quotas(append(evs, more...)); len(q) != 0 || done == nil {
				t.Fatalf("quota from %s: %s", info, qs(q))
			}
		})
	}
}
