package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"html"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var loginLine = regexp.MustCompile(`(?m)^(http://127\.0\.0\.1:\d+/\?login=[\w-]+)$`)

// printedLink waits for the login link serve prints after its serving line.
func (s *server) printedLink(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := loginLine.FindStringSubmatch(s.out.String()); m != nil {
			return m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("serve printed no login link; stdout after the serving line: %q", s.out.String())
	return ""
}

var noFollow = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func status(t *testing.T, method, url string, hdr ...string) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func clawboo(t *testing.T, env []string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errs strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	return out.String(), errs.String(), err
}

// TestServeNeedsTheTokenAndPrintsAOneUseLink: the binary as a person runs
// it: the token file is private, `clawboo token` prints it, the API wants
// it, the printed link logs a browser in once, and neither output holds
// the token.
func TestServeNeedsTheTokenAndPrintsAOneUseLink(t *testing.T) {
	s := startServe(t, nil, "--addr", "127.0.0.1:0")
	link := s.printedLink(t)
	tok := s.token(t)
	for _, f := range []string{"api-token", "clawboo.db", "clawboo.db-wal", "clawboo.db-shm"} {
		st, err := os.Stat(filepath.Join(s.home, f))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want 0600", f, st.Mode(), err)
		}
	}
	out, _, err := clawboo(t, nil, "token", "--home", s.home)
	if err != nil || strings.TrimSpace(out) != tok {
		t.Fatalf("clawboo token: %v %q", err, out)
	}
	if c := status(t, "GET", s.url+"/api/board"); c != 401 {
		t.Errorf("GET /api/board without the token: %d", c)
	}
	if c := status(t, "GET", s.url+"/api/health"); c != 200 {
		t.Errorf("GET /api/health: %d", c)
	}
	if c := status(t, "GET", s.url+"/api/board", "Authorization", "Bearer "+tok); c != 200 {
		t.Errorf("GET /api/board with the token: %d", c)
	}
	req, _ := http.NewRequest("GET", link, nil)
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookies := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" || len(cookies) != 1 || strings.Contains(cookies[0].Value, tok) {
		t.Fatalf("the printed link: %d %q %v", resp.StatusCode, resp.Header.Get("Location"), cookies)
	}
	if c := status(t, "GET", s.url+"/api/board", "Cookie", cookies[0].Name+"="+cookies[0].Value); c != 200 {
		t.Errorf("the session cookie: %d", c)
	}
	if c := status(t, "GET", link); c != 401 {
		t.Errorf("the link used twice: %d", c)
	}
	if strings.Contains(s.out.String(), tok) || strings.Contains(s.errs.String(), tok) {
		t.Error("serve printed or logged the token")
	}
}

// TestTokenRotateIsHonouredAtOnce: `clawboo token --rotate` while serve
// runs: the old token stops working, the new one works, no restart.
func TestTokenRotateIsHonouredAtOnce(t *testing.T) {
	s := startServe(t, nil, "--addr", "127.0.0.1:0")
	old := s.token(t)
	out, errs, err := clawboo(t, nil, "token", "--rotate", "--home", s.home)
	nw := strings.TrimSpace(out)
	if err != nil || nw == old || nw != s.token(t) {
		t.Fatalf("rotate: %v %q %s", err, out, errs)
	}
	if c := status(t, "GET", s.url+"/api/board", "Authorization", "Bearer "+old); c != 401 {
		t.Errorf("the old token after a rotation: %d", c)
	}
	if c := status(t, "GET", s.url+"/api/board", "Authorization", "Bearer "+nw); c != 200 {
		t.Errorf("the new token: %d", c)
	}
}

