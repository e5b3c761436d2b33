package vault

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/clawboo/desktop/backend/config"
)

// benchVault is a file vault holding every provider's key, with an
// OpenClaw .env beside it.
func benchVault(b *testing.B) *Vault {
	b.Helper()
	home := b.TempDir()
	state := filepath.Join(home, "oc")
	v, err := Open(Options{Home: home, Getenv: env{"HOME": home, "OPENCLAW_STATE_DIR": state}.get, ForceFile: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = v.Close() })
	for _, n := range config.ProviderEnvVars() {
		if err := v.Set(context.Background(), n, "sk-"+n); err != nil {
			b.Fatal(err)
		}
	}
	writeDotEnv(b, filepath.Join(state, ".env"), "CUSTOM_TOKEN=x\n")
	return v
}

func BenchmarkOpen(b *testing.B) {
	home := b.TempDir()
	for b.Loop() {
		v, err := Open(Options{Home: home, Getenv: env{}.get, ForceFile: true})
		if err != nil {
			b.Fatal(err)
		}
		_ = v.Close()
	}
}

func BenchmarkHas(b *testing.B) {
	v := benchVault(b)
	for b.Loop() {
		if !v.Has("OPENAI_API_KEY") {
			b.Fatal("missing")
		}
	}
}

func BenchmarkPresenceOpenClaw(b *testing.B) {
	v := benchVault(b)
	for b.Loop() {
		if v.Presence("clawboo-native", "CUSTOM_TOKEN") != SourceOpenClaw {
			b.Fatal("missing")
		}
	}
}

func BenchmarkGetFile(b *testing.B) {
	v := benchVault(b)
	for b.Loop() {
		if _, ok := v.Get(context.Background(), "OPENAI_API_KEY"); !ok {
			b.Fatal("missing")
		}
	}
}

func BenchmarkSetFile(b *testing.B) {
	v := benchVault(b)
	for b.Loop() {
		if err := v.Set(context.Background(), "OPENAI_API_KEY", "sk-new"); err != nil {
			b.Fatal(err)
		}
	}
}
