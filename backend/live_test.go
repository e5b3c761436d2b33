package backend

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/runtimes"
)

// TestRuntimeStateFollowsTheFileSystem changes the machine the way a user
// would outside Clawboo (a CLI installed by hand, `codex login`, an edit of
// OpenClaw's .env) and expects the new state pushed to a live page.
func TestRuntimeStateFollowsTheFileSystem(t *testing.T) {
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	_ = os.MkdirAll(bin, 0o755)
	env := map[string]string{"HOME": home, "PATH": bin, config.EnvVault: "file"}
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(home, getenv)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(context.Background(), Options{Config: cfg, Getenv: getenv, Environ: func() []string { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(authed(b))
	defer func() {
		srv.CloseClientConnections()
		srv.Close()
		_ = b.Close(context.Background())
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	states := make(chan map[string]runtimes.ConnectionState, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		name := ""
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			} else if v, ok := strings.CutPrefix(line, "data: "); ok && name == "runtimes" {
				var l runtimes.Listing
				_ = json.Unmarshal([]byte(v), &l)
				m := map[string]runtimes.ConnectionState{}
				for _, e := range l.Runtimes {
					m[string(e.ID)] = e.ConnectionState
				}
				states <- m
			}
		}
	}()
	waitFor := func(what string, ok func(map[string]runtimes.ConnectionState) bool) {
		t.Helper()
		for {
			select {
			case m := <-states:
				if ok(m) {
					return
				}
			case <-ctx.Done():
				t.Fatalf("never saw %s", what)
			}
		}
	}
	time.Sleep(100 * time.Millisecond) // let the stream subscribe
	write := func(p, body string, mode os.FileMode) {
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(bin, "claude"), "#!/bin/sh\n", 0o755)
	waitFor("claude-code installed", func(m map[string]runtimes.ConnectionState) bool { return m["claude-code"] == runtimes.StateNeedsAuth })
	write(filepath.Join(bin, "codex"), "#!/bin/sh\n", 0o755)
	waitFor("codex installed", func(m map[string]runtimes.ConnectionState) bool { return m["codex"] == runtimes.StateNeedsLogin })
	write(filepath.Join(home, ".codex", "auth.json"), `{"tokens":{"access_token":"x"}}`, 0o600)
	waitFor("codex logged in", func(m map[string]runtimes.ConnectionState) bool { return m["codex"] == runtimes.StateReady })
	write(filepath.Join(home, ".openclaw", ".env"), "ANTHROPIC_API_KEY=sk-from-openclaw\n", 0o600)
	waitFor("claude-code connected from OpenClaw's .env", func(m map[string]runtimes.ConnectionState) bool { return m["claude-code"] == runtimes.StateReady })
	// pipx puts hermes in ~/.local/bin, a folder that did not exist.
	write(filepath.Join(home, ".local", "bin", "hermes"), "#!/bin/sh\n", 0o755)
	waitFor("hermes installed off PATH", func(m map[string]runtimes.ConnectionState) bool { return m["hermes"] == runtimes.StateReady })
}
