package fakeresponses

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Codex's usage windows travel as response headers of the ChatGPT
// backend (docs/quota.md, "Codex"): for the default limit family
// "codex",
//
//	x-codex-primary-used-percent     float, 0..100
//	x-codex-primary-window-minutes   integer window length (300 = 5 h)
//	x-codex-primary-reset-at         Unix seconds
//	x-codex-secondary-…              the same for the second window
//	x-codex-credits-has-credits      true/false (with -unlimited)
//	x-codex-credits-unlimited        true/false
//	x-codex-credits-balance          decimal string
//	x-codex-limit-name               a display name for the family
//
// codex 0.171.0 reads them on every answer, a 200 stream or an error,
// and reports them as app-server's account/rateLimits/updated.

// Window is one usage window as the headers carry it.
type Window struct {
	UsedPercent float64 // 0..100
	Minutes     int     // the window's length; 0 = header not sent
	ResetAt     int64   // Unix seconds; 0 = header not sent
}

// RateLimitHeaders returns the x-codex-* headers for the windows given
// (nil = that window's headers not sent).
func RateLimitHeaders(primary, secondary *Window) map[string]string {
	h := map[string]string{}
	for name, w := range map[string]*Window{"primary": primary, "secondary": secondary} {
		if w == nil {
			continue
		}
		p := "x-codex-" + name + "-"
		h[p+"used-percent"] = strconv.FormatFloat(w.UsedPercent, 'f', -1, 64)
		if w.Minutes != 0 {
			h[p+"window-minutes"] = strconv.Itoa(w.Minutes)
		}
		if w.ResetAt != 0 {
			h[p+"reset-at"] = strconv.FormatInt(w.ResetAt, 10)
		}
	}
	return h
}

// Credits adds the x-codex-credits-* headers to h and returns it.
func Credits(h map[string]string, has, unlimited bool, balance string) map[string]string {
	if h == nil {
		h = map[string]string{}
	}
	h["x-codex-credits-has-credits"] = strconv.FormatBool(has)
	h["x-codex-credits-unlimited"] = strconv.FormatBool(unlimited)
	if balance != "" {
		h["x-codex-credits-balance"] = balance
	}
	return h
}

// UsageLimit is the answer the real service gives when a plan's window
// is used up: HTTP 429 with
//
//	{"error":{"type":"usage_limit_reached","message":…,"plan_type":plan,
//	          "resets_at":<Unix s>,"resets_in_seconds":<s>}}
//
// and the windows' headers (the exhausted one at 100 %).
func UsageLimit(plan string, resetsAt time.Time, primary, secondary *Window) Step {
	body := map[string]any{"error": map[string]any{
		"type":              "usage_limit_reached",
		"message":           "The usage limit has been reached",
		"plan_type":         plan,
		"resets_at":         resetsAt.Unix(),
		"resets_in_seconds": max(0, int64(time.Until(resetsAt).Seconds())),
	}}
	b, _ := json.Marshal(body)
	return Step{Status: http.StatusTooManyRequests, ErrorBody: string(b), Headers: RateLimitHeaders(primary, secondary)}
}
