package llm

import (
	"context"
	"errors"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
)

var rlNow = time.Date(2026, 12, 2, 13, 0, 0, 0, time.UTC)

func ms(d time.Duration) int64 { return rlNow.Add(d).UnixMilli() }

func util(f float64) *float64 { return &f }

func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// same compares windows, utilizations by value.
func same(t *testing.T, got, want []RateLimit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d windows %s, want %d %s", len(got), show(got), len(want), show(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if (g.Utilization == nil) != (w.Utilization == nil) || (g.Utilization != nil && math.Abs(*g.Utilization-*w.Utilization) > 1e-9) {
			t.Errorf("window %d utilization: got %s, want %s", i, show(got[i:i+1]), show(want[i:i+1]))
		}
		g.Utilization, w.Utilization = nil, nil
		if g != w {
			t.Errorf("window %d: got %+v, want %+v", i, g, w)
		}
	}
}

func show(ws []RateLimit) string {
	var b strings.Builder
	for _, w := range ws {
		u := "nil"
		if w.Utilization != nil {
			u = strconv.FormatFloat(*w.Utilization, 'g', -1, 64)
		}
		b.WriteString("{" + w.Provider + " " + w.Window + " " + w.Status + " u=" + u + " reset=" + time.UnixMilli(w.ResetsAt).UTC().Format(time.RFC3339Nano) + "}")
	}
	return b.String()
}

func TestAnthropicRateLimitHeaders(t *testing.T) {
	h := hdr(
		"anthropic-ratelimit-requests-limit", "50",
		"anthropic-ratelimit-requests-remaining", "49",
		"anthropic-ratelimit-requests-reset", "2026-12-02T13:00:01Z",
		"anthropic-ratelimit-tokens-limit", "100000",
		"anthropic-ratelimit-tokens-remaining", "5000",
		"anthropic-ratelimit-tokens-reset", "2026-12-02T13:00:30.5Z",
		"anthropic-ratelimit-input-tokens-limit", "80000",
		"anthropic-ratelimit-input-tokens-remaining", "0",
		"anthropic-ratelimit-input-tokens-reset", "2026-12-02T14:00:00+01:00",
		"anthropic-ratelimit-output-tokens-limit", "20000",
		"anthropic-ratelimit-output-tokens-remaining", "20000",
		"anthropic-ratelimit-output-tokens-reset", "2026-12-02T13:01:00Z",
		"x-ratelimit-limit-requests", "7", // the other family's names are not read
	)
	got := parseRateLimits("anthropic", FamilyAnthropic, 200, h, rlNow)
	s := SourceAnthropic
	same(t, got, []RateLimit{
		{Provider: "anthropic", Window: "requests", Status: RateAllowed, Utilization: util(0.02), ResetsAt: ms(time.Second), Source: s},
		{Provider: "anthropic", Window: "tokens", Status: RateWarning, Utilization: util(0.95), ResetsAt: ms(30500 * time.Millisecond), Source: s},
		{Provider: "anthropic", Window: "input_tokens", Status: RateRejected, Utilization: util(1), ResetsAt: ms(0), Source: s},
		{Provider: "anthropic", Window: "output_tokens", Status: RateAllowed, Utilization: util(0), ResetsAt: ms(time.Minute), Source: s},
	})
}

