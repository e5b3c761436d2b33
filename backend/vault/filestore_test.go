package vault

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const sentinel = "sk-ant-SENTINEL-0123456789abcdefghijklmnopqrstuvwxyz"

// scanHome fails if any byte sequence in needles occurs in any file under home.
func scanHome(t *testing.T, home string, needles ...string) {
	t.Helper()
	err := filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, n := range needles {
			if bytes.Contains(data, []byte(n)) {
				t.Errorf("%s contains %q", p, n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readEntries(t *testing.T, home string) map[string]map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(home, "secrets", keysFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]string
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func writeEntries(t *testing.T, home string, m any) {
	t.Helper()
	data, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(home, "secrets", keysFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestFileCiphertextOnlyOnDisk(t *testing.T) {
	v, home := fileVault(t, nil)
	mustSet(t, v, "ANTHROPIC_API_KEY", sentinel)
	if s, ok := get(v, "ANTHROPIC_API_KEY"); !ok || s != sentinel {
		t.Fatalf("round trip: %q %v", s, ok)
	}
	e := readEntries(t, home)["ANTHROPIC_API_KEY"]
	iv, _ := base64.StdEncoding.DecodeString(e["iv"])
	tag, _ := base64.StdEncoding.DecodeString(e["tag"])
	if len(iv) != 12 || len(tag) != 16 || e["ciphertext"] == "" {
		t.Fatalf("entry shape: iv %d bytes, tag %d bytes, %v", len(iv), len(tag), e)
	}
	b64 := base64.StdEncoding.EncodeToString([]byte(sentinel))
	scanHome(t, home, sentinel, b64, b64[:len(b64)-4], "SENTINEL")
}

func TestFileFreshNoncePerWrite(t *testing.T) {
	v, home := fileVault(t, nil)
	mustSet(t, v, "OPENAI_API_KEY", sentinel)
	first := readEntries(t, home)["OPENAI_API_KEY"]
	mustSet(t, v, "OPENAI_API_KEY", sentinel)
	second := readEntries(t, home)["OPENAI_API_KEY"]
	if first["iv"] == second["iv"] || first["ciphertext"] == second["ciphertext"] {
		t.Fatal("the same secret written twice must get a fresh nonce")
	}
}

func TestFileTamperFailsClosed(t *testing.T) {
	flip := func(s string, i int) string {
		b, _ := base64.StdEncoding.DecodeString(s)
		b[i%len(b)] ^= 0x01
		return base64.StdEncoding.EncodeToString(b)
	}
	cases := []struct {
		name   string
		mutate func(e map[string]string)
		has    bool // a well-formed but wrong entry still counts as present
	}{
		{"ciphertext byte", func(e map[string]string) { e["ciphertext"] = flip(e["ciphertext"], 3) }, true},
		{"tag byte", func(e map[string]string) { e["tag"] = flip(e["tag"], 15) }, true},
		{"iv byte", func(e map[string]string) { e["iv"] = flip(e["iv"], 0) }, true},
		{"truncated tag", func(e map[string]string) {
			b, _ := base64.StdEncoding.DecodeString(e["tag"])
			e["tag"] = base64.StdEncoding.EncodeToString(b[:12])
		}, false},
		{"short iv", func(e map[string]string) {
			b, _ := base64.StdEncoding.DecodeString(e["iv"])
			e["iv"] = base64.StdEncoding.EncodeToString(b[:8])
		}, false},
		{"not base64", func(e map[string]string) { e["ciphertext"] = "%%%" }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, home := fileVault(t, nil)
			mustSet(t, v, "ANTHROPIC_API_KEY", sentinel)
			m := readEntries(t, home)
			tc.mutate(m["ANTHROPIC_API_KEY"])
			writeEntries(t, home, m)
			if s, ok := get(v, "ANTHROPIC_API_KEY"); ok || s != "" {
				t.Fatalf("tampered entry decrypted: %q %v", s, ok)
			}
			if got := v.Has("ANTHROPIC_API_KEY"); got != tc.has {
				t.Fatalf("Has = %v, want %v", got, tc.has)
			}
		})
	}
}

func TestFileOtherShapesIgnoredAndKept(t *testing.T) {
	v, home := fileVault(t, nil)
	mustSet(t, v, "ANTHROPIC_API_KEY", sentinel)
	m := map[string]any{}
	data, _ := os.ReadFile(filepath.Join(home, "secrets", keysFile))
	_ = json.Unmarshal(data, &m)
	m["WEIRD"] = "a string"
	m["NUMBERS"] = map[string]any{"iv": 1, "tag": 2, "ciphertext": 3}
	writeEntries(t, home, m)
	if v.Has("WEIRD") || v.Has("NUMBERS") {
		t.Fatal("entries of another shape must be ignored")
	}
	mustSet(t, v, "OPENAI_API_KEY", "sk-openai")
	after := map[string]any{}
	data, _ = os.ReadFile(filepath.Join(home, "secrets", keysFile))
	_ = json.Unmarshal(data, &after)
	if after["WEIRD"] != "a string" || after["NUMBERS"] == nil {
		t.Fatalf("a write dropped entries it does not understand: %v", after)
	}
}

func TestFileReadsReferenceEntries(t *testing.T) {
	// An entry sealed the way the reference does (Node's aes-256-gcm with
	// a separate tag) must decrypt here.
	key := bytes.Repeat([]byte{7}, 32)
	block, _ := aes.NewCipher(key)
	gcm, _ := cipher.NewGCM(block)
	iv := bytes.Repeat([]byte{9}, 12)
	out := gcm.Seal(nil, iv, []byte("sk-from-node"), nil)
	b64 := base64.StdEncoding.EncodeToString
	home := t.TempDir()
	_ = os.MkdirAll(filepath.Join(home, "secrets"), 0o700)
	writeEntries(t, home, map[string]any{"XAI_API_KEY": map[string]string{
		"iv": b64(iv), "tag": b64(out[len(out)-16:]), "ciphertext": b64(out[:len(out)-16]),
	}})
	v := openVault(t, home, env{EnvMasterKey: b64(key)}, Options{ForceFile: true})
	if s, ok := get(v, "XAI_API_KEY"); !ok || s != "sk-from-node" {
		t.Fatalf("got %q %v", s, ok)
	}
}

func TestFileModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	home := t.TempDir()
	secrets := filepath.Join(home, "secrets")
	_ = os.MkdirAll(secrets, 0o755) // too open: the first write must tighten it
	v := openVault(t, home, nil, Options{ForceFile: true})
	mustSet(t, v, "GROQ_API_KEY", "gsk-1")
	if err := v.SetDisconnected("claude-code", true); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, secrets); m != 0o700 {
		t.Errorf("secrets dir mode %o, want 700", m)
	}
	for _, f := range []string{keysFile, masterKeyFile, disconnectedFile} {
		if m := mode(t, filepath.Join(secrets, f)); m != 0o600 {
			t.Errorf("%s mode %o, want 600", f, m)
		}
	}
}

func TestFileNothingWrittenUntilFirstWrite(t *testing.T) {
	v, home := fileVault(t, nil)
	_, _ = get(v, "ANTHROPIC_API_KEY")
	_ = v.Delete(context.Background(), "ANTHROPIC_API_KEY")
	_ = v.SetDisconnected("codex", false)
	_ = v.Presence("codex", "ANTHROPIC_API_KEY")
	mustNotExist(t, filepath.Join(home, "secrets"))
}

func TestFileCorruptRefusedOnWriteNothingLost(t *testing.T) {
	for _, content := range []string{"{not json", `["a list"]`, "null", "\x00\x01garbage"} {
		t.Run(strings.ToValidUTF8(content, "?"), func(t *testing.T) {
			v, home := fileVault(t, nil)
			mustSet(t, v, "ANTHROPIC_API_KEY", sentinel)
			path := filepath.Join(home, "secrets", keysFile)
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, ok := get(v, "ANTHROPIC_API_KEY"); ok || v.Has("ANTHROPIC_API_KEY") {
				t.Fatal("an unparseable file counts as empty for reads")
			}
			for _, op := range []func() error{
				func() error { return v.Set(context.Background(), "OPENAI_API_KEY", "sk-2") },
				func() error { return v.Delete(context.Background(), "ANTHROPIC_API_KEY") },
			} {
				err := op()
				if err == nil || !errors.Is(err, errUnparseable) || !strings.Contains(err.Error(), "refusing to overwrite") {
					t.Fatalf("write over a corrupt file: %v", err)
				}
			}
			if got, _ := os.ReadFile(path); string(got) != content {
				t.Fatalf("the corrupt file was changed: %q", got)
			}
		})
	}
}

func TestFileDeleteMissingIsNotAnError(t *testing.T) {
	v, _ := fileVault(t, nil)
	mustSet(t, v, "ANTHROPIC_API_KEY", sentinel)
	for range 2 {
		if err := v.Delete(context.Background(), "ANTHROPIC_API_KEY"); err != nil {
			t.Fatal(err)
		}
	}
	if v.Has("ANTHROPIC_API_KEY") {
		t.Fatal("deleted key still present")
	}
	if err := v.Delete(context.Background(), "NEVER_STORED"); err != nil {
		t.Fatal(err)
	}
}
