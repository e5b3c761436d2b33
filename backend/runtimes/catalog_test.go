package runtimes

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/adapters/mock"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/vault"
)

// world is a home folder, a PATH and an environment under the test's
// control, with the real vault (file backend), resolver and catalog on top.
type world struct {
	t       *testing.T
	home    string
	bin     string
	mu      sync.Mutex
	env     map[string]string
	vault   *vault.Vault
	res     *proc.Resolver
	cat     *Catalog
	changes int
	// ollama is the saved Ollama address, overlaid on the environment the
	// vault and the catalog read, as the composition root does.
	ollama *OllamaURL
	saved  string // what ollama last saved
}

func newWorld(t *testing.T) *world {
	t.Helper()
	home := t.TempDir()
	w := &world{t: t, home: home, bin: filepath.Join(home, "bin")}
	// PATH holds the test's fake programs and a few shell tools, and never
	// the machine's own npm, pipx or python.
	tools := filepath.Join(home, "tools")
	w.env = map[string]string{"HOME": home, "PATH": w.bin + ":" + tools}
	for _, d := range []string{w.bin, tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range []string{"mkdir", "chmod", "sleep", "env", "cat"} {
		for _, dir := range []string{"/usr/bin", "/bin"} {
			if _, err := os.Stat(filepath.Join(dir, tool)); err == nil {
				_ = os.Symlink(filepath.Join(dir, tool), filepath.Join(tools, tool))
				break
			}
		}
	}
	w.ollama = NewOllamaURL("", func(_ context.Context, url string) error { w.mu.Lock(); w.saved = url; w.mu.Unlock(); return nil })
	getenv := w.ollama.Getenv(w.getenv)
	v, err := vault.Open(vault.Options{Home: home, Getenv: getenv, ForceFile: true})
	if err != nil {
		t.Fatal(err)
	}
	w.vault = v
	w.res = proc.NewResolver(proc.ResolverOptions{Getenv: w.getenv, NoWatch: true})
	reg := executor.NewRegistry()
	_ = reg.Register(mock.New())
	w.cat = NewCatalog(Options{
		Registry: reg, Vault: v, Resolver: w.res, Getenv: getenv, EnableMock: true, Ollama: w.ollama,
		Environ:       w.environ,
		OnChange:      func() { w.mu.Lock(); w.changes++; w.mu.Unlock() },
		HealthTimeout: 500 * time.Millisecond,
	})
	t.Cleanup(func() { v.Close() })
	return w
}

func (w *world) getenv(k string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.env[k]
}

func (w *world) setenv(k, v string) {
	w.mu.Lock()
	w.env[k] = v
	w.mu.Unlock()
}

func (w *world) environ() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for k, v := range w.env {
		out = append(out, k+"="+v)
	}
	return out
}

// program writes an executable shell script into dir (PATH's first folder
// when dir is empty) and drops the resolver's cache.
func (w *world) program(dir, name, body string) string {
	w.t.Helper()
	if dir == "" {
		dir = w.bin
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		w.t.Fatal(err)
	}
	w.res.Invalidate()
	return p
}

func (w *world) entry(id executor.ID) Entry {
	w.t.Helper()
	e, ok := w.cat.Entry(context.Background(), id)
	if !ok {
		w.t.Fatalf("no entry %s", id)
	}
	return e
}

func TestDeriveState(t *testing.T) {
	cases := []struct {
		installed bool
		kind      AuthKind
		cred, in  bool
		want      ConnectionState
	}{
		{false, AuthAPIKey, true, true, StateNotInstalled},
		{true, AuthNone, false, false, StateReady},
		{true, AuthAPIKey, false, false, StateNeedsAuth},
		{true, AuthAPIKey, true, false, StateReady},
		{true, AuthOAuth, true, false, StateNeedsLogin},
		{true, AuthOAuth, false, true, StateReady},
	}
	for _, c := range cases {
		if got := DeriveState(c.installed, c.kind, c.cred, c.in); got != c.want {
			t.Errorf("%+v: got %s", c, got)
		}
	}
}

func TestListingFreshMachine(t *testing.T) {
	w := newWorld(t)
	l := w.cat.List(context.Background())
	want := map[executor.ID]ConnectionState{
		executor.ClaudeCode: StateNotInstalled, executor.Codex: StateNotInstalled, executor.Hermes: StateNotInstalled,
		executor.Native: StateNeedsAuth, executor.Mock: StateReady,
	}
	for _, d := range ACPDescriptors() { // listed whether installed or not
		want[d.ID] = StateNotInstalled
	}
	if len(l.Runtimes) != len(want) {
		t.Fatalf("%d runtimes", len(l.Runtimes))
	}
	for _, e := range l.Runtimes {
		if e.ConnectionState != want[e.ID] {
			t.Errorf("%s: %s, want %s", e.ID, e.ConnectionState, want[e.ID])
		}
		if e.ID == executor.Native && (!e.Installed || e.BinPath != nil || e.Health.OK || len(e.Keys) != 11) {
			t.Errorf("native %+v", e)
		}
		if e.ID == executor.ClaudeCode && (e.Health.OK || !strings.Contains(e.Health.Message, "claude not found") || e.CanRun) {
			t.Errorf("claude %+v", e)
		}
		if e.Capabilities.Models == nil {
			t.Errorf("%s: nil models", e.ID)
		}
	}
	for _, d := range l.Available {
		if d.ID == executor.Mock || d.ID == executor.OpenClaw {
			t.Fatalf("%s listed as available", d.ID)
		}
	}
	if len(l.Available) != 4+len(ACPDescriptors()) || l.Vault.Backend != "file" {
		t.Fatalf("%+v %+v", l.Available, l.Vault)
	}
}

