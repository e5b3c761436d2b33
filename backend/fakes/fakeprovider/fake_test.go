package fakeprovider

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestWireShapes(t *testing.T) {
	f := New()
	srv := httptest.NewServer(f)
	defer srv.Close()

	f.Push("/v1/chat/completions", Text("hi"), Text("hi"))
	_, with := post(t, srv.URL+"/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true}}`)
	_, without := post(t, srv.URL+"/v1/chat/completions", `{"model":"m","stream":true}`)
	if !strings.Contains(with, `"usage":{`) || strings.Contains(without, `"usage":{`) {
		t.Errorf("usage chunk only with include_usage:\n%s\n---\n%s", with, without)
	}
	if !strings.HasSuffix(with, "data: [DONE]\n\n") || !strings.Contains(with, `"finish_reason":"stop"`) {
		t.Errorf("openai stream:\n%s", with)
	}

	f.Push("/v1/messages", Response{Thinking: []string{"t"}, Text: []string{"a"}})
	_, msgs := post(t, srv.URL+"/v1/messages", `{"model":"m"}`)
	for _, want := range []string{"event: message_start", `"thinking_delta"`, `"signature_delta"`, `"text_delta"`, "event: message_delta", "event: message_stop"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("missing %s in\n%s", want, msgs)
		}
	}

	if code, b := post(t, srv.URL+"/v1/messages", `{}`); code != 500 || !strings.Contains(b, "nothing scripted") {
		t.Errorf("unscripted: %d %s", code, b)
	}
	if n := len(f.Requests()); n != 4 {
		t.Errorf("recorded %d requests", n)
	}
}

func TestRateLimitHeaders(t *testing.T) {
	f := New()
	srv := httptest.NewServer(f)
	defer srv.Close()
	now := time.Date(2026, 12, 2, 13, 0, 0, 0, time.UTC)
	f.Push("/v1/messages",
		Response{Text: []string{"a"}, Headers: AnthropicLimits(now, Limit{Window: "input_tokens", Limit: 1000, Remaining: 250, Reset: 90 * time.Second})},
		RateLimited(1500*time.Millisecond, AnthropicLimits(now, Limit{Window: "requests", Limit: 50, Remaining: 0, Reset: time.Minute})),
	)
	f.Push("/v1/chat/completions",
		Response{Text: []string{"a"}, Headers: OpenAILimits(Limit{Window: "tokens", Limit: 30000, Remaining: 29000, Reset: 20 * time.Millisecond})},
		RateLimited(0, OpenAILimits(Limit{Window: "requests", Limit: 500, Remaining: 0, Reset: 6 * time.Minute})),
	)
	get := func(path string) *http.Response {
		t.Helper()
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(`{"model":"m","stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp
	}

	a := get("/v1/messages")
	if a.StatusCode != 200 || a.Header.Get("anthropic-ratelimit-input-tokens-limit") != "1000" ||
		a.Header.Get("anthropic-ratelimit-input-tokens-remaining") != "250" ||
		a.Header.Get("anthropic-ratelimit-input-tokens-reset") != "2026-12-02T13:01:30Z" {
		t.Errorf("anthropic 200: %d %v", a.StatusCode, a.Header)
	}
	a = get("/v1/messages")
	if a.StatusCode != 429 || a.Header.Get("retry-after") != "2" || a.Header.Get("anthropic-ratelimit-requests-remaining") != "0" ||
		a.Header.Get("anthropic-ratelimit-requests-reset") != "2026-12-02T13:01:00Z" {
		t.Errorf("anthropic 429: %d %v", a.StatusCode, a.Header)
	}
	o := get("/v1/chat/completions")
	if o.StatusCode != 200 || o.Header.Get("x-ratelimit-limit-tokens") != "30000" ||
		o.Header.Get("x-ratelimit-remaining-tokens") != "29000" || o.Header.Get("x-ratelimit-reset-tokens") != "20ms" {
		t.Errorf("openai 200: %d %v", o.StatusCode, o.Header)
	}
	o = get("/v1/chat/completions")
	if o.StatusCode != 429 || o.Header.Get("retry-after") != "" || o.Header.Get("x-ratelimit-reset-requests") != "6m0s" {
		t.Errorf("openai 429: %d %v", o.StatusCode, o.Header)
	}
}