func TestOpenAIRateLimitHeaders(t *testing.T) {
	h := hdr(
		"x-ratelimit-limit-requests", "500",
		"x-ratelimit-remaining-requests", "50",
		"x-ratelimit-reset-requests", "6m0s",
		"x-ratelimit-limit-tokens", "30000",
		"x-ratelimit-remaining-tokens", "29999",
		"x-ratelimit-reset-tokens", "20ms",
		"anthropic-ratelimit-requests-limit", "9",
	)
	got := parseRateLimits("openrouter", FamilyOpenAI, 200, h, rlNow)
	s := SourceOpenAI
	same(t, got, []RateLimit{
		{Provider: "openrouter", Window: "requests", Status: RateWarning, Utilization: util(0.9), ResetsAt: ms(6 * time.Minute), Source: s},
		{Provider: "openrouter", Window: "tokens", Status: RateAllowed, Utilization: util(1.0 / 30000), ResetsAt: ms(20 * time.Millisecond), Source: s},
	})
	h.Set("x-ratelimit-reset-tokens", "1s")
	if got := parseRateLimits("openai", FamilyOpenAI, 200, h, rlNow); got[1].ResetsAt != ms(time.Second) {
		t.Errorf("1s reset: %s", show(got))
	}
	if got := parseRateLimits("openai", FamilyOpenAI, 200, http.Header{}, rlNow); len(got) != 0 {
		t.Errorf("no headers: %s", show(got))
	}
}

func TestBadRateLimitValues(t *testing.T) {
	long := strings.Repeat("9", maxHeaderValue+1)
	for name, tc := range map[string]struct {
		limit, remaining, reset string
		want                    []RateLimit // nil: the window is skipped
	}{
		"zero limit":         {"0", "0", "1s", nil},
		"negative limit":     {"-5", "1", "1s", nil},
		"text limit":         {"lots", "1", "1s", nil},
		"no remaining":       {"100", "", "1s", nil},
		"negative remaining": {"100", "-1", "1s", nil},
		"NaN remaining":      {"100", "NaN", "1s", nil},
		"infinite limit":     {"+Inf", "1", "1s", nil},
		"oversized value":    {long, "1", "1s", nil},
		"bad reset":          {"100", "40", "soon", []RateLimit{{Window: "tokens", Status: RateAllowed, Utilization: util(0.6)}}},
		"negative reset":     {"100", "40", "-3s", []RateLimit{{Window: "tokens", Status: RateAllowed, Utilization: util(0.6)}}},
		"more than limit":    {"100", "250", "1s", []RateLimit{{Window: "tokens", Status: RateAllowed, Utilization: util(0), ResetsAt: ms(time.Second)}}},
		"spaces":             {" 100 ", " 5 ", " 1s ", []RateLimit{{Window: "tokens", Status: RateWarning, Utilization: util(0.95), ResetsAt: ms(time.Second)}}},
	} {
		t.Run(name, func(t *testing.T) {
			h := hdr("x-ratelimit-limit-tokens", tc.limit, "x-ratelimit-remaining-tokens", tc.remaining, "x-ratelimit-reset-tokens", tc.reset)
			for i := range tc.want {
				tc.want[i].Provider, tc.want[i].Source = "openai", SourceOpenAI
			}
			same(t, parseRateLimits("openai", FamilyOpenAI, 200, h, rlNow), tc.want)
		})
	}
	h := hdr("anthropic-ratelimit-requests-limit", "10", "anthropic-ratelimit-requests-remaining", "5",
		"anthropic-ratelimit-requests-reset", "in a minute")
	if got := parseRateLimits("anthropic", FamilyAnthropic, 200, h, rlNow); len(got) != 1 || got[0].ResetsAt != 0 {
		t.Errorf("anthropic bad reset: %s", show(got))
	}
	h.Set("anthropic-ratelimit-requests-reset", "60s") // a duration is not Anthropic's format
	if got := parseRateLimits("anthropic", FamilyAnthropic, 200, h, rlNow); len(got) != 1 || got[0].ResetsAt != 0 {
		t.Errorf("anthropic duration reset: %s", show(got))
	}
}

