package mock

import (
	"strconv"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

// quotaEvent builds the quota event of `!quota <window> <percent> [status]
// [resets-in-seconds]`, e.g. `!quota five_hour 97 allowed_warning 3600`:
// a usage window as Claude Code or Codex would report it, so the governor
// can be driven offline. Status defaults to rejected at 100 % and allowed
// below; a malformed line reports nothing (ok false) rather than a lie.
func quotaEvent(arg string, now time.Time) (executor.Event, bool) {
	f := strings.Fields(arg)
	if len(f) < 2 || !quotaWord(f[0]) {
		return executor.Event{}, false
	}
	pct, err := strconv.ParseFloat(strings.TrimSuffix(f[1], "%"), 64)
	if err != nil || pct < 0 || pct > 1000 {
		return executor.Event{}, false
	}
	u := pct / 100
	w := executor.QuotaWindow{Window: f[0], Utilization: &u, Status: executor.QuotaAllowed, Source: "mock !quota"}
	if pct >= 100 {
		w.Status = executor.QuotaRejected
	}
	if len(f) > 2 {
		switch f[2] {
		case executor.QuotaAllowed, executor.QuotaAllowedWarning, executor.QuotaRejected:
			w.Status = f[2]
		default:
			return executor.Event{}, false
		}
	}
	if len(f) > 3 {
		secs, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil || secs < 0 || secs > 60*24*3600 {
			return executor.Event{}, false
		}
		w.ResetsAt = now.Add(time.Duration(secs) * time.Second).UnixMilli()
	}
	return executor.Quota(w), true
}

func quotaWord(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '_' && (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
