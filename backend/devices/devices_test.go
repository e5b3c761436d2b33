package devices

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/store"
)

// clock is a settable time for the pairing window.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestACodeIsBurntByItsFirstUseAndExpires(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	w := NewWindow(c.now)
	if err := w.Redeem("anything"); !errors.Is(err, ErrNoPairing) {
		t.Fatalf("no window open: %v", err)
	}
	code, exp, err := w.Open()
	if err != nil || len(code) < 22 || !exp.Equal(c.now().Add(CodeTTL)) {
		t.Fatalf("open: %q %v %v", code, exp, err)
	}
	if err := w.Redeem(code); err != nil {
		t.Fatalf("the right code: %v", err)
	}
	if err := w.Redeem(code); !errors.Is(err, ErrNoPairing) {
		t.Fatalf("a replayed code: %v", err)
	}
	code, _, _ = w.Open()
	c.add(CodeTTL)
	if err := w.Redeem(code); !errors.Is(err, ErrExpired) {
		t.Fatalf("an expired code: %v", err)
	}
	if err := w.Redeem(code); !errors.Is(err, ErrNoPairing) {
		t.Fatalf("an expired code, again: %v", err)
	}
	a, _, _ := w.Open()
	b, _, _ := w.Open()
	if a == b || w.Redeem(a) == nil {
		t.Fatal("a code replaced by a newer one still works")
	}
	if err := w.Redeem(b); err != nil {
		t.Fatalf("the newer code: %v", err)
	}
}

func TestTenWrongCodesCloseTheWindow(t *testing.T) {
	w := NewWindow(nil)
	code, _, _ := w.Open()
	for i := 1; i < MaxWrong; i++ {
		if err := w.Redeem("wrong"); !errors.Is(err, ErrWrongCode) {
			t.Fatalf("wrong code %d: %v", i, err)
		}
	}
	if err := w.Redeem("wrong"); !errors.Is(err, ErrClosed) {
		t.Fatalf("the tenth wrong code: %v", err)
	}
	if err := w.Redeem(code); !errors.Is(err, ErrClosed) {
		t.Fatalf("the right code after the window closed: %v", err)
	}
	code, _, _ = w.Open()
	if err := w.Redeem(code); err != nil {
		t.Fatalf("a new window: %v", err)
	}
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestADeviceIsPairedVerifiedAndRevokedAtOnce(t *testing.T) {
	ctx := context.Background()
	s := New(openStore(t), nil)
	code, _, _ := s.Window.Open()
	if _, _, err := s.Pair(ctx, code, "  "); !errors.Is(err, ErrName) {
		t.Fatalf("an empty name: %v", err)
	}
	d, token, err := s.Pair(ctx, code, "Pixel 8")
	if err != nil || d.Name != "Pixel 8" || len(token) < 40 {
		t.Fatalf("pair: %+v %q %v", d, token, err)
	}
	if _, _, err := s.Pair(ctx, code, "Again"); err == nil {
		t.Fatal("a code paired twice")
	}
	got, ok := s.Verify(ctx, token)
	if !ok || got.ID != d.ID {
		t.Fatalf("verify: %+v %v", got, ok)
	}
	if _, ok := s.Verify(ctx, token[:len(token)-1]+"x"); ok {
		t.Fatal("a changed token verified")
	}
	// The token is kept only as its hash.
	var raw []byte
	if err := s.st.Reader().QueryRowContext(ctx, `SELECT token_sum FROM devices`).Scan(&raw); err != nil || strings.Contains(string(raw), token) {
		t.Fatalf("stored: %v", err)
	}
	if d2, err := s.Rename(ctx, d.ID, "Phone"); err != nil || d2.Name != "Phone" {
		t.Fatalf("rename: %+v %v", d2, err)
	}
	sub := s.Revoked.Subscribe(1)
	defer sub.Close()
	if _, err := s.Revoke(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Verify(ctx, token); ok {
		t.Fatal("a revoked token verified")
	}
	select {
	case id := <-sub.C():
		if id != d.ID {
			t.Fatalf("revoked %q", id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no revocation published")
	}
	if n, _ := s.Count(ctx); n != 0 {
		t.Fatalf("%d devices left", n)
	}
	if _, err := s.Revoke(ctx, d.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revoke twice: %v", err)
	}
}

func TestTheCertificateIsMadeOnceAndItsKeyKeptPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "devices")
	a, err := LoadOrMakeCert(dir, []net.IP{net.ParseIP("127.0.0.2")})
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(a.TLS.Certificate[0])
	if err != nil || len(leaf.IPAddresses) != 1 || !leaf.IPAddresses[0].Equal(net.ParseIP("127.0.0.2")) {
		t.Fatalf("the certificate: %v %v", leaf.IPAddresses, err)
	}
	if len(a.Fingerprint) != 95 || a.Fingerprint != Fingerprint(a.TLS.Certificate[0]) {
		t.Fatalf("fingerprint %q", a.Fingerprint)
	}
	fi, err := os.Stat(filepath.Join(dir, "lan.key"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the key's mode: %v %v", fi.Mode(), err)
	}
	b, err := LoadOrMakeCert(dir, nil)
	if err != nil || b.Fingerprint != a.Fingerprint {
		t.Fatalf("made again: %q %v", b.Fingerprint, err)
	}
	if err := os.Chmod(filepath.Join(dir, "lan.key"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrMakeCert(dir, nil); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Fatalf("a key others can read: %v", err)
	}
}
