package native

import (
	"sync"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/llm"
)

// maxTurnLimits bounds the rate-limit windows one turn keeps: four per
// provider answer, a few candidates of a fallback router.
const maxTurnLimits = 16

// rateLimits collects what llm reports of a turn's provider answers.
type rateLimits struct {
	mu sync.Mutex
	ws []llm.RateLimit
}

// add is the turn's llm.RateLimitFunc.
func (l *rateLimits) add(ws []llm.RateLimit) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range ws {
		if len(l.ws) < maxTurnLimits {
			l.ws = append(l.ws, w)
		}
	}
}

func (l *rateLimits) all() []llm.RateLimit {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]llm.RateLimit(nil), l.ws...)
}

// emitQuota reports a turn's rate-limit windows as quota events, the
// account being the provider that stated them. false when the host
// stopped reading.
func (r *run) emitQuota(ws []llm.RateLimit) bool {
	for _, w := range ws {
		if !r.emit(executor.Quota(quotaWindow(w))) {
			return false
		}
	}
	return true
}

func quotaWindow(w llm.RateLimit) executor.QuotaWindow {
	q := executor.QuotaWindow{Window: w.Window, ResetsAt: w.ResetsAt, Account: w.Provider, Source: w.Source}
	switch w.Status {
	case llm.RateRejected:
		q.Status = executor.QuotaRejected
	case llm.RateWarning:
		q.Status = executor.QuotaAllowedWarning
	default:
		q.Status = executor.QuotaAllowed
	}
	if w.Utilization != nil {
		u := *w.Utilization
		q.Utilization = &u
	}
	return q
}
