package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestKeychainProbeSuccessStoresInKeychainOnly(t *testing.T) {
	home := t.TempDir()
	kr := newFakeKeyring()
	v := openVault(t, home, nil, Options{Keyring: kr})
	st := waitDecided(t, v, time.Second)
	if st.Backend != BackendKeychain || st.Detail != "" {
		t.Fatalf("status %+v", st)
	}
	mustSet(t, v, "ANTHROPIC_API_KEY", sentinel)
	if s, ok := kr.item("ANTHROPIC_API_KEY"); !ok || s != sentinel {
		t.Fatal("the key is not in the keychain")
	}
	if s, ok := get(v, "ANTHROPIC_API_KEY"); !ok || s != sentinel {
		t.Fatal("round trip through the keychain")
	}
	mustNotExist(t, filepath.Join(home, "secrets", keysFile))
	mustNotExist(t, filepath.Join(home, "secrets", masterKeyFile))
	scanHome(t, home, sentinel)
	if n := kr.count("clawboo-probe-"); n != 0 {
		t.Fatalf("%d probe canaries left behind", n)
	}
	if err := v.Delete(t.Context(), "ANTHROPIC_API_KEY"); err != nil {
		t.Fatal(err)
	}
	if _, ok := kr.item("ANTHROPIC_API_KEY"); ok || v.Has("ANTHROPIC_API_KEY") {
		t.Fatal("delete left the key")
	}
}

func TestKeychainProbeErrorsSelectFile(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{errors.New("The name org.freedesktop.secrets was not provided by any .service files"), "no Secret Service on the session bus"},
		{errors.New("failed to unlock correct collection '/org/freedesktop/secrets/collection/login'"), "the login keyring is locked"},
		{errNoSessionBus, "no D-Bus session bus"},
		{errors.New("something else"), "something else"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			kr := newFakeKeyring()
			kr.err = tc.err
			changed := make(chan struct{}, 4)
			v := openVault(t, t.TempDir(), nil, Options{Keyring: kr, OnChange: func() { changed <- struct{}{} }})
			st := waitDecided(t, v, time.Second)
			if st.Backend != BackendFile || !strings.Contains(st.Detail, tc.want) || !strings.Contains(st.Detail, "encrypted file") {
				t.Fatalf("status %+v", st)
			}
			select {
			case <-changed:
			case <-time.After(time.Second):
				t.Fatal("OnChange not called when the backend was decided")
			}
			mustSet(t, v, "OPENAI_API_KEY", sentinel)
			if s, ok := get(v, "OPENAI_API_KEY"); !ok || s != sentinel {
				t.Fatal("file round trip")
			}
		})
	}
}

func TestKeychainProbeHangSelectsFileWithinTimeout(t *testing.T) {
	kr := newFakeKeyring()
	release := kr.startHang(t)
	const probe = 150 * time.Millisecond
	start := time.Now()
	v := openVault(t, t.TempDir(), nil, Options{Keyring: kr, ProbeTimeout: probe})
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Fatalf("Open blocked for %s", d)
	}
	if st := v.Status(); !st.Probing {
		t.Fatalf("status right after Open: %+v", st)
	}
	// A Set issued while probing waits for the decision, then uses the file.
	if err := v.Set(t.Context(), "GROQ_API_KEY", "gsk-1"); err != nil {
		t.Fatal(err)
	}
	st := waitDecided(t, v, 0)
	if d := time.Since(start); d > probe+200*time.Millisecond {
		t.Fatalf("decided after %s", d)
	}
	if st.Backend != BackendFile || !strings.Contains(st.Detail, "did not answer in 150ms") {
		t.Fatalf("status %+v", st)
	}
	if !v.Has("GROQ_API_KEY") {
		t.Fatal("key not in the file")
	}
	release()
	// The late canary is still cleaned up by its own worker.
	deadline := time.Now().Add(time.Second)
	for kr.count("") > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the canary was left in the keychain")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestKeychainCallTimeoutLaterIsAClearError(t *testing.T) {
	kr := newFakeKeyring()
	const call = 100 * time.Millisecond
	v := openVault(t, t.TempDir(), nil, Options{Keyring: kr, CallTimeout: call})
	waitDecided(t, v, time.Second)
	mustSet(t, v, "OPENAI_API_KEY", sentinel)
	kr.startHang(t) // the keyring locks later

	start := time.Now()
	err := v.Set(t.Context(), "OPENAI_API_KEY", "sk-new")
	if d := time.Since(start); d > call+150*time.Millisecond {
		t.Fatalf("Set took %s", d)
	}
	if !errors.Is(err, ErrKeychainTimeout) || !strings.Contains(err.Error(), "the keychain did not answer in 100ms — it may be locked") ||
		!strings.Contains(err.Error(), "OPENAI_API_KEY") || strings.Contains(err.Error(), "sk-new") {
		t.Fatalf("error %v", err)
	}
	if s, ok := get(v, "OPENAI_API_KEY"); ok || s != "" {
		t.Fatal("a keychain timeout must fail closed")
	}
	if !v.Has("OPENAI_API_KEY") {
		t.Fatal("Has never calls the keychain")
	}
	// More callers than worker slots: each still returns within the bound.
	var slow atomic.Int32
	for range 3 * maxKeychainCalls {
		start := time.Now()
		_ = v.Delete(t.Context(), "OPENAI_API_KEY")
		if time.Since(start) > call+150*time.Millisecond {
			slow.Add(1)
		}
	}
	if slow.Load() > 0 || len(v.sem) > maxKeychainCalls {
		t.Fatalf("%d calls exceeded the bound; %d workers", slow.Load(), len(v.sem))
	}
	// A caller's own deadline is reported as such, not as a keychain fault.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if err := v.Set(ctx, "OPENAI_API_KEY", "x"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("caller deadline: %v", err)
	}
}

