package vault

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"
)

// A minted secret that is stored but cannot be read is an error, not a
// reason to mint a new one (moved from the MCP token's test).
func TestMintedNeverReplacesAnUnreadableSecret(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	open := func(key string) *Vault {
		env := map[string]string{EnvMasterKey: key}
		v, err := Open(Options{Home: home, Getenv: func(k string) string { return env[k] }, ForceFile: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { v.Close() })
		return v
	}
	mint := func() (string, error) {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		return base64.RawURLEncoding.EncodeToString(b), nil
	}
	const name = "CLAWBOO_MCP_TOKEN"
	v := open(strings.Repeat("a", 64))
	first, err := v.Minted(ctx, name, mint)
	if err != nil || len(first) != 43 {
		t.Fatal(first, err)
	}
	if again, err := v.Minted(ctx, name, mint); err != nil || again != first {
		t.Fatal(again, err)
	}
	if _, err := open(strings.Repeat("b", 64)).Minted(ctx, name, mint); err == nil || strings.Contains(err.Error(), first) {
		t.Fatalf("an unreadable token was replaced: %v", err)
	}
	if got, _ := open(strings.Repeat("a", 64)).Get(ctx, name); got != first {
		t.Fatal("the stored token changed")
	}
}
