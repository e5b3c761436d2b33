package runtimes

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/vault"
)

func userErr(t *testing.T, err error, status int, msg string) {
	t.Helper()
	var ue *UserError
	if !errors.As(err, &ue) || ue.Status != status || ue.Msg != msg {
		t.Fatalf("got %v, want %d %q", err, status, msg)
	}
}

func TestConnectRefusals(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	_, err := w.cat.Connect(ctx, executor.ClaudeCode, "   ", "")
	userErr(t, err, http.StatusBadRequest, "apiKey is required")
	_, err = w.cat.Connect(ctx, executor.Native, "k", "bogus")
	userErr(t, err, http.StatusBadRequest, "unknown provider 'bogus'")
	_, err = w.cat.Connect(ctx, executor.ClaudeCode, "k", "openai")
	userErr(t, err, http.StatusBadRequest, "runtime 'claude-code' does not use OpenAI keys")
	_, err = w.cat.Connect(ctx, executor.Native, "", "groq")
	userErr(t, err, http.StatusBadRequest, "no existing key found for groq — paste one to connect")
	var ue *UserError
	if _, err := w.cat.Connect(ctx, executor.ClaudeCode, "sk-\x00nul", ""); !errors.As(err, &ue) || ue.Status != 400 || strings.Contains(ue.Msg, "nul") {
		t.Fatalf("a key with a control character: %v", err)
	}
	if _, err := w.cat.Connect(ctx, "openclaw", "k", ""); !errors.Is(err, ErrUnknownRuntime) {
		t.Fatal(err)
	}
	if _, err := w.cat.Disconnect(ctx, "nope"); !errors.Is(err, ErrUnknownRuntime) {
		t.Fatal(err)
	}
}

func TestConnectRoutesNativeProvidersToTheirSlots(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	cases := []struct{ provider, slot string }{
		{"", "ANTHROPIC_API_KEY"},
		{"anthropic", "ANTHROPIC_API_KEY"},
		{"openai", "OPENAI_API_KEY"},
		{"openrouter", "OPENROUTER_API_KEY"},
		{"groq", "GROQ_API_KEY"},
		{"moonshot", "MOONSHOT_API_KEY"},
	}
	for _, tc := range cases {
		res, err := w.cat.Connect(ctx, executor.Native, "  key-for-"+tc.slot+"  ", tc.provider)
		if err != nil || !res.OK || res.ConnectionState != StateReady {
			t.Fatalf("%s: %+v %v", tc.provider, res, err)
		}
		got, ok := w.vault.Get(ctx, tc.slot)
		if !ok || got != "key-for-"+tc.slot {
			t.Fatalf("%s: slot %s holds %q", tc.provider, tc.slot, got)
		}
	}
	// Ollama is keyless: nothing is stored (TestOllamaConnectIsTheSeedsNoOp).
	if res, err := w.cat.Connect(ctx, executor.Native, "", "ollama"); err != nil || !res.OK || w.vault.Has("OLLAMA_BASE_URL") {
		t.Fatalf("%+v %v", res, err)
	}
	// Hermes takes its own slot and its alternates only.
	if _, err := w.cat.Connect(ctx, executor.Hermes, "or-key", ""); err != nil {
		t.Fatal(err)
	}
	if v, _ := w.vault.Get(ctx, "OPENROUTER_API_KEY"); v != "or-key" {
		t.Fatal(v)
	}
}

func TestConnectReusesAnAmbientKey(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.setenv("GROQ_API_KEY", "gsk-ambient")
	if _, err := w.cat.Connect(ctx, executor.Native, "", "groq"); err != nil {
		t.Fatal(err)
	}
	w.setenv("GROQ_API_KEY", "")
	if v, ok := w.vault.Get(ctx, "GROQ_API_KEY"); !ok || v != "gsk-ambient" {
		t.Fatalf("%q %v", v, ok)
	}
}

func TestDisconnectBeatsAmbientKeysUntilTheNextConnect(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.program("", "claude", "exit 0")
	w.setenv("ANTHROPIC_API_KEY", "sk-ambient")
	if _, err := w.cat.Connect(ctx, executor.ClaudeCode, "sk-stored", ""); err != nil {
		t.Fatal(err)
	}
	res, err := w.cat.Disconnect(ctx, executor.ClaudeCode)
	if err != nil || res.ConnectionState != StateNeedsAuth {
		t.Fatalf("%+v %v", res, err)
	}
	if w.vault.Has("ANTHROPIC_API_KEY") {
		t.Fatal("key still stored")
	}
	if v, src := w.vault.Resolve(ctx, string(executor.ClaudeCode), "ANTHROPIC_API_KEY"); src != "" || v != "" {
		t.Fatalf("disconnected runtime resolved %q from %s", v, src)
	}
	if e := w.entry(executor.ClaudeCode); !e.Disconnected || e.HasCredential || !e.Installed {
		t.Fatalf("%+v", e)
	}
	// Another runtime is not affected by claude-code's disconnect.
	if _, src := w.vault.Resolve(ctx, string(executor.Hermes), "ANTHROPIC_API_KEY"); src != vault.Source("env") {
		t.Fatal(src)
	}
	if _, err := w.cat.Connect(ctx, executor.ClaudeCode, "sk-new", ""); err != nil {
		t.Fatal(err)
	}
	if e := w.entry(executor.ClaudeCode); e.Disconnected || e.ConnectionState != StateReady {
		t.Fatalf("%+v", e)
	}
	// Codex has no slot: disconnect re-reports its state.
	if res, err := w.cat.Disconnect(ctx, executor.Codex); err != nil || res.ConnectionState != StateNotInstalled {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestConnectSaysWhenTheEnvironmentShadowsThePastedKey(t *testing.T) {
	w := newWorld(t)
	w.program("", "claude", "exit 0")
	w.setenv("ANTHROPIC_API_KEY", "sk-env")
	res, err := w.cat.Connect(context.Background(), executor.ClaudeCode, "sk-pasted", "")
	if err != nil || !strings.Contains(res.Warning, "ANTHROPIC_API_KEY is also set in Clawboo's environment") {
		t.Fatalf("%+v %v", res, err)
	}
	w.setenv("ANTHROPIC_API_KEY", "")
	if res, _ := w.cat.Connect(context.Background(), executor.ClaudeCode, "sk-pasted", ""); res.Warning != "" {
		t.Fatal(res.Warning)
	}
}
