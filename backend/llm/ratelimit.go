package llm

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RateLimit is one rate-limit window a provider stated in the response
// headers of one call (a stream's or an error's). Only response headers
// are read, never the request's, so no key can travel in one.
type RateLimit struct {
	// Provider is the id of the provider that answered (anthropic,
	// openai, openrouter, …).
	Provider string
	// Window is requests, tokens, input_tokens or output_tokens.
	Window string
	// Status is RateAllowed, RateWarning or RateRejected.
	Status string
	// Utilization is 1 − remaining/limit, within 0..1; nil for the window
	// that stands for a 429 whose headers named none.
	Utilization *float64
	// ResetsAt is Unix milliseconds; 0 when the provider did not say.
	ResetsAt int64
	// Source names the header family: SourceAnthropic or SourceOpenAI.
	Source string
}

// Window statuses, as executor's quota windows spell them.
const (
	RateAllowed  = "allowed"
	RateWarning  = "allowed_warning" // Utilization at or above RateWarnAt
	RateRejected = "rejected"        // nothing remaining, or the answer was a 429
)

// RateWarnAt is the utilization from which a window is RateWarning.
const RateWarnAt = 0.9

// Header families, as RateLimit.Source names them.
const (
	SourceAnthropic = "anthropic-ratelimit headers"
	SourceOpenAI    = "x-ratelimit headers"
)

// maxHeaderValue caps a header value read; a longer one counts as absent.
const maxHeaderValue = 64

// RateLimitFunc receives the windows of one provider answer, in a fixed
// order (requests, tokens, input_tokens, output_tokens), at most four.
type RateLimitFunc func([]RateLimit)

type rateLimitKey struct{}

// WithRateLimits returns a context under which every provider call made
// with it reports the rate-limit windows of its answer to f: a stream's
// headers before its first event, an error status's (a 429 included)
// before Stream returns the error, and, through a Router, each
// candidate's answer in turn. f is called on the goroutine making the
// call, once per answer that stated any window (a 429 always does: when
// its headers name none, a rejected "requests" window stands for it).
func WithRateLimits(ctx context.Context, f RateLimitFunc) context.Context {
	return context.WithValue(ctx, rateLimitKey{}, f)
}

// rateLimitMiddleware reads the headers of each answer of provider id for
// the observer in the request's context, leaving the response untouched
// (the body streams on as it would).
func rateLimitMiddleware(id string, fam Family) func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		res, err := next(req)
		if res == nil {
			return res, err
		}
		if f, _ := req.Context().Value(rateLimitKey{}).(RateLimitFunc); f != nil {
			if ws := parseRateLimits(id, fam, res.StatusCode, res.Header, time.Now()); len(ws) > 0 {
				f(ws)
			}
		}
		return res, err
	}
}

// windowsOf are the windows each family's headers can state.
var windowsOf = map[Family][]string{
	FamilyAnthropic: {"requests", "tokens", "input_tokens", "output_tokens"},
	FamilyOpenAI:    {"requests", "tokens"},
}

// parseRateLimits turns one answer's headers into windows.
//
// Anthropic: anthropic-ratelimit-<window>-limit|remaining|reset (the
// window dash-separated, reset RFC 3339). OpenAI-compatible:
// x-ratelimit-limit|remaining|reset-<window> (reset a duration from now:
// "1s", "6m0s", "20ms"). A window is kept only when its limit is a number
// above 0 and its remaining a number from 0; a bad reset leaves ResetsAt
// 0. Status is rejected when nothing remains, allowed_warning from
// RateWarnAt, else allowed. On a 429 the spent windows (all of them when
// none says it is spent; a "requests" window when there are none) are
// rejected, and retry-after (retry-after-ms, seconds or an HTTP date)
// sets their ResetsAt.
func parseRateLimits(provider string, fam Family, status int, h http.Header, now time.Time) []RateLimit {
	var out []RateLimit
	spent := 0
	for _, w := range windowsOf[fam] {
		var limit, remaining, reset string
		rl := RateLimit{Provider: provider, Window: w, Status: RateAllowed}
		if fam == FamilyAnthropic {
			p := "anthropic-ratelimit-" + strings.ReplaceAll(w, "_", "-") + "-"
			limit, remaining, reset = header(h, p+"limit"), header(h, p+"remaining"), header(h, p+"reset")
			rl.Source = SourceAnthropic
			if t, err := time.Parse(time.RFC3339, reset); err == nil && t.Unix() > 0 {
				rl.ResetsAt = t.UnixMilli()
			}
		} else {
			limit, remaining, reset = header(h, "x-ratelimit-limit-"+w), header(h, "x-ratelimit-remaining-"+w), header(h, "x-ratelimit-reset-"+w)
			rl.Source = SourceOpenAI
			if d, err := time.ParseDuration(reset); err == nil && d >= 0 {
				rl.ResetsAt = now.Add(d).UnixMilli()
			}
		}
		l, okL := number(limit)
		r, okR := number(remaining)
		if !okL || !okR || l <= 0 {
			continue
		}
		u := math.Min(1, math.Max(0, 1-r/l))
		rl.Utilization = &u
		switch {
		case r == 0:
			rl.Status = RateRejected
			spent++
		case u >= RateWarnAt:
			rl.Status = RateWarning
		}
		out = append(out, rl)
	}
	if status != http.StatusTooManyRequests {
		return out
	}
	if len(out) == 0 {
		src := SourceOpenAI
		if fam == FamilyAnthropic {
			src = SourceAnthropic
		}
		out = append(out, RateLimit{Provider: provider, Window: "requests", Source: src})
	}
	retryAt := retryAfter(h, now)
	for i := range out {
		if spent > 0 && out[i].Status != RateRejected {
			continue
		}
		out[i].Status = RateRejected
		if retryAt > 0 {
			out[i].ResetsAt = retryAt
		}
	}
	return out
}

// header is one header value, trimmed; "" when absent or longer than
// maxHeaderValue.
func header(h http.Header, name string) string {
	v := strings.TrimSpace(h.Get(name))
	if len(v) > maxHeaderValue {
		return ""
	}
	return v
}

// number parses a finite, non-negative count.
func number(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, false
	}
	return f, true
}

// retryAfter is when a 429 says to come back, Unix ms, 0 when it does not
// say: retry-after-ms (OpenAI), else retry-after in seconds or as an HTTP
// date. Values beyond a day are not believed.
func retryAfter(h http.Header, now time.Time) int64 {
	const maxWait = 24 * time.Hour
	if ms, ok := number(header(h, "retry-after-ms")); ok && ms > 0 && ms <= float64(maxWait/time.Millisecond) {
		return now.Add(time.Duration(ms * float64(time.Millisecond))).UnixMilli()
	}
	v := header(h, "retry-after")
	if s, ok := number(v); ok {
		if s <= 0 || s > maxWait.Seconds() {
			return 0
		}
		return now.Add(time.Duration(s * float64(time.Second))).UnixMilli()
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) && t.Sub(now) <= maxWait {
		return t.UnixMilli()
	}
	return 0
}
