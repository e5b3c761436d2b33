package fakeanthropic

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Unified is the subscription ("unified") rate-limit state the API reports
// to a claude.ai login on every Messages answer, as the
// anthropic-ratelimit-unified-* headers the pinned claude (2.1.197) reads:
//
//	-status                  Status: allowed, allowed_warning or rejected
//	-reset                   Reset, Unix seconds
//	-representative-claim    Claim: the window that binds (five_hour, ...)
//	-fallback                "available" when Fallback
//	-overage-status/-reset/-disabled-reason   the Overage* fields
//	-<w>-utilization/-reset/-surpassed-threshold  one per Windows entry
//
// Status rejected answers 429 as the API does on a spent window: these
// headers, retry-after and a rate_limit_error body.
type Unified struct {
	Status                string          `json:"status"`
	Reset                 int64           `json:"reset,omitempty"`
	Claim                 string          `json:"claim,omitempty"`
	Fallback              bool            `json:"fallback,omitempty"`
	OverageStatus         string          `json:"overage_status,omitempty"`
	OverageReset          int64           `json:"overage_reset,omitempty"`
	OverageDisabledReason string          `json:"overage_disabled_reason,omitempty"`
	Windows               []UnifiedWindow `json:"windows,omitempty"`
}

// UnifiedWindow is one window's headers. Abbrev is the header infix the
// CLI reads: "5h" (five_hour), "7d" (seven_day), "7d_oi"
// (seven_day_overage_included) or "overage". Utilization is a fraction
// (0.91 = 91 %); Reset is Unix seconds; SurpassedThreshold, when above
// zero, is sent as -<w>-surpassed-threshold (the API's own warning, which
// the CLI turns into allowed_warning for that window).
type UnifiedWindow struct {
	Abbrev             string  `json:"abbrev"`
	Status             string  `json:"status,omitempty"`
	Utilization        float64 `json:"utilization"`
	Reset              int64   `json:"reset"`
	SurpassedThreshold float64 `json:"surpassed_threshold,omitempty"`
}

// RejectedMessage is the message of the API's 429 on a spent window.
const RejectedMessage = "This request would exceed your account's rate limit. Please try again later."

const unifiedPrefix = "anthropic-ratelimit-unified-"

// SetUnified makes every answer carry u's headers (nil: none, the
// default); a rule's own Unified wins over it.
func (s *Server) SetUnified(u *Unified) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unified = u
}

func (s *Server) unifiedFor(ru Rule) *Unified {
	if ru.Unified != nil {
		return ru.Unified
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unified
}

// header sets u's headers on h.
func (u *Unified) header(h http.Header) {
	set := func(name, v string) {
		if v != "" {
			h.Set(unifiedPrefix+name, v)
		}
	}
	num := func(v int64) string {
		if v == 0 {
			return ""
		}
		return strconv.FormatInt(v, 10)
	}
	frac := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	set("status", u.Status)
	set("reset", num(u.Reset))
	set("representative-claim", u.Claim)
	if u.Fallback {
		set("fallback", "available")
	}
	set("overage-status", u.OverageStatus)
	set("overage-reset", num(u.OverageReset))
	set("overage-disabled-reason", u.OverageDisabledReason)
	for _, w := range u.Windows {
		set(w.Abbrev+"-status", w.Status)
		set(w.Abbrev+"-utilization", frac(w.Utilization))
		set(w.Abbrev+"-reset", num(w.Reset))
		if w.SurpassedThreshold > 0 {
			set(w.Abbrev+"-surpassed-threshold", frac(w.SurpassedThreshold))
		}
	}
}

// rejected answers 429 as the API does when a window is spent.
func (u *Unified) rejected(w http.ResponseWriter) {
	if u.Reset > 0 {
		if secs := u.Reset - time.Now().Unix(); secs > 0 {
			w.Header().Set("retry-after", strconv.FormatInt(secs, 10))
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": "rate_limit_error", "message": RejectedMessage},
		"request_id": "req_fake_" + strconv.FormatInt(time.Now().UnixNano(), 36),
	})
}