func TestRateLimited429(t *testing.T) {
	spent := hdr(
		"anthropic-ratelimit-requests-limit", "50", "anthropic-ratelimit-requests-remaining", "10",
		"anthropic-ratelimit-requests-reset", "2026-12-02T13:00:05Z",
		"anthropic-ratelimit-tokens-limit", "1000", "anthropic-ratelimit-tokens-remaining", "0",
		"anthropic-ratelimit-tokens-reset", "2026-12-02T13:10:00Z",
		"retry-after", "30",
	)
	got := parseRateLimits("anthropic", FamilyAnthropic, 429, spent, rlNow)
	same(t, got, []RateLimit{
		{Provider: "anthropic", Window: "requests", Status: RateAllowed, Utilization: util(0.8), ResetsAt: ms(5 * time.Second), Source: SourceAnthropic},
		{Provider: "anthropic", Window: "tokens", Status: RateRejected, Utilization: util(1), ResetsAt: ms(30 * time.Second), Source: SourceAnthropic},
	})

	// No window says it is spent: the provider refused all the same.
	h := hdr("x-ratelimit-limit-requests", "500", "x-ratelimit-remaining-requests", "3",
		"x-ratelimit-reset-requests", "2m", "retry-after", "Wed, 02 Dec 2026 13:01:00 GMT")
	same(t, parseRateLimits("openai", FamilyOpenAI, 429, h, rlNow), []RateLimit{
		{Provider: "openai", Window: "requests", Status: RateRejected, Utilization: util(0.994), ResetsAt: ms(time.Minute), Source: SourceOpenAI},
	})

	// A 429 naming no window, with retry-after-ms (it wins over retry-after).
	h = hdr("retry-after-ms", "1500", "retry-after", "2")
	same(t, parseRateLimits("openrouter", FamilyOpenAI, 429, h, rlNow), []RateLimit{
		{Provider: "openrouter", Window: "requests", Status: RateRejected, ResetsAt: ms(1500 * time.Millisecond), Source: SourceOpenAI},
	})

	// A bad or absurd retry-after keeps the header's own reset.
	for _, v := range []string{"soon", "-4", "0", "9999999"} {
		h := hdr("x-ratelimit-limit-tokens", "10", "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "7s", "retry-after", v)
		if got := parseRateLimits("openai", FamilyOpenAI, 429, h, rlNow); len(got) != 1 || got[0].Status != RateRejected || got[0].ResetsAt != ms(7*time.Second) {
			t.Errorf("retry-after %q: %s", v, show(got))
		}
	}
	// A 429 without retry-after and without windows: rejected, reset unknown.
	same(t, parseRateLimits("anthropic", FamilyAnthropic, 429, http.Header{}, rlNow), []RateLimit{
		{Provider: "anthropic", Window: "requests", Status: RateRejected, Source: SourceAnthropic},
	})
	// Other errors report their windows as they are.
	if got := parseRateLimits("anthropic", FamilyAnthropic, 529, http.Header{}, rlNow); len(got) != 0 {
		t.Errorf("529: %s", show(got))
	}
}

// seen collects what a context's RateLimitFunc got.
type seen struct {
	mu  sync.Mutex
	got [][]RateLimit
}

func (s *seen) ctx() context.Context {
	return WithRateLimits(context.Background(), func(ws []RateLimit) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.got = append(s.got, ws)
	})
}

func (s *seen) calls() [][]RateLimit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]RateLimit(nil), s.got...)
}

