//go:build keyring_it

// The real Secret Service, under a private bus (make test-keyring):
//
//	dbus-run-session -- sh -c 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; go test -tags keyring_it -count=1 -run Keyring ./backend/vault/'
//
// Every keychain call is bounded by the vault itself and every child
// process by a context, so a locked keyring fails the test, never hangs it.

package vault

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zalando/go-keyring"
)

const itChildEnv = "CLAWBOO_VAULT_IT_CHILD"

// realEnv is the process environment with HOME moved into the test folder,
// so no real ~/.openclaw is read.
func realEnv(home string) func(string) string {
	return func(k string) string {
		if k == "HOME" {
			return filepath.Join(home, "userhome")
		}
		return os.Getenv(k)
	}
}

func secretTool(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "secret-tool", args...).Output()
	return string(out), err
}

func openReal(t *testing.T, home string) *Vault {
	t.Helper()
	v, err := Open(Options{Home: home, Getenv: realEnv(home)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Close() })
	return v
}

func TestKeyringITSecretService(t *testing.T) {
	if os.Getenv(itChildEnv) != "" {
		t.Skip("parent-only")
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		t.Fatal("run under dbus-run-session with an unlocked gnome-keyring (make test-keyring)")
	}
	name := "CLAWBOO_IT_" + strings.ToUpper(randomHex(4))
	t.Cleanup(func() { // bounded: the keyring must not hang the cleanup
		done := make(chan struct{})
		go func() { _ = keyring.Delete(keychainService, name); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
	})
	home := t.TempDir()
	start := time.Now()
	v := openReal(t, home)
	opened := time.Since(start)
	st := waitDecided(t, v, 10*time.Second)
	t.Logf("Open %s, probe decided after %s", opened, time.Since(start))
	if st.Backend != BackendKeychain {
		t.Fatalf("the unlocked gnome-keyring was not used: %+v", st)
	}

	const rounds = 20
	start = time.Now()
	for range rounds {
		mustSet(t, v, name, sentinel)
	}
	setAvg := time.Since(start) / rounds
	start = time.Now()
	for range rounds {
		if s, ok := get(v, name); !ok || s != sentinel {
			t.Fatalf("Get: %v", ok)
		}
	}
	getAvg := time.Since(start) / rounds
	start = time.Now()
	for range 1000 {
		if !v.Has(name) {
			t.Fatal("Has")
		}
	}
	t.Logf("keychain: Set %s, Get %s, Has %s (averages)", setAvg, getAvg, time.Since(start)/1000)

	out, err := secretTool(t, "lookup", "service", keychainService, "username", name)
	if err != nil || out != sentinel {
		t.Fatalf("secret-tool lookup: %q (%v)", out, err)
	}
	mustNotExist(t, filepath.Join(home, "secrets", keysFile))
	mustNotExist(t, filepath.Join(home, "secrets", masterKeyFile))
	scanHome(t, home, sentinel)

	// The next start knows the key is there before the probe is done.
	_ = v.Close()
	v2 := openReal(t, home)
	if !v2.Has(name) {
		t.Fatal("presence must come from the index at start")
	}
	if s, ok := get(v2, name); !ok || s != sentinel {
		t.Fatal("a second vault cannot read the key")
	}
	if err := v2.Delete(t.Context(), name); err != nil {
		t.Fatal(err)
	}
	if out, _ := secretTool(t, "lookup", "service", keychainService, "username", name); out != "" {
		t.Fatal("Delete left the item in the keychain")
	}
	if out, _ := secretTool(t, "search", "--all", "service", keychainService); strings.Contains(out, "clawboo-probe-") {
		t.Fatalf("a probe canary was left in the keychain:\n%s", out)
	}
}

// runChild re-runs one test in a fresh process with env changes: godbus
// caches its session bus connection process-wide, so a no-bus case cannot
// share a process with a bus case.
func runChild(t *testing.T, test string, set map[string]string, unset ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run", "^"+test+"$", "-test.count=1", "-test.v")
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, replaced := set[k]; !replaced && !slices.Contains(unset, k) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, val := range set {
		cmd.Env = append(cmd.Env, k+"="+val)
	}
	cmd.Env = append(cmd.Env, itChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("child %s:\n%s", test, out)
	if err != nil || !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("child %s failed: %v", test, err)
	}
}

func TestKeyringITNoBusFallsBackToFile(t *testing.T) {
	if os.Getenv(itChildEnv) == "" {
		runChild(t, "TestKeyringITNoBusFallsBackToFile", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"})
		return
	}
	fileRoundTrip(t, "the D-Bus session bus cannot be reached")
}

func TestKeyringITNoBusAddressNeverAutolaunches(t *testing.T) {
	if os.Getenv(itChildEnv) == "" {
		if sessionBusMissing(func(string) string { return "" }) == nil {
			t.Skip("this machine has a per-user bus socket")
		}
		runChild(t, "TestKeyringITNoBusAddressNeverAutolaunches", nil, "DBUS_SESSION_BUS_ADDRESS")
		return
	}
	fileRoundTrip(t, "no D-Bus session bus")
}

// fileRoundTrip runs in the child: the keychain is unusable, so the vault
// must pick the encrypted file, say why, and round-trip a key through it.
func fileRoundTrip(t *testing.T, why string) {
	home := t.TempDir()
	start := time.Now()
	v := openReal(t, home)
	st := waitDecided(t, v, 10*time.Second)
	t.Logf("decided %+v after %s", st, time.Since(start))
	if st.Backend != BackendFile || !strings.Contains(st.Detail, why) {
		t.Fatalf("status %+v, want the file because %q", st, why)
	}
	start = time.Now()
	mustSet(t, v, "ANTHROPIC_API_KEY", sentinel)
	set := time.Since(start)
	start = time.Now()
	s, ok := get(v, "ANTHROPIC_API_KEY")
	t.Logf("file: first Set %s (makes master.key), Get %s", set, time.Since(start))
	if !ok || s != sentinel {
		t.Fatal("file round trip")
	}
	if !v.Has("ANTHROPIC_API_KEY") {
		t.Fatal("Has")
	}
	data, err := os.ReadFile(filepath.Join(home, "secrets", keysFile))
	if err != nil || !strings.Contains(string(data), `"ANTHROPIC_API_KEY"`) {
		t.Fatalf("%s: %s (%v)", keysFile, data, err)
	}
	scanHome(t, home, sentinel)
}
