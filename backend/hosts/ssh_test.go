package hosts

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawboo/desktop/internal/testkit"
)

// fingerprintOf is ssh-keygen's SHA-256 fingerprint of a public key.
func fingerprintOf(t *testing.T, pub string) string {
	t.Helper()
	cmd := exec.Command("ssh-keygen", "-l", "-E", "sha256", "-f", "-")
	cmd.Stdin = strings.NewReader(pub + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(out))[1]
}

func newSSH(t *testing.T, srv *testkit.SSHD) *SSH {
	home := srv.ClientHome
	return &SSH{
		Find: func(name string) (string, bool) {
			p, err := exec.LookPath(name)
			return p, err == nil
		},
		Environ: func() []string { return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")} },
		Dir:     filepath.Join(t.TempDir(), "ssh"),
		Config:  srv.Config,
	}
}

// A host's key is shown before anything else happens; only the shown
// fingerprint is trusted; then the host says what it is; a changed key is
// refused in ssh's own words and never replaced.
func TestHostKeysAreAcceptedOnceAndAChangedOneIsRefused(t *testing.T) {
	srv := testkit.StartSSHD(t)
	s := newSSH(t, srv)
	ctx := context.Background()
	d, err := ParseDestination(srv.Alias)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Probe(ctx, d, nil)
	want := fingerprintOf(t, srv.HostKey)
	if p.State != UnknownHostKey || p.Fingerprint != want {
		t.Fatalf("first contact: %+v, want unknown-host-key with %s", p, want)
	}
	if err := s.Trust(ctx, d, "SHA256:not-the-shown-one"); !errors.Is(err, ErrFingerprintChanged) {
		t.Fatalf("trusting another fingerprint: %v", err)
	}
	if _, err := os.Stat(s.KnownHosts()); !os.IsNotExist(err) {
		t.Fatal("a refused trust wrote known_hosts")
	}
	if err := s.Trust(ctx, d, want); err != nil {
		t.Fatal(err)
	}
	p = s.Probe(ctx, d, nil)
	if p.State != Ready || p.Info.OS != "linux" || p.Info.Arch == "" || p.Info.Cores < 1 || p.Info.MemoryBytes < 1<<20 {
		t.Fatalf("after trust: %+v", p)
	}
	// It is searched for the runtimes' programs; a name that is not a plain
	// program name is never put in the probe's text.
	pwned := filepath.Join(t.TempDir(), "pwned")
	p = s.Probe(ctx, d, map[string]string{"posix-shell": "sh", "missing": "no-such-program-7f3", "hostile": "x; touch " + pwned})
	if p.State != Ready || len(p.Runtimes) != 1 || p.Runtimes[0] != "posix-shell" {
		t.Fatalf("runtimes on the host: %+v", p)
	}
	if _, err := os.Stat(pwned); !os.IsNotExist(err) {
		t.Fatal("a hostile program name ran on the host")
	}
	s.Close(ctx, d)

	srv.RotateHostKey()
	p = s.Probe(ctx, d, nil)
	if p.State != HostKeyChanged || !strings.Contains(p.Reason, "REMOTE HOST IDENTIFICATION HAS CHANGED") ||
		!strings.Contains(p.Reason, "SOMEONE IS DOING SOMETHING NASTY") || strings.Contains(p.Reason, "@@") {
		t.Fatalf("after the key changed: %+v", p)
	}
	if err := s.Trust(ctx, d, fingerprintOf(t, srv.HostKey)); !errors.Is(err, ErrKeyKnown) {
		t.Fatalf("trusting the changed key: %v", err)
	}
	if p := s.Probe(ctx, d, nil); p.State != HostKeyChanged {
		t.Fatalf("the changed key was let in: %+v", p)
	}
}

func TestAnUnreachableHostSaysWhy(t *testing.T) {
	srv := testkit.StartSSHD(t)
	s := newSSH(t, srv)
	d, _ := ParseDestination("127.0.0.1:1")
	p := s.Probe(context.Background(), d, nil)
	if p.State != Unreachable || !strings.Contains(p.Reason, "Connection refused") {
		t.Fatalf("%+v", p)
	}
}
