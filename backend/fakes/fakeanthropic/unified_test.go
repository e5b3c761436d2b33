package fakeanthropic

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// post sends one Messages request with text and returns the response
// (body read into out when it is JSON).
func post(t *testing.T, url, text string, out any) *http.Response {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"model": "m", "messages": []any{user(text)}})
	resp, err := http.Post(url+"/v1/messages", "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	return resp
}

func unifiedHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for k := range h {
		if lk := strings.ToLower(k); strings.HasPrefix(lk, unifiedPrefix) {
			out[strings.TrimPrefix(lk, unifiedPrefix)] = h.Get(k)
		}
	}
	return out
}

func TestUnifiedHeaders(t *testing.T) {
	reset := int64(1796232106)
	warn := &Unified{
		Status: "allowed", Reset: reset, Claim: "five_hour", Fallback: true,
		OverageStatus: "rejected", OverageDisabledReason: "org_level_disabled",
		Windows: []UnifiedWindow{
			{Abbrev: "5h", Status: "allowed", Utilization: 0.93, Reset: reset, SurpassedThreshold: 0.9},
			{Abbrev: "7d", Utilization: 0.4, Reset: reset + 3600},
		},
	}
	f := New(Rule{Match: "own", Text: "mine", Unified: &Unified{Status: "allowed_warning", Claim: "seven_day"}},
		Rule{Match: "plain", Text: "plain"})
	srv := httptest.NewServer(f)
	defer srv.Close()

	// Unset: no header, the same answer as ever.
	if resp := post(t, srv.URL, "plain", nil); resp.StatusCode != 200 || len(unifiedHeaders(resp.Header)) != 0 {
		t.Fatalf("unset: %d %v", resp.StatusCode, unifiedHeaders(resp.Header))
	}
	f.SetUnified(warn)
	resp := post(t, srv.URL, "plain", nil)
	want := map[string]string{
		"status": "allowed", "reset": "1796232106", "representative-claim": "five_hour",
		"fallback": "available", "overage-status": "rejected", "overage-disabled-reason": "org_level_disabled",
		"5h-status": "allowed", "5h-utilization": "0.93", "5h-reset": "1796232106", "5h-surpassed-threshold": "0.9",
		"7d-utilization": "0.4", "7d-reset": "1796235706",
	}
	got := unifiedHeaders(resp.Header)
	if resp.StatusCode != 200 || len(got) != len(want) {
		t.Fatalf("set: %d %v", resp.StatusCode, got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s: %q, want %q (%v)", k, got[k], v, got)
		}
	}
	// A rule's own wins; the default answer carries the server's.
	if got := unifiedHeaders(post(t, srv.URL, "own", nil).Header); len(got) != 2 || got["status"] != "allowed_warning" {
		t.Fatalf("rule's own: %v", got)
	}
	if got := unifiedHeaders(post(t, srv.URL, "no rule", nil).Header); got["5h-utilization"] != "0.93" {
		t.Fatalf("default answer: %v", got)
	}
	f.SetUnified(nil)
	if got := unifiedHeaders(post(t, srv.URL, "plain", nil).Header); len(got) != 0 {
		t.Fatalf("cleared: %v", got)
	}
}

// Rejected is the API's 429 on a spent window: the headers, retry-after
// until the reset, and a rate_limit_error body with a request id.
func TestUnifiedRejected(t *testing.T) {
	reset := time.Now().Add(time.Hour).Unix()
	f := New(Rule{Match: "hello", Text: "never"})
	f.SetUnified(&Unified{
		Status: "rejected", Reset: reset, Claim: "five_hour",
		Windows: []UnifiedWindow{{Abbrev: "5h", Status: "rejected", Utilization: 1, Reset: reset}},
	})
	srv := httptest.NewServer(f)
	defer srv.Close()
	var body struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
		RequestID string `json:"request_id"`
	}
	resp := post(t, srv.URL, "hello", &body)
	h := unifiedHeaders(resp.Header)
	if resp.StatusCode != http.StatusTooManyRequests || h["status"] != "rejected" || h["reset"] != strconv.FormatInt(reset, 10) ||
		h["representative-claim"] != "five_hour" || h["5h-utilization"] != "1" {
		t.Fatalf("%d %v", resp.StatusCode, h)
	}
	if ra, _ := strconv.Atoi(resp.Header.Get("retry-after")); ra < 3500 || ra > 3600 {
		t.Fatalf("retry-after %q", resp.Header.Get("retry-after"))
	}
	if body.Type != "error" || body.Error.Type != "rate_limit_error" || body.Error.Message != RejectedMessage ||
		!strings.HasPrefix(body.RequestID, "req_") {
		t.Fatalf("body %+v", body)
	}
	if n := len(f.Requests()); n != 1 {
		t.Fatalf("requests %d", n)
	}
}
