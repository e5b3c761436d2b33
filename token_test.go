package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/config"
)

// TestOpenHandsTheBrowserAPrivateFileNotTheLink: the one-time link never
// goes on xdg-open's command line (readable by every user in /proc); the
// browser gets a 0600 file under the home that leads to it.
func TestOpenHandsTheBrowserAPrivateFileNotTheLink(t *testing.T) {
	home := t.TempDir()
	cfg, err := config.Load(home, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.EnsureHome(); err != nil {
		t.Fatal(err)
	}
	tok, err := config.EnsureAPIToken(cfg.Home)
	if err != nil {
		t.Fatal(err)
	}
	const code = "one-time-CODE-4f1e"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/login-link" || r.Header.Get("Authorization") != "Bearer "+tok {
			http.Error(w, `{"error":"no"}`, http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(`{"url":"http://` + r.Host + `/?login=` + code + `"}`))
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	if err := os.WriteFile(cfg.PortFile(), []byte(port), 0o600); err != nil {
		t.Fatal(err)
	}
	var opened []string
	defer func(f func(string) error) { openBrowser = f }(openBrowser)
	openBrowser = func(u string) error { opened = append(opened, u); return nil }

	var out, errb bytes.Buffer
	if rc := openCommand([]string{"--home", home}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	if len(opened) != 1 || strings.Contains(opened[0], code) || !strings.HasPrefix(opened[0], "file:///") {
		t.Fatalf("the browser was handed %q", opened)
	}
	if strings.Contains(out.String()+errb.String(), code) {
		t.Fatal("the link was printed though the browser opened")
	}
	u, err := url.Parse(opened[0])
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(u.Path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("the login page is %v, want 0600", st.Mode().Perm())
	}
	page, _ := os.ReadFile(u.Path)
	if !strings.Contains(string(page), srv.URL+"/?login="+code) {
		t.Fatalf("the page does not lead to the link: %s", page)
	}

	// --print prints the link and opens nothing.
	out.Reset()
	if rc := openCommand([]string{"--print", "--home", home}, &out, &errb); rc != 0 || !strings.Contains(out.String(), code) || len(opened) != 1 {
		t.Fatalf("--print: rc %d out %q opened %q", rc, out.String(), opened)
	}
}
