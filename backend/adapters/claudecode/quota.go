package claudecode

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"

	"github.com/clawboo/desktop/backend/executor"
)

// QuotaSource is the Source of the quota events read from the CLI.
const QuotaSource = "rate_limit_event"

// rateLimitInfo is the part of a rate_limit_event's rate_limit_info that
// the ledger keeps. The pinned CLI (2.1.197) builds it from the API's
// anthropic-ratelimit-unified-* headers, only for a claude.ai login:
// status, resetsAt in Unix seconds, rateLimitType (the window), and
// utilization as a fraction, present only with allowed_warning. The
// overage* fields describe the extra-usage pool; they are not a window of
// their own here (a plan without extra usage reports it "rejected" on
// every answer, which must not read as a spent window).
type rateLimitInfo struct {
	Status        string   `json:"status"`
	ResetsAt      *float64 `json:"resetsAt"`
	RateLimitType string   `json:"rateLimitType"`
	Utilization   *float64 `json:"utilization"`
}

var windowName = regexp.MustCompile(`^[a-z0-9_]{1,40}$`)

// rateLimit maps a rate_limit_event to one quota event. An event whose
// info is missing or odd (no window, a status the contract does not know,
// a window name that is not a plain word) is skipped: it is a report, and
// never worth failing a run over.
func rateLimit(raw json.RawMessage) []executor.Event {
	var info rateLimitInfo
	if len(raw) == 0 || json.Unmarshal(raw, &info) != nil {
		return nil
	}
	status := strings.ToLower(strings.TrimSpace(info.Status))
	switch status {
	case executor.QuotaAllowed, executor.QuotaAllowedWarning, executor.QuotaRejected:
	default:
		return nil
	}
	window := strings.ToLower(strings.TrimSpace(info.RateLimitType))
	if !windowName.MatchString(window) {
		return nil
	}
	q := executor.QuotaWindow{Window: window, Status: status, Source: QuotaSource}
	if u := info.Utilization; u != nil && *u >= 0 && *u <= 1 {
		v := *u
		q.Utilization = &v
	}
	if info.ResetsAt != nil {
		q.ResetsAt = resetMillis(*info.ResetsAt)
	}
	return []executor.Event{executor.Quota(q)}
}

// resetMillis turns the CLI's resetsAt (Unix seconds) into Unix
// milliseconds; a value already in milliseconds is kept, and one that is
// neither (not positive, not a number, or past the year 5138) reads as
// unknown.
func resetMillis(v float64) int64 {
	const (
		secondsMax = 1e11 // year 5138
		millisMax  = 1e14
	)
	switch {
	case math.IsNaN(v) || v <= 0 || v >= millisMax:
		return 0
	case v < secondsMax:
		return int64(math.Round(v * 1000))
	default:
		return int64(math.Round(v))
	}
}
