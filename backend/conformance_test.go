package backend

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/runtimes"
	"github.com/clawboo/desktop/backend/store"
)

// confBackend is a backend on home whose environment is exactly env.
func confBackend(t *testing.T, home string, env map[string]string) *Backend {
	t.Helper()
	env["HOME"], env[config.EnvVault] = home, "file"
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(home, getenv)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(context.Background(), Options{Config: cfg, Getenv: getenv, Environ: func() []string { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	return b
}

// runtimeEntry is id's entry in GET /api/runtimes.
func runtimeEntry(t *testing.T, b *Backend, id executor.ID) runtimes.Entry {
	t.Helper()
	var l runtimes.Listing
	if code := e2eDo(t, authed(b), "GET", "/api/runtimes", nil, &l); code != http.StatusOK {
		t.Fatalf("list runtimes: %d", code)
	}
	for _, e := range l.Runtimes {
		if e.ID == id {
			return e
		}
	}
	t.Fatalf("no %s in the listing", id)
	return runtimes.Entry{}
}

// TestOllamaConnectIsAKeylessNoOp (seed 002): connecting clawboo-native
// with provider "ollama" stores nothing, in the vault or anywhere else,
// and re-reports the state. Ollama is set up by OLLAMA_BASE_URL or the
// saved address (PUT /api/settings/ollama-base-url), a setting outside the
// vault that every reader sees and that survives a restart.
func TestOllamaConnectIsAKeylessNoOp(t *testing.T) {
	home := t.TempDir()
	b := confBackend(t, home, map[string]string{})
	h := authed(b)
	var res runtimes.ConnectResult
	if code := e2eDo(t, h, "POST", "/api/runtimes/clawboo-native/connect", map[string]any{"provider": "ollama"}, &res); code != http.StatusOK ||
		!res.OK || res.ConnectionState != runtimes.StateNeedsAuth {
		t.Fatalf("connect ollama: %d %+v", code, res)
	}
	if b.Vault.Has("OLLAMA_BASE_URL") {
		t.Fatal("connect put Ollama's URL in the secrets vault")
	}
	if _, err := b.Store.GetSetting(context.Background(), runtimes.SettingOllamaURL); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("connect saved a setting: %v", err)
	}
	if e := runtimeEntry(t, b, executor.Native); e.ConnectionState != runtimes.StateNeedsAuth || e.Health.OK {
		t.Fatalf("after connect: %s %+v", e.ConnectionState, e.Health)
	}

	// The saved address sets a local Ollama up with no variable.
	var saved struct {
		URL             *string
		ConnectionState runtimes.ConnectionState
	}
	if code := e2eDo(t, h, "PUT", "/api/settings/ollama-base-url", map[string]any{"url": "http://127.0.0.1:11434/"}, &saved); code != http.StatusOK ||
		saved.URL == nil || *saved.URL != "http://127.0.0.1:11434" || saved.ConnectionState != runtimes.StateReady {
		t.Fatalf("save: %d %+v", code, saved)
	}
	if code := e2eDo(t, h, "PUT", "/api/settings/ollama-base-url", map[string]any{"url": "file:///etc"}, nil); code != http.StatusBadRequest {
		t.Fatalf("a bad address: %d", code)
	}
	_ = b.Close(context.Background())

	b = confBackend(t, home, map[string]string{})
	if e := runtimeEntry(t, b, executor.Native); e.ConnectionState != runtimes.StateReady || !e.Health.OK {
		t.Fatalf("after a restart: %s %+v", e.ConnectionState, e.Health)
	}
	if !b.nativeReady() || b.Vault.Has("OLLAMA_BASE_URL") {
		t.Fatalf("native ready %v, vault holds the URL %v", b.nativeReady(), b.Vault.Has("OLLAMA_BASE_URL"))
	}
	var got struct{ URL *string }
	if code := e2eDo(t, authed(b), "GET", "/api/settings/ollama-base-url", nil, &got); code != http.StatusOK || got.URL == nil || *got.URL != "http://127.0.0.1:11434" {
		t.Fatalf("read back: %d %+v", code, got)
	}
}

// TestMockDeclaresSeed000 (seed 000): the mock the server offers has no
// worktrees, no resume and no steering; CLAWBOO_MOCK_WORKTREES=1 (exactly
// "1") is the explicit switch to the worktree mock tests and the demo use.
func TestMockDeclaresSeed000(t *testing.T) {
	for _, tc := range []struct {
		switchValue string
		worktrees   bool
	}{{"", false}, {"true", false}, {"1", true}} {
		b := confBackend(t, t.TempDir(), map[string]string{config.EnvEnableMock: "1", config.EnvMockWorktrees: tc.switchValue})
		c := runtimeEntry(t, b, executor.Mock).Capabilities
		if c.Worktrees != tc.worktrees || c.Resume || c.Steering || c.ModelChange {
			t.Fatalf("CLAWBOO_MOCK_WORKTREES=%q: %+v", tc.switchValue, c)
		}
		a, _ := b.Registry.Get(executor.Mock)
		if a.Capabilities().Worktrees != tc.worktrees {
			t.Fatalf("the registered mock disagrees with the listing: %+v", a.Capabilities())
		}
	}
}
