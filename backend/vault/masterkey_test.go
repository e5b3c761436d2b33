package vault

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMasterKeyValidForms(t *testing.T) {
	raw := bytes.Repeat([]byte{0xab}, 32)
	cases := []struct{ name, value string }{
		{"hex", hex.EncodeToString(raw)},
		{"hex upper, padded with spaces", "  " + strings.ToUpper(hex.EncodeToString(raw)) + "\n"},
		{"raw 32 characters", "0123456789abcdef0123456789ABCDEF"},
		{"base64", base64.StdEncoding.EncodeToString(raw)},
		{"base64 without padding", base64.RawStdEncoding.EncodeToString(raw)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k, err := parseMasterKey(tc.value)
			if err != nil || len(k) != 32 {
				t.Fatalf("refused: %v", err)
			}
			// and a vault under it round-trips a key
			v := openVault(t, t.TempDir(), env{EnvMasterKey: tc.value}, Options{ForceFile: true})
			mustSet(t, v, "OPENAI_API_KEY", sentinel)
			if s, ok := get(v, "OPENAI_API_KEY"); !ok || s != sentinel {
				t.Fatalf("round trip: %v", ok)
			}
			mustNotExist(t, filepath.Join(v.dir, masterKeyFile)) // the override is not written down
		})
	}
	// The order decides ambiguous values: 64 hex characters are hex, not base64.
	h := hex.EncodeToString(raw)
	if k, _ := parseMasterKey(h); !bytes.Equal(k, raw) {
		t.Fatal("64 hex characters must decode as hex")
	}
}

func TestMasterKeyInvalidFormsRefusedWithoutEcho(t *testing.T) {
	cases := []string{
		"short-secret-value",
		strings.Repeat("z", 64), // 64 characters, not hex, not 32 bytes of base64
		strings.Repeat("a", 31), // one short
		base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 31)),
		"   ",
		strings.Repeat("é", 17), // 34 bytes of UTF-8
	}
	for _, value := range cases {
		home := t.TempDir()
		_, err := Open(Options{Home: home, Getenv: env{EnvMasterKey: value}.get, ForceFile: true})
		if err == nil {
			t.Fatalf("%d-byte value accepted", len(value))
		}
		want := "CLAWBOO_SECRETS_MASTER_KEY must be a 32-byte key — supply it as base64, 64 hexadecimal characters, or a 32-character string"
		if err.Error() != want {
			t.Fatalf("message %q", err)
		}
		if trimmed := strings.TrimSpace(value); trimmed != "" && strings.Contains(err.Error(), trimmed) {
			t.Fatal("the error echoes the value")
		}
	}
}

func TestMasterKeyWrongKeyFailsClosed(t *testing.T) {
	home := t.TempDir()
	a := strings.Repeat("a", 32)
	b := strings.Repeat("b", 32)
	v1 := openVault(t, home, env{EnvMasterKey: a}, Options{ForceFile: true})
	mustSet(t, v1, "MISTRAL_API_KEY", sentinel)
	_ = v1.Close()

	v2 := openVault(t, home, env{EnvMasterKey: b}, Options{ForceFile: true})
	if s, ok := get(v2, "MISTRAL_API_KEY"); ok || s != "" {
		t.Fatalf("wrong key decrypted: %q", s)
	}
	if !v2.Has("MISTRAL_API_KEY") {
		t.Fatal("Has must still report the stored entry")
	}
	if s, src := v2.Resolve(t.Context(), "clawboo-native", "MISTRAL_API_KEY"); src != SourceNone || s != "" {
		t.Fatalf("Resolve with a wrong key: %q %q", s, src)
	}
}

func TestMasterKeyGeneratedOnceAndReused(t *testing.T) {
	home := t.TempDir()
	v1 := openVault(t, home, nil, Options{ForceFile: true})
	mustSet(t, v1, "GEMINI_API_KEY", sentinel)
	path := filepath.Join(home, "secrets", masterKeyFile)
	key1, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(key1))); err != nil || len(k) != 32 {
		t.Fatalf("master.key is not base64 of 32 bytes: %v", err)
	}
	mustSet(t, v1, "XAI_API_KEY", "xai-1")
	_ = v1.Close()

	v2 := openVault(t, home, nil, Options{ForceFile: true})
	if s, ok := get(v2, "GEMINI_API_KEY"); !ok || s != sentinel {
		t.Fatal("a new vault must read keys under the saved master key")
	}
	if key2, _ := os.ReadFile(path); !bytes.Equal(key1, key2) {
		t.Fatal("the master key changed")
	}
}

func TestMasterKeyLostFailsClosed(t *testing.T) {
	home := t.TempDir()
	v1 := openVault(t, home, nil, Options{ForceFile: true})
	mustSet(t, v1, "GEMINI_API_KEY", sentinel)
	_ = v1.Close()
	if err := os.Remove(filepath.Join(home, "secrets", masterKeyFile)); err != nil {
		t.Fatal(err)
	}
	v2 := openVault(t, home, nil, Options{ForceFile: true})
	if _, ok := get(v2, "GEMINI_API_KEY"); ok {
		t.Fatal("decrypted without the master key")
	}
	if !v2.Has("GEMINI_API_KEY") {
		t.Fatal("Has must still report the entry")
	}
	mustNotExist(t, filepath.Join(home, "secrets", masterKeyFile)) // a read never makes a key
}

func TestMasterKeyUnreadableFileFailsOpen(t *testing.T) {
	cases := []struct {
		name  string
		setup func(path string)
	}{
		{"not base64 of 32 bytes", func(p string) { _ = os.WriteFile(p, []byte("garbage"), 0o600) }},
		{"a directory", func(p string) { _ = os.Mkdir(p, 0o700) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			_ = os.MkdirAll(filepath.Join(home, "secrets"), 0o700)
			tc.setup(filepath.Join(home, "secrets", masterKeyFile))
			if _, err := Open(Options{Home: home, Getenv: env{}.get, ForceFile: true}); err == nil {
				t.Fatal("Open accepted an unreadable master key")
			}
		})
	}
}
