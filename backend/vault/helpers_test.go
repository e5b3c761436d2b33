package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zalando/go-keyring"
	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines. godbus keeps one process-wide
// session bus connection (only the keyring_it tests reach it); that is
// the library's, not a leak of ours.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("github.com/godbus/dbus/v5.(*Conn).inWorker"),
		goleak.IgnoreTopFunction("github.com/godbus/dbus/v5.newConn.func1"),
	)
}

// fakeKeyring is an in-memory keychain. err makes every call fail; hang
// makes every call block until release; delay slows every call.
type fakeKeyring struct {
	mu    sync.Mutex
	items map[string]string
	err   error
	hang  chan struct{}
	delay time.Duration
	calls int
}

func newFakeKeyring() *fakeKeyring { return &fakeKeyring{items: map[string]string{}} }

func (f *fakeKeyring) enter() error {
	f.mu.Lock()
	f.calls++
	hang, delay, err := f.hang, f.delay, f.err
	f.mu.Unlock()
	if hang != nil {
		<-hang
	}
	time.Sleep(delay)
	return err
}

func (f *fakeKeyring) Set(service, user, password string) error {
	if err := f.enter(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.items[service+"/"+user] = password
	return nil
}

func (f *fakeKeyring) Get(service, user string) (string, error) {
	if err := f.enter(); err != nil {
		return "", err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.items[service+"/"+user]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return s, nil
}

func (f *fakeKeyring) Delete(service, user string) error {
	if err := f.enter(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.items[service+"/"+user]; !ok {
		return keyring.ErrNotFound
	}
	delete(f.items, service+"/"+user)
	return nil
}

// startHang makes calls block from now on; the returned func releases
// every blocked and future call (registered as a cleanup too, so no
// goroutine outlives the test).
func (f *fakeKeyring) startHang(t *testing.T) func() {
	f.mu.Lock()
	ch := make(chan struct{})
	f.hang = ch
	f.mu.Unlock()
	var once sync.Once
	release := func() {
		once.Do(func() {
			f.mu.Lock()
			f.hang = nil
			f.mu.Unlock()
			close(ch)
		})
	}
	t.Cleanup(release)
	return release
}

func (f *fakeKeyring) item(user string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.items[keychainService+"/"+user]
	return s, ok
}

// count is how many items have a user starting with prefix.
func (f *fakeKeyring) count(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for k := range f.items {
		if strings.HasPrefix(k, keychainService+"/"+prefix) {
			n++
		}
	}
	return n
}

// env is a fake process environment.
type env map[string]string

func (e env) get(k string) string { return e[k] }

// openVault opens a vault over home with a fake environment (HOME points
// inside the test folder, so no real ~/.openclaw is read) and closes it
// at the end of the test.
func openVault(t *testing.T, home string, e env, opts Options) *Vault {
	t.Helper()
	if e == nil {
		e = env{}
	}
	if _, ok := e["HOME"]; !ok {
		e["HOME"] = filepath.Join(home, "userhome")
	}
	opts.Home = home
	opts.Getenv = e.get
	if opts.Keyring == nil && !opts.ForceFile {
		opts.ForceFile = true
	}
	v, err := Open(opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = v.Close() })
	return v
}

// fileVault is the common case: the encrypted file, nothing else.
func fileVault(t *testing.T, e env) (*Vault, string) {
	t.Helper()
	home := t.TempDir()
	return openVault(t, home, e, Options{ForceFile: true}), home
}

// waitDecided waits for the keychain probe to finish.
func waitDecided(t *testing.T, v *Vault, within time.Duration) Status {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st := v.Status()
		if !st.Probing {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("probe still running after %s: %+v", within, st)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func mustSet(t *testing.T, v *Vault, name, secret string) {
	t.Helper()
	if err := v.Set(context.Background(), name, secret); err != nil {
		t.Fatalf("Set %s: %v", name, err)
	}
}

func get(v *Vault, name string) (string, bool) { return v.Get(context.Background(), name) }

func mustNotExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s should not exist (stat: %v)", path, err)
	}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}