// Over the wire: the headers reach the observer and the stream is the
// same as without them; a 429's reach it before Stream returns the error.
func TestRateLimitsOverTheWire(t *testing.T) {
	r := newRig(t)
	r.env["OPENROUTER_BASE_URL"] = r.srv.URL + "/v1"
	now := time.Now()
	r.fake.Push(msgPath,
		fakeprovider.Response{
			Text: []string{"Hel", "lo"}, Usage: fakeprovider.Usage{Input: 3, Output: 2},
			Headers: fakeprovider.AnthropicLimits(now, fakeprovider.Limit{Window: "output_tokens", Limit: 100, Remaining: 5, Reset: time.Hour}),
		},
		fakeprovider.RateLimited(20*time.Second, fakeprovider.AnthropicLimits(now, fakeprovider.Limit{Window: "requests", Limit: 50, Remaining: 0, Reset: time.Hour})),
	)
	r.fake.Push(chatPath, fakeprovider.Response{
		Text:    []string{"hi"},
		Headers: fakeprovider.OpenAILimits(fakeprovider.Limit{Window: "requests", Limit: 10, Remaining: 9, Reset: 6 * time.Second}),
	})

	var s seen
	st, err := r.provider(t, "anthropic").Stream(s.ctx(), baseReq())
	if err != nil {
		t.Fatal(err)
	}
	if c := s.calls(); len(c) != 1 || len(c[0]) != 1 || c[0][0].Window != "output_tokens" || c[0][0].Status != RateWarning ||
		c[0][0].Provider != "anthropic" || c[0][0].Source != SourceAnthropic {
		t.Fatalf("before the first event: %v", c)
	}
	evs, err := collect(t, st)
	if err != nil || textOf(evs, EvText) != "Hello" || evs[len(evs)-1].Usage.OutputTokens != 2 {
		t.Fatalf("stream with headers: %v %v", evs, err)
	}

	_, err = r.provider(t, "anthropic").Stream(s.ctx(), baseReq())
	var le *Error
	if !errors.As(err, &le) || le.Class != ClassRateLimit {
		t.Fatalf("429: %v", err)
	}
	c := s.calls()
	if len(c) != 2 || len(c[1]) != 1 || c[1][0].Status != RateRejected || c[1][0].Window != "requests" {
		t.Fatalf("429 windows: %v", c)
	}
	if at := time.UnixMilli(c[1][0].ResetsAt); at.Before(now.Add(19*time.Second)) || at.After(time.Now().Add(21*time.Second)) {
		t.Errorf("429 reset %v, want about now+20s (retry-after)", at)
	}

	var o seen
	if _, err := run(t, &ctxProvider{r.provider(t, "openrouter"), o.ctx()}, baseReq()); err != nil {
		t.Fatal(err)
	}
	if c := o.calls(); len(c) != 1 || c[0][0].Provider != "openrouter" || c[0][0].Source != SourceOpenAI || math.Abs(*c[0][0].Utilization-0.1) > 1e-9 {
		t.Fatalf("openrouter: %v", c)
	}

	// Without an observer nothing is read and nothing changes.
	r.fake.Push(chatPath, fakeprovider.Response{Text: []string{"plain"}, Headers: fakeprovider.OpenAILimits(fakeprovider.Limit{Window: "tokens", Limit: 1, Remaining: 0})})
	if evs, err := run(t, r.provider(t, "openai"), baseReq()); err != nil || textOf(evs, EvText) != "plain" {
		t.Fatalf("no observer: %v %v", evs, err)
	}
	if n := len(o.calls()) + len(s.calls()); n != 3 {
		t.Errorf("observers called %d times, want 3", n)
	}
}

// ctxProvider streams with a fixed context.
type ctxProvider struct {
	Provider
	ctx context.Context
}

func (p *ctxProvider) Stream(_ context.Context, req Request) (Stream, error) {
	return p.Provider.Stream(p.ctx, req)
}

// Through a Router each candidate's answer is reported: the primary's 429
// and then the fallback's windows.
func TestRateLimitsThroughFallback(t *testing.T) {
	r := newRig(t)
	rt := twoCandidates(t, r)
	r.fake.Push(msgPath, fakeprovider.RateLimited(time.Minute, nil))
	r.fake.Push(chatPath, fakeprovider.Response{
		Text:    []string{"ok"},
		Headers: fakeprovider.OpenAILimits(fakeprovider.Limit{Window: "tokens", Limit: 1000, Remaining: 400, Reset: time.Second}),
	})
	var s seen
	st, err := rt.Stream(s.ctx(), baseReq())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, st); err != nil {
		t.Fatal(err)
	}
	var got [][2]string
	for _, c := range s.calls() {
		for _, w := range c {
			got = append(got, [2]string{w.Provider + "/" + w.Window, w.Status})
		}
	}
	want := [][2]string{{"anthropic/requests", RateRejected}, {"openai/tokens", RateAllowed}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("windows %v, want %v", got, want)
	}
}
