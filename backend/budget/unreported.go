package budget

import (
	"sync"
	"time"
)

// UnreportedEvery bounds the spend_unreported warning: it is logged once
// per runtime and model in this window, naming the run that opened it, and
// the next warning counts the runs in between (runs_not_logged). A runtime
// that stopped reporting cost then says so once a minute, not once a run.
const UnreportedEvery = time.Minute

// maxUnreportedKeys bounds the runtimes and models remembered; past it the
// window starts afresh.
const maxUnreportedKeys = 256

// unreportedLog is the spend_unreported warning's window.
type unreportedLog struct {
	mu    sync.Mutex
	since map[string]time.Time // runtime and model → when last logged
	quiet map[string]int       // runs not logged since then
}

// due reports whether the warning for runtime and model is to be logged at
// now, with how many runs were not logged before it.
func (u *unreportedLog) due(runtime, model string, now time.Time) (bool, int) {
	key := runtime + "\x00" + model
	u.mu.Lock()
	defer u.mu.Unlock()
	if last, ok := u.since[key]; ok && now.Sub(last) < UnreportedEvery && now.Sub(last) >= 0 {
		u.quiet[key]++
		return false, 0
	}
	if u.since == nil || len(u.since) >= maxUnreportedKeys {
		u.since, u.quiet = map[string]time.Time{}, map[string]int{}
	}
	n := u.quiet[key]
	u.since[key], u.quiet[key] = now, 0
	return true, n
}
