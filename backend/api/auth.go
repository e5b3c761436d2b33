package api

// The API answers only its own clients (issue 26 §1). Every request over
// TCP needs the home's API token — `Authorization: Bearer <token>`, or the
// browser session cookie a one-time login link sets — except GET
// /api/health, the UI's static assets and the MCP mount (which checks its
// own tokens). Requests the desktop webview makes in-process need nothing.
//
// Invariants:
//   - The token lives only in <home>/api-token (config.APITokenPath); it is
//     re-read when the file changes, so `clawboo token --rotate` takes effect
//     at once, and a missing or unreadable file lets nobody in (fail closed).
//   - The token never appears in a response, a URL or a log. The cookie is
//     an HMAC of the token (never the token itself) under a name derived the
//     same way, so a cookie from another home, or from before a rotation, is
//     not this home's.
//   - A login code is random, not the token, good for one use within
//     LoginCodeTTL, and forgotten when the token changes.

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/config"
)

// LoginCodeTTL is how long a login link works (once).
const LoginCodeTTL = 10 * time.Minute

// maxLoginCodes bounds the outstanding (unused, unexpired) login codes.
const maxLoginCodes = 256

// sessionMaxAge is how long a browser stays logged in.
const sessionMaxAge = 30 * 24 * time.Hour

// HowToLogIn is what a refused client is told.
const HowToLogIn = "run `clawboo open`, or open the link `clawboo serve` printed; " +
	"a program sends the header Authorization: Bearer <the token `clawboo token` prints>"

// AuthOptions configure NewAuth.
type AuthOptions struct {
	// Home is the folder whose api-token file holds the token.
	Home string
	// Now is the clock (nil: time.Now); tests move it to expire codes.
	Now func() time.Time
}

// Auth checks requests against the home's API token and keeps the
// outstanding one-time login codes.
type Auth struct {
	home string
	now  func() time.Time

	mu    sync.Mutex
	tok   string      // "" when the file could not be read
	st    os.FileInfo // the file as it was when tok was read
	codes map[string]time.Time
}

// NewAuth builds the checker for a home. It does not make the token (the
// composition root does, with config.EnsureAPIToken, before it listens).
func NewAuth(opts AuthOptions) *Auth {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Auth{home: opts.Home, now: opts.Now, codes: map[string]time.Time{}}
}

// token is the current token, re-read when the file changed; "" when there
// is none (nobody gets in). Callers hold mu.
func (au *Auth) token() string {
	p := config.APITokenPath(au.home)
	st, err := os.Stat(p)
	if err != nil {
		au.tok, au.st, au.codes = "", nil, map[string]time.Time{}
		return ""
	}
	if au.st != nil && au.tok != "" && os.SameFile(au.st, st) && st.ModTime().Equal(au.st.ModTime()) && st.Size() == au.st.Size() {
		return au.tok
	}
	tok, err := config.ReadAPIToken(au.home)
	if err != nil {
		tok = ""
	}
	if tok != au.tok {
		au.codes = map[string]time.Time{} // a rotation voids the links made before it
	}
	au.tok, au.st = tok, st
	return tok
}

func mac(tok, what string) []byte {
	m := hmac.New(sha256.New, []byte(tok))
	m.Write([]byte("clawboo " + what))
	return m.Sum(nil)
}

// cookieName is this home's session cookie name: browsers share cookies
// between ports of one host, so two Clawboos on one machine must not
// overwrite each other's.
func cookieName(tok string) string {
	return "clawboo_" + hex.EncodeToString(mac(tok, "cookie name"))[:12]
}

func cookieValue(tok string) string {
	return base64.RawURLEncoding.EncodeToString(mac(tok, "browser session v1"))
}

// allowed reports whether r carries this home's token or session cookie.
func (au *Auth) allowed(r *http.Request) bool {
	au.mu.Lock()
	tok := au.token()
	au.mu.Unlock()
	if tok == "" {
		return false
	}
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, cred, _ := strings.Cut(h, " ")
		return strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(cred)), []byte(tok)) == 1
	}
	c, err := r.Cookie(cookieName(tok))
	return err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(cookieValue(tok))) == 1
}

// LoginCode makes a fresh one-time login code.
func (au *Auth) LoginCode() (string, error) {
	au.mu.Lock()
	defer au.mu.Unlock()
	if au.token() == "" {
		return "", fmt.Errorf("there is no API token in %s (run `clawboo token` to make one)", config.APITokenPath(au.home))
	}
	now := au.now()
	for c, exp := range au.codes {
		if !now.Before(exp) {
			delete(au.codes, c)
		}
	}
	if len(au.codes) >= maxLoginCodes {
		return "", errors.New("too many unused login links: use one, or wait ten minutes")
	}
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	code := base64.RawURLEncoding.EncodeToString(raw)
	au.codes[code] = now.Add(LoginCodeTTL)
	return code, nil
}

