package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/config"
)

// testAuth is the checker of a fresh home with its token made, as the
// composition root does at the first start.
func testAuth(t testing.TB) (*Auth, string) {
	t.Helper()
	home := t.TempDir()
	tok, err := config.EnsureAPIToken(home)
	if err != nil {
		t.Fatal(err)
	}
	return NewAuth(AuthOptions{Home: home}), tok
}

// withToken is the test clients' side of the token: every /api and UI
// request that names no credential of its own carries tok, as the browser
// suites' fetch wrapper and the CLI do (the MCP mount keeps its own tokens).
func withToken(h http.Handler, tok string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" && !strings.HasPrefix(r.URL.Path, "/mcp/") {
			r.Header.Set("Authorization", "Bearer "+tok)
		}
		h.ServeHTTP(w, r)
	})
}

// authedAPI is New with a home's token, wrapped by withToken.
func authedAPI(t testing.TB, opts Options) http.Handler {
	t.Helper()
	au, tok := testAuth(t)
	opts.Auth = au
	return withToken(New(opts), tok)
}
