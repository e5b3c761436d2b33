package fakeresponses

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestRateLimitHeaders(t *testing.T) {
	h := RateLimitHeaders(&Window{UsedPercent: 42.5, Minutes: 300, ResetAt: 1796224872}, &Window{UsedPercent: 7})
	h = Credits(h, true, false, "12.5")
	f := New(Rule{Match: "hi", Steps: []Step{{Text: "ok", Headers: h}}}, Text("plain", "ok"))
	srv := httptest.NewServer(f)
	defer srv.Close()
	msg := func(s string) string {
		return `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"` + s + `"}]}]}`
	}
	res, evs := post(t, srv.URL, msg("hi"))
	want := map[string]string{
		"X-Codex-Primary-Used-Percent": "42.5", "X-Codex-Primary-Window-Minutes": "300", "X-Codex-Primary-Reset-At": "1796224872",
		"X-Codex-Secondary-Used-Percent": "7", "X-Codex-Secondary-Window-Minutes": "", "X-Codex-Secondary-Reset-At": "",
		"X-Codex-Credits-Has-Credits": "true", "X-Codex-Credits-Unlimited": "false", "X-Codex-Credits-Balance": "12.5",
		"Content-Type": "text/event-stream",
	}
	for k, v := range want {
		if got := res.Header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if len(evs) == 0 || evs[len(evs)-1].Event != "response.completed" {
		t.Fatalf("the stream changed: %+v", evs)
	}
	// Unset, nothing is added.
	res, _ = post(t, srv.URL, msg("plain"))
	for k := range res.Header {
		if strings.HasPrefix(strings.ToLower(k), "x-codex-") {
			t.Errorf("header %s without Headers", k)
		}
	}
}

func TestUsageLimit(t *testing.T) {
	reset := time.Now().Add(time.Hour).Truncate(time.Second)
	f := New(Rule{Match: "", Steps: []Step{UsageLimit("plus", reset, &Window{UsedPercent: 100, Minutes: 300, ResetAt: reset.Unix()}, nil)}})
	srv := httptest.NewServer(f)
	defer srv.Close()
	res, err := http.Post(srv.URL+"/v1/responses", "application/json",
		strings.NewReader(`{"model":"m","input":[{"type":"message","role":"user","content":"go"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var body struct {
		Error struct {
			Type     string `json:"type"`
			Plan     string `json:"plan_type"`
			ResetsAt int64  `json:"resets_at"`
			In       int64  `json:"resets_in_seconds"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("body %s: %v", raw, err)
	}
	if res.StatusCode != 429 || body.Error.Type != "usage_limit_reached" || body.Error.Plan != "plus" ||
		body.Error.ResetsAt != reset.Unix() || body.Error.In < 3500 || body.Error.In > 3600 {
		t.Fatalf("status %d body %s", res.StatusCode, raw)
	}
	if res.Header.Get("x-codex-primary-used-percent") != "100" || res.Header.Get("x-codex-primary-window-minutes") != "300" ||
		res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("headers %v", res.Header)
	}
}
