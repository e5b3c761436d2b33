package backend

import (
	"net/http"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/config"
)

// authed is b's handler as its own clients reach it: every /api and UI
// request that names no credential of its own carries the home's API token
// (<home>/api-token, read on each request so a rotation is followed), as
// the CLI and the browser suites' fetch do. The MCP mount keeps its own
// tokens. Tests of the HTTP API use authed(b), never b.Handler() bare.
func authed(b *Backend) http.Handler {
	h := b.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" && !strings.HasPrefix(r.URL.Path, "/mcp/") {
			if tok, err := config.ReadAPIToken(b.Config.Home); err == nil {
				r.Header.Set("Authorization", "Bearer "+tok)
			}
		}
		h.ServeHTTP(w, r)
	})
}

// TestTheServedHandlerNeedsTheToken: the composition root wires the token
// check (a backend built without it would let anyone in).
func TestTheServedHandlerNeedsTheToken(t *testing.T) {
	b := e2eBackend(t, map[string]string{})
	for _, h := range []http.Handler{b.Handler(), b.Server().Handler} {
		if code := e2eDo(t, h, "GET", "/api/runs", nil, nil); code != http.StatusUnauthorized {
			t.Errorf("GET /api/runs without the token: %d", code)
		}
	}
	if code := e2eDo(t, authed(b), "GET", "/api/runs", nil, nil); code != http.StatusOK {
		t.Errorf("GET /api/runs with the token: %d", code)
	}
}