func TestKeychainIndexPersistedAndVerified(t *testing.T) {
	home := t.TempDir()
	kr := newFakeKeyring()
	v1 := openVault(t, home, nil, Options{Keyring: kr})
	waitDecided(t, v1, time.Second)
	mustSet(t, v1, "ANTHROPIC_API_KEY", sentinel)
	mustSet(t, v1, "CUSTOM_TOKEN", "tok")
	_ = v1.Close()
	data, err := os.ReadFile(filepath.Join(home, "secrets", indexFile))
	if err != nil || !strings.Contains(string(data), "ANTHROPIC_API_KEY") || strings.Contains(string(data), sentinel) {
		t.Fatalf("index %s (%v)", data, err)
	}
	if m := mode(t, filepath.Join(home, "secrets", indexFile)); m != 0o600 {
		t.Fatalf("index mode %o", m)
	}

	// Behind the app's back: one key removed, one provider key added.
	kr.mu.Lock()
	delete(kr.items, keychainService+"/CUSTOM_TOKEN")
	kr.items[keychainService+"/OPENAI_API_KEY"] = "sk-openai"
	kr.delay = 30 * time.Millisecond // the probe takes a while
	kr.mu.Unlock()
	changed := make(chan struct{}, 8)
	v2 := openVault(t, home, nil, Options{Keyring: kr, OnChange: func() { changed <- struct{}{} }})
	if !v2.Status().Probing || !v2.Has("ANTHROPIC_API_KEY") || !v2.Has("CUSTOM_TOKEN") {
		t.Fatal("presence must come from the index at once, while probing")
	}
	deadline := time.After(5 * time.Second)
	for v2.Has("CUSTOM_TOKEN") || !v2.Has("OPENAI_API_KEY") {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("verification did not fix the index")
		}
	}
	if !v2.Has("ANTHROPIC_API_KEY") {
		t.Fatal("a verified key was dropped")
	}
	_ = v2.Close()
	data, _ = os.ReadFile(filepath.Join(home, "secrets", indexFile))
	if strings.Contains(string(data), "CUSTOM_TOKEN") || !strings.Contains(string(data), "OPENAI_API_KEY") {
		t.Fatalf("verified index not saved: %s", data)
	}
}

func TestKeychainFallsBackToFileKeysFromEarlierStarts(t *testing.T) {
	home := t.TempDir()
	v1 := openVault(t, home, nil, Options{ForceFile: true})
	mustSet(t, v1, "GROQ_API_KEY", "gsk-file")
	_ = v1.Close()
	kr := newFakeKeyring()
	v2 := openVault(t, home, nil, Options{Keyring: kr})
	waitDecided(t, v2, time.Second)
	if !v2.Has("GROQ_API_KEY") {
		t.Fatal("a key kept in the file must stay present")
	}
	if s, ok := get(v2, "GROQ_API_KEY"); !ok || s != "gsk-file" {
		t.Fatal("a key kept in the file must stay readable")
	}
	if err := v2.Delete(t.Context(), "GROQ_API_KEY"); err != nil {
		t.Fatal(err)
	}
	if v2.Has("GROQ_API_KEY") {
		t.Fatal("delete must remove the file copy too")
	}
	// Replacing a key kept in the file moves it to the keychain: no stale
	// copy is left to resurface on a start without a keychain.
	v3 := openVault(t, home, nil, Options{ForceFile: true})
	mustSet(t, v3, "XAI_API_KEY", "xai-old")
	mustSet(t, v2, "XAI_API_KEY", "xai-new")
	if v3.Has("XAI_API_KEY") {
		t.Fatal("the old file copy was left behind")
	}
	if s, _ := kr.item("XAI_API_KEY"); s != "xai-new" {
		t.Fatal("the new key is not in the keychain")
	}
}

func TestKeychainNoSessionBusNeverAutolaunches(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("no D-Bus there")
	}
	if _, err := os.Stat(filepath.Join("/run/user", strconv.Itoa(os.Getuid()), "bus")); err == nil {
		t.Skip("this machine has a per-user bus socket")
	}
	if err := sessionBusMissing(env{}.get); !errors.Is(err, errNoSessionBus) {
		t.Fatal("no address and no socket must be reported, not autolaunched")
	}
	if err := sessionBusMissing(env{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"}.get); err != nil {
		t.Fatal(err)
	}
}
