package codex

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/clawboo/desktop/backend/executor"
)

// Codex's usage windows (docs/quota.md, "Codex"). The ChatGPT backend
// sends them as x-codex-* response headers; codex 0.171.0 turns every
// answer's headers (a 200 stream or a 429) into app-server's
//
//	account/rateLimits/updated {"rateLimits":{"limitId":"codex",
//	  "primary":{"usedPercent":43,"windowDurationMins":300,"resetsAt":1796224872},
//	  "secondary":{…}|null, "credits":{…}|null, "planType":null, …}}
//
// usedPercent is 0..100 (codex rounds it to a whole number: 42.5 -> 43),
// windowDurationMins may be null, resetsAt is Unix seconds or null, and a
// window whose headers were absent or all zero is null. A usage limit is
// then the error notification (and the failed turn) with codexErrorInfo
// "usageLimitExceeded". account/rateLimits/read needs a ChatGPT login
// ("codex account authentication required to read rate limits" with an
// API key), so the adapter never calls it.

const (
	quotaSource      = "account/rateLimits/updated"
	quotaErrorSource = "error usageLimitExceeded"
	// maxQuotaKeys bounds the windows remembered for deduplication.
	maxQuotaKeys = 32
	// maxResetSec is the latest plausible reset (year 3000), in seconds.
	maxResetSec = 32503680000
)

type rateWindow struct {
	UsedPercent        *float64 `json:"usedPercent"`
	WindowDurationMins *float64 `json:"windowDurationMins"`
	ResetsAt           *float64 `json:"resetsAt"`
}

// quotaState is what the mapper keeps of the windows: the last reported
// value of each (so an unchanged window is not reported again) and the
// latest notification's windows (the candidates for a usage-limit error).
type quotaState struct {
	sent     map[string]executor.QuotaWindow
	latest   []executor.QuotaWindow
	limitHit bool
}

// windowName names a window by its length: 300 minutes is "five_hour",
// 10080 "seven_day", other whole days "<n>_day", whole hours "<n>_hour",
// anything else "<n>_minute"; with no usable length it is Codex's slot
// ("primary", "secondary"). A limit family other than "codex" prefixes
// its id ("codex_other_five_hour") so its windows stay apart.
func windowName(limitID, slot string, mins *float64) string {
	name := slot
	if mins != nil && *mins > 0 && *mins <= 525600*10 && *mins == math.Trunc(*mins) {
		n := int64(*mins)
		switch {
		case n == 300:
			name = "five_hour"
		case n == 10080:
			name = "seven_day"
		case n%1440 == 0:
			name = strconv.FormatInt(n/1440, 10) + "_day"
		case n%60 == 0:
			name = strconv.FormatInt(n/60, 10) + "_hour"
		default:
			name = strconv.FormatInt(n, 10) + "_minute"
		}
	}
	if id := snake(limitID); id != "" && id != "codex" {
		name = id + "_" + name
	}
	return name
}

// snake is s lower-cased with anything but [a-z0-9_] as "_", at most 40
// bytes.
func snake(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		if b.Len() >= 40 {
			break
		}
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// quotaWindow maps one window; ok is false for a null or odd one.
func quotaWindow(limitID, slot string, raw json.RawMessage) (executor.QuotaWindow, bool) {
	var w rateWindow
	if len(raw) == 0 || string(raw) == "null" || json.Unmarshal(raw, &w) != nil || w.UsedPercent == nil {
		return executor.QuotaWindow{}, false
	}
	used := *w.UsedPercent
	if math.IsNaN(used) || used < 0 || used > 1000 {
		return executor.QuotaWindow{}, false
	}
	q := executor.QuotaWindow{Window: windowName(limitID, slot, w.WindowDurationMins), Status: executor.QuotaAllowed, Source: quotaSource}
	u := math.Min(used/100, 1)
	q.Utilization = &u
	if used >= 100 {
		q.Status = executor.QuotaRejected
	}
	if r := w.ResetsAt; r != nil && *r > 0 && *r < maxResetSec {
		q.ResetsAt = int64(*r) * 1000
	}
	return q, true
}

// rateLimits maps an account/rateLimits/updated notification's params:
// a quota event per window that is new or changed.
func (m *AppMapper) rateLimits(raw json.RawMessage) []executor.Event {
	var p struct {
		RateLimits *struct {
			LimitID   json.RawMessage `json:"limitId"`
			Primary   json.RawMessage `json:"primary"`
			Secondary json.RawMessage `json:"secondary"`
		} `json:"rateLimits"`
	}
	if json.Unmarshal(raw, &p) != nil || p.RateLimits == nil {
		return nil
	}
	var id string
	_ = json.Unmarshal(p.RateLimits.LimitID, &id)
	var ws []executor.QuotaWindow
	for _, s := range []struct {
		slot string
		raw  json.RawMessage
	}{{"primary", p.RateLimits.Primary}, {"secondary", p.RateLimits.Secondary}} {
		if q, ok := quotaWindow(id, s.slot, s.raw); ok {
			ws = append(ws, q)
		}
	}
	if len(ws) == 0 {
		return nil // nothing reported (an API-key run's empty snapshot)
	}
	m.q.latest = ws
	var evs []executor.Event
	for _, q := range ws {
		if m.remember(q) {
			evs = append(evs, executor.Quota(q))
		}
	}
	return evs
}

// remember records q as reported; false when the same window was last
// reported with the same status, utilization and reset.
func (m *AppMapper) remember(q executor.QuotaWindow) bool {
	if m.q.sent == nil {
		m.q.sent = map[string]executor.QuotaWindow{}
	}
	if old, ok := m.q.sent[q.Window]; ok && old.Status == q.Status && old.ResetsAt == q.ResetsAt &&
		(old.Utilization == nil) == (q.Utilization == nil) && (q.Utilization == nil || *old.Utilization == *q.Utilization) {
		return false
	}
	if _, ok := m.q.sent[q.Window]; ok || len(m.q.sent) < maxQuotaKeys {
		m.q.sent[q.Window] = q
	}
	return true
}

// isUsageLimit says whether a codexErrorInfo value (a string or an
// object) is "usageLimitExceeded".
func isUsageLimit(info json.RawMessage) bool {
	var s string
	return json.Unmarshal(info, &s) == nil && s == "usageLimitExceeded"
}

// usageLimit is the rejected window for a usage-limit error, once per
// run: the latest notification's fullest window, or "primary" when no
// window was reported. Nothing when that window was already reported
// rejected with the same values.
func (m *AppMapper) usageLimit() []executor.Event {
	if m.q.limitHit {
		return nil
	}
	m.q.limitHit = true
	q := executor.QuotaWindow{Window: "primary"}
	for _, w := range m.q.latest {
		if q.Utilization == nil || (w.Utilization != nil && *w.Utilization > *q.Utilization) {
			q = w
		}
	}
	q.Status, q.Source = executor.QuotaRejected, quotaErrorSource
	if !m.remember(q) {
		return nil
	}
	return []executor.Event{executor.Quota(q)}
}
