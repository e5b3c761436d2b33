package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestAnsweredByIsTheServersWord: the page (desktop window in-process, or a
// browser with the login cookie) is "page"; the token's holder is "api".
func TestAnsweredByIsTheServersWord(t *testing.T) {
	bearer := httptest.NewRequest("POST", "/api/approvals/x/resolve", nil)
	bearer.Header.Set("Authorization", "Bearer tok")
	cookie := httptest.NewRequest("POST", "/api/approvals/x/resolve", nil)
	cookie.Header.Set("Cookie", "clawboo_session=abc")
	inproc := httptest.NewRequest("POST", "/api/approvals/x/resolve", nil)
	inproc = inproc.WithContext(context.WithValue(inproc.Context(), inProcessKey{}, true))
	inproc.Header.Set("Authorization", "Bearer tok")
	for r, want := range map[string]string{"bearer": "api", "cookie": "page", "in-process": "page"} {
		req := map[string]*http.Request{"bearer": bearer, "cookie": cookie, "in-process": inproc}[r]
		if got := answeredBy(req); got != want {
			t.Errorf("%s: %q, want %q", r, got, want)
		}
	}
}