// LoginURL is base (http://host:port) with a fresh one-time login code.
func (au *Auth) LoginURL(base string) (string, error) {
	code, err := au.LoginCode()
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(base, "/") + "/?login=" + code, nil
}

// redeem uses up a login code, returning the session cookie it earns.
func (au *Auth) redeem(code string) (*http.Cookie, bool) {
	au.mu.Lock()
	defer au.mu.Unlock()
	tok := au.token()
	exp, ok := au.codes[code]
	delete(au.codes, code)
	if tok == "" || !ok || !au.now().Before(exp) {
		return nil, false
	}
	return &http.Cookie{
		Name: cookieName(tok), Value: cookieValue(tok), Path: "/",
		MaxAge: int(sessionMaxAge / time.Second), HttpOnly: true, SameSite: http.SameSiteStrictMode,
	}, true
}

// gate answers a request that may not pass (and returns false), or returns
// true for one that may. Called by ServeHTTP after the Host check.
func (a *API) gate(w http.ResponseWriter, r *http.Request) bool {
	if inProcess(r) {
		return true
	}
	p := path.Clean("/" + r.URL.Path)
	isAPI := p == "/api" || strings.HasPrefix(p, "/api/")
	switch {
	case p == "/mcp" || strings.HasPrefix(p, "/mcp/"):
		return true // the MCP servers check their own tokens
	case p == "/api/health" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		return true
	case !isAPI && r.URL.Query().Has("login") && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		a.login(w, r)
		return false
	}
	if a.opts.Auth != nil && a.opts.Auth.allowed(r) {
		return true
	}
	if isAPI {
		w.Header().Set("WWW-Authenticate", `Bearer realm="clawboo"`)
		writeError(w, http.StatusUnauthorized, "unauthorized: this API needs its token; %s", HowToLogIn)
		return false
	}
	if u, ok := a.ui.(*uiHandler); ok && u.isAsset(r) {
		return true // scripts and styles may load; the app's page may not
	}
	loginPage(w, "")
	return false
}

// login redeems ?login=<code>: a good code sets the session cookie and
// sends the browser to the same page without the code; any other is told.
func (a *API) login(w http.ResponseWriter, r *http.Request) {
	var c *http.Cookie
	ok := false
	if a.opts.Auth != nil {
		c, ok = a.opts.Auth.redeem(r.URL.Query().Get("login"))
	}
	if !ok {
		loginPage(w, "This login link was already used, has expired, or is not this Clawboo's. ")
		return
	}
	q := r.URL.Query()
	q.Del("login")
	// One leading slash: never a //host URL that would leave this server.
	to := "/" + strings.TrimLeft(r.URL.EscapedPath(), "/\\")
	if len(q) > 0 {
		to += "?" + q.Encode()
	}
	http.SetCookie(w, c)
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Location", to)
	w.WriteHeader(http.StatusSeeOther)
}

// loginPage is what a browser without the session gets instead of the app.
func loginPage(w http.ResponseWriter, why string) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusUnauthorized)
	fmt.Fprintf(w, `<!doctype html><meta charset="utf-8"><title>Clawboo: log in</title>
<body data-login="needed"><h1>Log in to Clawboo</h1>
<p>%sOpen the link <code>clawboo serve</code> printed, or run <code>clawboo open</code>.</p>
<p>Each link works once, for ten minutes.</p></body>
`, why)
}

// postLoginLink answers POST /api/login-link (token holders only, like
// every /api route): a fresh one-time link for a browser, which `clawboo
// open` asks for. The link holds a code, never the token.
func (a *API) postLoginLink(w http.ResponseWriter, r *http.Request) {
	if a.opts.Auth == nil {
		writeError(w, http.StatusServiceUnavailable, "this server has no API token")
		return
	}
	base := "http://" + r.Host
	if a.opts.MCPBaseURL != nil {
		if u := a.opts.MCPBaseURL(); u != "" {
			base = u
		}
	}
	u, err := a.opts.Auth.LoginURL(base)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"url": u})
}

// isAsset reports whether r asks for one of the UI's real files other than
// the app's page (scripts, styles, icons): those load without a session.
func (h *uiHandler) isAsset(r *http.Request) bool {
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if h.files == nil || name == "" || name == "index.html" || strings.HasSuffix(name, ".html") {
		return false
	}
	st, err := fs.Stat(h.files, name)
	return err == nil && !st.IsDir()
}
