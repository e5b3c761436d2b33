package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/clawboo/desktop/backend/config"
)

// noRedirect is a client that shows a redirect instead of following it.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// call sends one request to base+path with the given headers (pairs).
func call(t *testing.T, method, u, body string, hdr ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	resp, err := noRedirect.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10)) // an event stream ends with ctx
	return resp.StatusCode, resp.Header, string(b)
}

// dbSnapshot is every row of every table, as text.
func dbSnapshot(t *testing.T, f *fixture) string {
	t.Helper()
	db := f.st.Reader()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	var out strings.Builder
	for _, tb := range tables {
		rs, err := db.Query(`SELECT * FROM "` + tb + `"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rs.Columns()
		for rs.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "%s %v\n", tb, vals)
		}
		rs.Close()
	}
	return out.String()
}

var wildcard = regexp.MustCompile(`\{[^}]+\}`)

// TestEveryRouteNeedsTheToken walks the router's own table: every route and
// method without the token is 401 (but GET /api/health) and changes
// nothing; with the token none is refused for want of it. A route added
// later is walked too.
func TestEveryRouteNeedsTheToken(t *testing.T) {
	f := newFixture(t, fstest.MapFS{"index.html": {Data: []byte("<p>the app</p>")}})
	task := f.createTask(t, `{"title":"guarded"}`)
	raw := httptest.NewServer(f.api) // no token added
	defer raw.Close()
	routes := f.api.Routes()
	if len(routes) < 40 {
		t.Fatalf("only %d routes recorded", len(routes))
	}
	before := dbSnapshot(t, f)
	type req struct{ method, path string }
	var reqs []req
	for _, r := range routes {
		p := strings.TrimSuffix(wildcard.ReplaceAllString(r.Pattern, task.ID), "...")
		ms := r.Methods
		if ms == nil {
			ms = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
		}
		for _, m := range ms {
			reqs = append(reqs, req{m, p})
		}
	}
	for _, q := range reqs {
		code, hdr, body := call(t, q.method, raw.URL+q.path, "{}")
		switch {
		case q.path == "/api/health" && q.method == "GET":
			if code != 200 || strings.Contains(body, "runs") {
				t.Errorf("GET /api/health: %d %s", code, body)
			}
		case code != http.StatusUnauthorized:
			t.Errorf("%s %s without the token: %d %s", q.method, q.path, code, body)
		case strings.Contains(body, "the app"):
			t.Errorf("%s %s without the token shows the app", q.method, q.path)
		case !strings.Contains(body, "clawboo open"):
			t.Errorf("%s %s: the refusal does not say how to get in: %s", q.method, q.path, body)
		case strings.HasPrefix(q.path, "/api/") && hdr.Get("WWW-Authenticate") == "":
			t.Errorf("%s %s: no WWW-Authenticate", q.method, q.path)
		}
	}
	if after := dbSnapshot(t, f); after != before {
		t.Errorf("requests without the token changed the database:\nbefore %s\nafter %s", before, after)
	}
	for _, q := range reqs {
		code, _, body := call(t, q.method, raw.URL+q.path, "{}", "Authorization", "Bearer "+f.token)
		if code == http.StatusUnauthorized || code == http.StatusForbidden {
			t.Errorf("%s %s with the token: %d %s", q.method, q.path, code, body)
		}
	}
	// A wrong token, or another scheme, is no token.
	for _, h := range []string{"Bearer " + f.token[:len(f.token)-1], "Basic " + f.token, f.token} {
		if code, _, _ := call(t, "GET", raw.URL+"/api/runs", "", "Authorization", h); code != 401 {
			t.Errorf("Authorization %q…: %d", h[:8], code)
		}
	}
}

// login mints a link through the API (token holders only) and opens it.
func login(t *testing.T, base, tok, page string) (*http.Cookie, string) {
	t.Helper()
	code, _, body := call(t, "POST", base+"/api/login-link", "", "Authorization", "Bearer "+tok)
	if code != 200 || strings.Contains(body, tok) {
		t.Fatalf("login-link: %d %s", code, body)
	}
	m := regexp.MustCompile(`\?login=([A-Za-z0-9_-]+)`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no code in %s", body)
	}
	sep := "?"
	if strings.Contains(page, "?") {
		sep = "&"
	}
	st, hdr, _ := call(t, "GET", base+page+sep+"login="+m[1], "")
	if st != http.StatusSeeOther || hdr.Get("Location") != page {
		t.Fatalf("GET %s with the code: %d to %q (want the same page without the code)", page, st, hdr.Get("Location"))
	}
	cs := (&http.Response{Header: hdr}).Cookies()
	if len(cs) != 1 {
		t.Fatalf("cookies %v", cs)
	}
	return cs[0], m[1]
}

func TestLoginLinkWorksOnceAndSetsAPrivateCookie(t *testing.T) {
	f := newFixture(t, fstest.MapFS{"index.html": {Data: []byte("<p>the app</p>")}, "assets/app.js": {Data: []byte("1")}})
	raw := httptest.NewServer(f.api)
	defer raw.Close()

	// Without a session: the login page, never the app; assets load.
	for _, p := range []string{"/", "/index.html", "/board", "/teams/x?y=1"} {
		code, _, body := call(t, "GET", raw.URL+p, "")
		if code != 401 || strings.Contains(body, "the app") || !strings.Contains(body, "clawboo open") {
			t.Errorf("GET %s without a session: %d %s", p, code, body)
		}
	}
	if code, _, body := call(t, "GET", raw.URL+"/assets/app.js", ""); code != 200 || body != "1" {
		t.Errorf("an asset without a session: %d %s", code, body)
	}

	c, code := login(t, raw.URL, f.token, "/board?tab=x")
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Errorf("cookie %+v is not HttpOnly, SameSite=Strict, Path=/", c)
	}
	if strings.Contains(c.Value, f.token) || strings.Contains(c.Name, f.token[:8]) {
		t.Error("the cookie carries the token")
	}
	cookie := c.Name + "=" + c.Value
	for _, p := range []string{"/", "/board"} {
		st, _, body := call(t, "GET", raw.URL+p, "", "Cookie", cookie)
		if st != 200 || !strings.Contains(body, "the app") {
			t.Errorf("GET %s with the session: %d %s", p, st, body)
		}
	}
	if st, _, body := call(t, "GET", raw.URL+"/api/runs", "", "Cookie", cookie); st != 200 {
		t.Errorf("the API with the session: %d %s", st, body)
	}
	// The same code again: refused, no cookie.
	st, h, body := call(t, "GET", raw.URL+"/?login="+code, "")
	if st != 401 || h.Get("Set-Cookie") != "" || !strings.Contains(body, "already used") {
		t.Errorf("the link used twice: %d %v %s", st, h, body)
	}
}

func TestLoginRedirectStaysOnThePageWithoutTheCode(t *testing.T) {
	au, tok := testAuth(t)
	srv := httptest.NewServer(New(Options{Auth: au}))
	defer srv.Close()
	for page, want := range map[string]string{"/": "/", "/board?tab=x": "/board?tab=x", "//evil.example/": "/evil.example/", "/%5Cevil": "/%5Cevil"} {
		code, err := au.LoginCode()
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(srv.URL + page)
		if err != nil {
			t.Fatal(err)
		}
		if u.RawQuery != "" {
			u.RawQuery += "&"
		}
		u.RawQuery += "login=" + code
		req, _ := http.NewRequest("GET", u.String(), nil)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || loc != want || strings.Contains(loc, code) || strings.Contains(loc, tok) {
			t.Errorf("%s: %d Location %q, want %q", page, resp.StatusCode, loc, want)
		}
	}
}

func TestCookieFromAnotherHomeIsRefused(t *testing.T) {
	a, aTok := testAuth(t)
	b, _ := testAuth(t)
	sa := httptest.NewServer(New(Options{Auth: a}))
	defer sa.Close()
	sb := httptest.NewServer(New(Options{Auth: b}))
	defer sb.Close()
	c, _ := login(t, sa.URL, aTok, "/")
	if st, _, _ := call(t, "GET", sa.URL+"/api/mcp/config", "", "Cookie", c.Name+"="+c.Value); st == 401 {
		t.Fatal("home A refuses its own cookie")
	}
	b.mu.Lock()
	bName := cookieName(b.token())
	b.mu.Unlock()
	for _, ck := range []string{c.Name + "=" + c.Value, bName + "=" + c.Value} {
		if st, _, _ := call(t, "GET", sb.URL+"/api/mcp/config", "", "Cookie", ck); st != 401 {
			t.Errorf("home B took home A's cookie (%s…): %d", ck[:10], st)
		}
	}
}

// clock is a settable clock for login codes.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }
func newClock() *clock               { return &clock{now: time.Unix(1_800_000_000, 0)} }

func TestLoginCodeExpiresAfterTenMinutes(t *testing.T) {
	home := t.TempDir()
	if _, err := config.EnsureAPIToken(home); err != nil {
		t.Fatal(err)
	}
	clk := newClock()
	au := NewAuth(AuthOptions{Home: home, Now: clk.Now})
	srv := httptest.NewServer(New(Options{Auth: au}))
	defer srv.Close()
	fresh, _ := au.LoginCode()
	stale, _ := au.LoginCode()
	clk.add(LoginCodeTTL - time.Second)
	if st, _, _ := call(t, "GET", srv.URL+"/?login="+fresh, ""); st != http.StatusSeeOther {
		t.Errorf("a code a second before it expires: %d", st)
	}
	clk.add(time.Second)
	if st, h, _ := call(t, "GET", srv.URL+"/?login="+stale, ""); st != 401 || h.Get("Set-Cookie") != "" {
		t.Errorf("a code ten minutes old: %d", st)
	}
}

func TestRotationRefusesTheOldTokenAtOnce(t *testing.T) {
	home := t.TempDir()
	old, err := config.EnsureAPIToken(home)
	if err != nil {
		t.Fatal(err)
	}
	au := NewAuth(AuthOptions{Home: home})
	srv := httptest.NewServer(New(Options{Auth: au}))
	defer srv.Close()
	c, _ := login(t, srv.URL, old, "/")
	pending, _ := au.LoginCode()
	nw, err := config.RotateAPIToken(home)
	if err != nil || nw == old {
		t.Fatal(err)
	}
	get := func(h ...string) int { st, _, _ := call(t, "GET", srv.URL+"/api/mcp/config", "", h...); return st }
	if get("Authorization", "Bearer "+old) != 401 || get("Cookie", c.Name+"="+c.Value) != 401 {
		t.Error("the old token or its session still works after a rotation")
	}
	if st, _, _ := call(t, "GET", srv.URL+"/?login="+pending, ""); st != 401 {
		t.Error("a link made before the rotation still works")
	}
	if get("Authorization", "Bearer "+nw) != http.StatusServiceUnavailable { // no MCP hub here: past the gate
		t.Error("the new token does not work")
	}
	// No token file: nobody gets in.
	if err := os.Remove(config.APITokenPath(home)); err != nil {
		t.Fatal(err)
	}
	if get("Authorization", "Bearer "+nw) != 401 {
		t.Error("a deleted token still works")
	}
	if _, err := au.LoginCode(); err == nil {
		t.Error("a login code without a token")
	}
}

func TestInProcessRequestsNeedNoToken(t *testing.T) {
	au, _ := testAuth(t)
	a := New(Options{Auth: au})
	req := httptest.NewRequest("GET", "wails://wails/api/mcp/config", nil)
	rec := httptest.NewRecorder()
	a.ServeHTTP(rec, req.WithContext(MarkInProcess(req.Context())))
	if rec.Code == 401 {
		t.Fatal("the desktop's own webview was refused")
	}
	rec = httptest.NewRecorder()
	a.ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1/api/mcp/config", nil))
	if rec.Code != 401 {
		t.Fatal(rec.Code)
	}
}

func TestNoAuthLetsNobodyIn(t *testing.T) {
	rec := httptest.NewRecorder()
	New(Options{}).ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1/api/mcp/config", nil))
	if rec.Code != 401 {
		t.Fatal(rec.Code)
	}
}