// TestOpenHandsTheBrowserAFreshLink: `clawboo open` runs the desktop's
// opener (xdg-open here, a script that records what it was given) on a
// private file under the home that leads to a fresh link that logs in
// once: the link itself is never on the opener's command line.
func TestOpenHandsTheBrowserAFreshLink(t *testing.T) {
	s := startServe(t, nil, "--addr", "127.0.0.1:0")
	printed := s.printedLink(t)
	dir := t.TempDir()
	got := filepath.Join(dir, "opened")
	script := "#!/bin/sh\nprintf '%s' \"$1\" > '" + got + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out, errs, err := clawboo(t, []string{"PATH=" + dir + ":" + os.Getenv("PATH")}, "open", "--home", s.home)
	if err != nil {
		t.Fatalf("clawboo open: %v %s %s", err, out, errs)
	}
	b, err := os.ReadFile(got)
	opened := string(b)
	if err != nil || !strings.HasPrefix(opened, "file:///") || strings.Contains(opened, "login=") {
		t.Fatalf("the opener was given %q (%v)", opened, err)
	}
	u, err := url.Parse(opened)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(u.Path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the login page %s: %v %v", u.Path, st, err)
	}
	page, _ := os.ReadFile(u.Path)
	m := regexp.MustCompile(`url=([^"]+)"`).FindStringSubmatch(string(page))
	if m == nil {
		t.Fatalf("the login page leads nowhere: %s", page)
	}
	link := html.UnescapeString(m[1])
	if !loginLine.MatchString(link) || link == printed || !strings.HasPrefix(link, s.url+"/") {
		t.Fatalf("the page leads to %q; serve printed %q", link, printed)
	}
	if strings.Contains(out+errs, link) || strings.Contains(out+errs, s.token(t)) {
		t.Errorf("clawboo open printed the link or the token: %s %s", out, errs)
	}
	if c := status(t, "GET", link); c != http.StatusSeeOther {
		t.Errorf("the opened link: %d", c)
	}
	if c := status(t, "GET", link); c != 401 {
		t.Errorf("the opened link twice: %d", c)
	}
	// Without a server: an error in words, no browser.
	_ = os.Remove(got)
	_, errs, err = clawboo(t, []string{"PATH=" + dir + ":" + os.Getenv("PATH")}, "open", "--home", t.TempDir())
	if err == nil || !strings.Contains(errs, "clawboo serve") {
		t.Errorf("open with nothing serving: %v %s", err, errs)
	}
	if _, err := os.Stat(got); err == nil {
		t.Error("a browser was opened with nothing serving")
	}
}

// TestAnotherUnixUserCannotReadTheTokenOrUseTheAPI makes a throwaway user
// and, as that user, reads <home>/api-token and calls the API: both
// refused, even with the home left world-readable (a copied home).
func TestAnotherUnixUserCannotReadTheTokenOrUseTheAPI(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a second user (CI runs as root)")
	}
	for _, tool := range []string{"useradd", "userdel", "runuser", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing: %v", tool, err)
		}
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	user := "cbtest" + hex.EncodeToString(suffix)
	if out, err := exec.Command("useradd", "--no-create-home", "--shell", "/bin/sh", user).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("userdel", user).Run() })

	// A home anyone may enter and list, as a permissive or copied one is.
	home, err := os.MkdirTemp("/tmp", "clawboo-auth-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	s := serveOn(t, home)
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	as := func(args ...string) (string, error) {
		out, err := exec.Command("runuser", append([]string{"-u", user, "--"}, args...)...).CombinedOutput()
		return string(out), err
	}
	if out, err := as("ls", home); err != nil || !strings.Contains(out, "api-token") {
		t.Fatalf("the other user cannot even list the home (the test would prove nothing): %v %s", err, out)
	}
	out, err := as("cat", filepath.Join(home, "api-token"))
	if err == nil || !strings.Contains(out, "Permission denied") || strings.Contains(out, s.token(t)) {
		t.Errorf("the other user read the token: %v %s", err, out)
	}
	for _, f := range []string{"clawboo.db", "clawboo.db-wal"} {
		if out, err := as("cat", filepath.Join(home, f)); err == nil || !strings.Contains(out, "Permission denied") {
			t.Errorf("the other user read %s: %v", f, err)
		}
	}
	code, err := as("curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Content-Type: application/json",
		"-d", `{"name":"pwn","transport":"stdio","command":"/bin/sh","args":["-c","id"]}`, s.url+"/api/tools/servers")
	if err != nil || code != "401" {
		t.Errorf("the other user's POST /api/tools/servers: %v %q", err, code)
	}
	code, err = as("curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", s.url+"/api/board")
	if err != nil || code != "401" {
		t.Errorf("the other user's GET /api/board: %v %q", err, code)
	}
	// The owner, with the token, sees nothing was registered.
	_, b := s.get(t, "/api/tools/servers")
	if strings.Contains(string(b), "pwn") {
		t.Errorf("the other user's server was registered: %s", b)
	}
}
