package runtimes

import (
	"context"
	"errors"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
)

func (w *world) ollamaKey() ProviderStatus {
	w.t.Helper()
	for _, k := range w.entry(executor.Native).Keys {
		if k.ID == "ollama" {
			return k
		}
	}
	w.t.Fatal("no ollama slot")
	return ProviderStatus{}
}

// TestOllamaConnectIsTheSeedsNoOp: seed 002's connect with provider
// "ollama" stores nothing (no vault slot, no setting) and re-reports the
// state, which stays needs-auth while nothing sets Ollama up.
func TestOllamaConnectIsTheSeedsNoOp(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	before := w.entry(executor.Native).ConnectionState
	res, err := w.cat.Connect(ctx, executor.Native, "", "ollama")
	if err != nil || !res.OK || res.ConnectionState != before || before != StateNeedsAuth {
		t.Fatalf("connect %+v %v (state before %s)", res, err, before)
	}
	if w.vault.Has("OLLAMA_BASE_URL") || w.ollama.Get() != "" || w.saved != "" {
		t.Fatalf("connect stored something: vault %v, setting %q", w.vault.Has("OLLAMA_BASE_URL"), w.ollama.Get())
	}
	if k := w.ollamaKey(); k.Connected {
		t.Fatalf("connect alone set Ollama up: %+v", k)
	}
	// With OLLAMA_BASE_URL set it re-reports ready, still storing nothing.
	w.setenv("OLLAMA_BASE_URL", "http://127.0.0.1:9")
	if res, err := w.cat.Connect(ctx, executor.Native, "", "ollama"); err != nil || res.ConnectionState != StateReady || w.vault.Has("OLLAMA_BASE_URL") {
		t.Fatalf("%+v %v", res, err)
	}
}

// TestOllamaIsSetUpByItsVariableOrTheSetting: a saved address (outside the
// vault) connects a local Ollama with no variable set; the environment
// wins over it; a Disconnect silences both until the next Connect, which
// again stores nothing.
func TestOllamaIsSetUpByItsVariableOrTheSetting(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	for _, bad := range []string{"localhost:11434", "ftp://h", "http://", "http://u:p@h:1"} {
		var ue *UserError
		if _, err := w.cat.SetOllamaURL(ctx, bad); !errors.As(err, &ue) || ue.Status != 400 {
			t.Fatalf("%q: %v", bad, err)
		}
	}
	state, err := w.cat.SetOllamaURL(ctx, " http://localhost:11434/ ")
	if err != nil || state != StateReady || w.saved != "http://localhost:11434" || w.cat.OllamaURL() != w.saved {
		t.Fatalf("%s %v saved %q", state, err, w.saved)
	}
	if k := w.ollamaKey(); !k.Connected || w.vault.Has("OLLAMA_BASE_URL") {
		t.Fatalf("%+v", k)
	}
	getenv := w.ollama.Getenv(w.getenv)
	if v := getenv("OLLAMA_BASE_URL"); v != "http://localhost:11434" {
		t.Fatalf("overlay %q", v)
	}
	w.setenv("OLLAMA_BASE_URL", "http://127.0.0.1:9")
	if v := getenv("OLLAMA_BASE_URL"); v != "http://127.0.0.1:9" {
		t.Fatalf("the environment must win: %q", v)
	}
	w.setenv("OLLAMA_BASE_URL", "")

	if _, err := w.cat.Disconnect(ctx, executor.Native); err != nil {
		t.Fatal(err)
	}
	if k := w.ollamaKey(); k.Connected || w.entry(executor.Native).ConnectionState != StateNeedsAuth {
		t.Fatalf("disconnect did not stick: %+v", k)
	}
	res, err := w.cat.Connect(ctx, executor.Native, "", "ollama")
	if err != nil || res.ConnectionState != StateReady || w.vault.Has("OLLAMA_BASE_URL") {
		t.Fatalf("reconnect %+v %v", res, err)
	}
	if state, err := w.cat.SetOllamaURL(ctx, ""); err != nil || state != StateNeedsAuth || w.saved != "" {
		t.Fatalf("clear: %s %v", state, err)
	}
}

// TestOllamaMovesOutOfTheVault: an address an older Connect kept among the
// secrets becomes the setting, and the vault forgets it.
func TestOllamaMovesOutOfTheVault(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	if err := w.vault.Set(ctx, "OLLAMA_BASE_URL", "http://localhost:11434"); err != nil {
		t.Fatal(err)
	}
	if err := MoveOllamaOutOfVault(ctx, w.vault, w.ollama); err != nil {
		t.Fatal(err)
	}
	if w.vault.Has("OLLAMA_BASE_URL") || w.ollama.Get() != "http://localhost:11434" {
		t.Fatalf("vault %v, setting %q", w.vault.Has("OLLAMA_BASE_URL"), w.ollama.Get())
	}
	if k := w.ollamaKey(); !k.Connected {
		t.Fatalf("%+v", k)
	}
}
