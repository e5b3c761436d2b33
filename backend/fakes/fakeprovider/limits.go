package fakeprovider

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Limit is one rate-limit window as a provider's response headers state
// it. Window is requests, tokens, input_tokens or output_tokens (the
// latter two exist in the Messages API only); Reset is how long from now
// until the window is full again.
type Limit struct {
	Window           string
	Limit, Remaining int
	Reset            time.Duration
}

// AnthropicLimits are the Messages API's rate-limit headers for ls:
// anthropic-ratelimit-<window>-limit, -remaining and -reset, the window
// dash-separated (input-tokens) and the reset an RFC 3339 time (now plus
// Reset, in UTC, whole seconds), as api.anthropic.com sends them.
func AnthropicLimits(now time.Time, ls ...Limit) http.Header {
	h := http.Header{}
	for _, l := range ls {
		p := "anthropic-ratelimit-" + strings.ReplaceAll(l.Window, "_", "-") + "-"
		h.Set(p+"limit", strconv.Itoa(l.Limit))
		h.Set(p+"remaining", strconv.Itoa(l.Remaining))
		h.Set(p+"reset", now.Add(l.Reset).UTC().Truncate(time.Second).Format(time.RFC3339))
	}
	return h
}

// OpenAILimits are Chat Completions' rate-limit headers for ls:
// x-ratelimit-limit-<window>, x-ratelimit-remaining-<window> and
// x-ratelimit-reset-<window>, the reset a duration from now ("1s",
// "6m0s", "20ms"), as api.openai.com and the compatible providers send
// them.
func OpenAILimits(ls ...Limit) http.Header {
	h := http.Header{}
	for _, l := range ls {
		h.Set("x-ratelimit-limit-"+l.Window, strconv.Itoa(l.Limit))
		h.Set("x-ratelimit-remaining-"+l.Window, strconv.Itoa(l.Remaining))
		h.Set("x-ratelimit-reset-"+l.Window, l.Reset.String())
	}
	return h
}

// RateLimited is the 429 of a spent window: the dialect's rate-limit
// error body, the headers h (AnthropicLimits or OpenAILimits, may be nil)
// and retry-after in whole seconds when retryAfter is positive.
func RateLimited(retryAfter time.Duration, h http.Header) Response {
	out := http.Header{}
	for k, vs := range h {
		out[k] = append([]string(nil), vs...)
	}
	if retryAfter > 0 {
		out.Set("retry-after", strconv.FormatInt(int64((retryAfter+time.Second-1)/time.Second), 10))
	}
	return Response{Status: http.StatusTooManyRequests, Headers: out}
}