func TestInstalledFromPathAndUserFolders(t *testing.T) {
	w := newWorld(t)
	claude := w.program("", "claude", "exit 0")
	// Hermes lands in the pip --user / pipx folder, which is not on PATH.
	hermes := w.program(filepath.Join(w.home, ".local", "bin"), "hermes", "exit 0")
	if e := w.entry(executor.ClaudeCode); !e.Installed || *e.BinPath != claude || e.ConnectionState != StateNeedsAuth || !e.Health.OK {
		t.Fatalf("%+v", e)
	}
	if e := w.entry(executor.Hermes); !e.Installed || *e.BinPath != hermes || e.ConnectionState != StateNeedsAuth {
		t.Fatalf("%+v", e)
	}
}

func TestCredentialSources(t *testing.T) {
	w := newWorld(t)
	w.program("", "claude", "exit 0")
	ctx := context.Background()
	w.setenv("ANTHROPIC_API_KEY", "sk-from-env")
	if e := w.entry(executor.ClaudeCode); e.ConnectionState != StateReady || *e.CredentialSource != "env" {
		t.Fatalf("%+v", e)
	}
	w.setenv("ANTHROPIC_API_KEY", "")
	if err := os.MkdirAll(filepath.Join(w.home, ".openclaw"), 0o700); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(w.home, ".openclaw", ".env"), []byte("ANTHROPIC_API_KEY=sk-from-openclaw\n"), 0o600)
	if e := w.entry(executor.ClaudeCode); e.ConnectionState != StateReady || *e.CredentialSource != "openclaw" {
		t.Fatalf("%+v", e)
	}
	if _, err := w.cat.Connect(ctx, executor.ClaudeCode, "sk-from-vault", ""); err != nil {
		t.Fatal(err)
	}
	if e := w.entry(executor.ClaudeCode); *e.CredentialSource != "vault" {
		t.Fatalf("%+v", e)
	}
	// Ollama counts for the native runtime once its base URL is set.
	w.setenv("OLLAMA_BASE_URL", "http://127.0.0.1:1")
	for _, k := range w.entry(executor.Native).Keys {
		if k.ID == "ollama" && (!k.Connected || !k.Keyless || k.EnvVar != nil) {
			t.Fatalf("%+v", k)
		}
	}
}

func TestCodexLoginFromCredentialFile(t *testing.T) {
	w := newWorld(t)
	w.program("", "codex", `[ "$1 $2" = "login status" ] && exit 0; exit 3`)
	ctx := context.Background()
	if e := w.entry(executor.Codex); e.ConnectionState != StateNeedsLogin || e.LoggedIn || *e.LoginCommand != "codex login" {
		t.Fatalf("%+v", e)
	}
	dir := filepath.Join(w.home, ".codex")
	_ = os.MkdirAll(dir, 0o700)
	auth := filepath.Join(dir, "auth.json")
	for _, tc := range []struct {
		body string
		want bool
	}{
		{`{"OPENAI_API_KEY": null, "tokens": null}`, false},
		{`not json`, false},
		{`{"OPENAI_API_KEY": "sk-x"}`, true},
		{`{"OPENAI_API_KEY": null, "tokens": {"id_token": "a", "access_token": "b"}}`, true},
	} {
		if err := os.WriteFile(auth, []byte(tc.body), 0o600); err != nil {
			t.Fatal(err)
		}
		// Same size, new time: the cache must still notice.
		_ = os.Chtimes(auth, time.Now(), time.Now().Add(time.Duration(len(tc.body))*time.Second))
		if e := w.entry(executor.Codex); e.LoggedIn != tc.want {
			t.Fatalf("%s: loggedIn %v", tc.body, e.LoggedIn)
		}
	}
	// CODEX_HOME moves the file.
	w.setenv("CODEX_HOME", t.TempDir())
	if e := w.entry(executor.Codex); e.LoggedIn {
		t.Fatal("logged in from the wrong home")
	}
	// A re-check asks the CLI, which says yes.
	w.cat.Recheck(ctx, executor.Codex)
	if e := w.entry(executor.Codex); !e.LoggedIn || e.ConnectionState != StateReady || *e.CredentialSource != "login" {
		t.Fatalf("%+v", e)
	}
	// Codex never reaches ready from a pasted key.
	if r, err := w.cat.Connect(ctx, executor.Codex, "sk-x", ""); err != nil || r.LoginCommand == nil {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestListingNeverCarriesASecret(t *testing.T) {
	w := newWorld(t)
	const sentinel = "sk-ant-SENTINEL-listing-4242"
	w.program("", "claude", "exit 0")
	if _, err := w.cat.Connect(context.Background(), executor.ClaudeCode, sentinel, ""); err != nil {
		t.Fatal(err)
	}
	w.setenv("OPENAI_API_KEY", sentinel+"-env")
	b, _ := json.Marshal(w.cat.List(context.Background()))
	if strings.Contains(string(b), "SENTINEL") {
		t.Fatalf("secret in listing: %s", b)
	}
}
