package backend

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/internal/testkit"
)

// TestSentinelKeyNeverLeaks connects a sentinel key through the API and then
// looks for it everywhere a key must never be: every response, every log
// line, the database and every other file under the home folder, and the
// environment of children that are not runtimes (an installer, the Codex
// login probe).
func TestSentinelKeyNeverLeaks(t *testing.T) {
	const sentinel = "sk-ant-api03-SENTINEL-7f3a9c1e5b"
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	_ = os.MkdirAll(bin, 0o755)
	dumps := filepath.Join(t.TempDir(), "dumps")
	_ = os.MkdirAll(dumps, 0o755)
	env := map[string]string{"HOME": home, "PATH": bin + ":/usr/bin:/bin", config.EnvEnableMock: "1", config.EnvVault: "file"}
	getenv := func(k string) string { return env[k] }
	environ := func() []string {
		out := []string{"OPENAI_API_KEY=" + sentinel + "-ambient"}
		for k, v := range env {
			out = append(out, k+"="+v)
		}
		return out
	}
	// Children that are not runtimes record their environment.
	for _, name := range []string{"npm", "codex"} {
		script := "#!/bin/sh\nenv > \"" + filepath.Join(dumps, name) + "\"\n"
		_ = os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755)
	}
	// An ACP agent naming the key: it reaches that agent's environment
	// (recorded outside the home), and nothing else.
	fakeACP := buildFakeACP(t)
	acpEnv := filepath.Join(t.TempDir(), "acp-env.jsonl")
	env["FAKEACP_RECORD"] = acpEnv
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }))
	defer provider.Close()
	env["ANTHROPIC_BASE_URL"] = provider.URL

	cfg, err := config.Load(home, getenv)
	if err != nil {
		t.Fatal(err)
	}
	logs := &testkit.SyncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	b, err := New(context.Background(), Options{Config: cfg, Log: log, Getenv: getenv, Environ: environ})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(authed(b))
	var seen bytes.Buffer
	call := func(method, path, body string) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_ = resp.Header.Write(&seen)
		_, _ = io.Copy(&seen, resp.Body)
	}
	call("POST", "/api/runtimes/clawboo-native/healthcheck", `{"provider":"anthropic","apiKey":"`+sentinel+`"}`)
	call("POST", "/api/runtimes/clawboo-native/connect", `{"apiKey":"`+sentinel+`"}`)
	call("POST", "/api/runtimes/claude-code/connect", `{"apiKey":"`+sentinel+`"}`)
	call("POST", "/api/runtimes/hermes/connect", `{"apiKey":"`+sentinel+`","provider":"openai"}`)
	call("POST", "/api/runtimes/clawboo-native/healthcheck", `{"provider":"anthropic"}`)
	call("POST", "/api/runtimes/clawboo-native/connect", `{"apiKey":"`+sentinel+`","provider":"nope"}`)
	call("POST", "/api/runtimes/claude-code/install", "")
	call("POST", "/api/runtimes/codex/recheck", "")
	call("GET", "/api/runtimes", "")
	call("POST", "/api/runtimes/clawboo-mock/run", `{"message":"!ok hi"}`)
	call("GET", "/api/runs", "")
	call("POST", "/api/acp/agents", `{"name":"Keyed","command":"`+fakeACP+`","envVars":["ANTHROPIC_API_KEY","FAKEACP_RECORD"]}`)
	call("POST", "/api/runtimes/acp-keyed/run", `{"message":"!say hi from ACP\n!tool t1 env\n!toolresult t1 nothing here"}`)
	call("GET", "/api/runs", "")
	call("POST", "/api/runtimes/claude-code/disconnect", "")
	srv.Close()
	if err := b.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	apiToken, err := config.ReadAPIToken(home)
	if err != nil {
		t.Fatal(err)
	}
	needles := [][]byte{
		[]byte(apiToken), // the API token: only in <home>/api-token
		[]byte(sentinel),
		[]byte(base64.StdEncoding.EncodeToString([]byte(sentinel))[:24]),
		[]byte(hex.EncodeToString([]byte(sentinel))[:24]),
	}
	leaks := func(where string, data []byte) {
		for _, n := range needles {
			if bytes.Contains(data, n) {
				t.Errorf("the key (or its encoding %q) appears in %s", n, where)
			}
		}
	}
	leaks("an HTTP response", seen.Bytes())
	leaks("the log", []byte(logs.String()))
	err = filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if p == config.APITokenPath(home) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		leaks(p, data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"npm", "codex"} {
		data, err := os.ReadFile(filepath.Join(dumps, name))
		if err != nil {
			t.Fatalf("%s never ran: %v", name, err)
		}
		leaks("the environment of "+name, data)
		if !bytes.Contains(data, []byte("HOME=")) {
			t.Errorf("%s got no usable environment", name)
		}
	}
	if rec, err := os.ReadFile(acpEnv); err != nil || !bytes.Contains(rec, []byte(sentinel)) || bytes.Contains(rec, []byte(sentinel+"-ambient")) {
		t.Errorf("the ACP agent did not get exactly its own key (%v): %.300s", err, rec)
	}
	if !strings.Contains(seen.String(), "hi from ACP") {
		t.Errorf("the ACP agent's run did not answer: %s", seen.String()[max(0, strings.Index(seen.String(), "acp-keyed")-200):])
	}
	// The vault really holds it (encrypted): this test is not vacuous.
	if _, err := os.Stat(filepath.Join(home, "secrets", "runtime-keys.json")); err != nil {
		t.Fatal("no encrypted key file was written:", err)
	}
}
