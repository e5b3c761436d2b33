package hosts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

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
	want := srv.Fingerprint
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

	if err := srv.RotateHostKey(); err != nil {
		t.Fatal(err)
	}
	p = s.Probe(ctx, d, nil)
	if p.State != HostKeyChanged || !strings.Contains(p.Reason, "REMOTE HOST IDENTIFICATION HAS CHANGED") ||
		!strings.Contains(p.Reason, "SOMEONE IS DOING SOMETHING NASTY") || strings.Contains(p.Reason, "@@") {
		t.Fatalf("after the key changed: %+v", p)
	}
	if err := s.Trust(ctx, d, srv.Fingerprint); !errors.Is(err, ErrKeyKnown) {
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

// hostBuilds builds this module's headless Clawboo as version into a
// builds folder as `make package` lays it out, for linux/<arch of here>.
func hostBuilds(t *testing.T, version string) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "clawboo-linux-"+runtime.GOARCH)
	if err := testkit.GoBuild("github.com/clawboo/desktop", bin, "-ldflags", "-X main.version="+version); err != nil {
		t.Fatal(err)
	}
	sum, err := fileSum(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin+".sha256", []byte(sum+"  clawboo-linux-"+runtime.GOARCH+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A ready host gets this Clawboo's build, checked by its sum, in its own
// home; another version there is replaced; a build that does not match its
// published sum is never sent.
func TestTheHostGetsThisClawbooAndUpgradesIt(t *testing.T) {
	srv := testkit.StartSSHD(t)
	builds := hostBuilds(t, "hosttest-2")
	ssh := newSSH(t, srv)
	st := openStore(t)
	svc := Open(Options{Store: st, SSH: ssh, Log: slog.New(slog.DiscardHandler), Version: "hosttest-2", Builds: Builds(builds)})
	t.Cleanup(svc.Close)
	ctx := context.Background()
	h, err := svc.Add(ctx, srv.Alias, "")
	if err != nil {
		t.Fatal(err)
	}
	h = waitHost(t, svc, h.ID, UnknownHostKey)
	if h, err = svc.Trust(ctx, h.ID, h.Fingerprint); err != nil || h.State != Ready {
		t.Fatalf("trust: %+v %v", h, err)
	}
	bin := filepath.Join(srv.UserHome, ".clawboo-host", "bin", "clawboo")
	fi, err := os.Stat(bin)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the host's Clawboo: %v %v", fi, err)
	}
	if out, err := exec.Command("su", "-s", "/bin/sh", "-c", bin+" version", srv.User).Output(); err != nil || strings.TrimSpace(string(out)) != "clawboo hosttest-2" {
		t.Fatalf("it says %q (%v)", out, err)
	}
	// Its server starts on the host, and a run goes there through the socket
	// ssh forwards; the server outlives the connection that started it.
	d, _ := ParseDestination(srv.Alias)
	remote, err := ssh.StartRemote(ctx, d, true)
	if err != nil {
		t.Fatal(err)
	}
	run := remoteRun(t, remote, "!ok hello from the host")
	if run["status"] != "succeeded" || run["summary"] != "hello from the host" {
		t.Fatalf("the run on the host: %v", run)
	}
	if err := ssh.StopForward(ctx, d, remote); err != nil {
		t.Fatal(err)
	}
	ssh.Close(ctx, d)
	if out, err := exec.Command("pgrep", "-u", srv.User, "-f", "clawboo host --serve").Output(); err != nil || len(out) == 0 {
		t.Fatalf("the host's server did not outlive the connection: %q %v", out, err)
	}
	again, err := ssh.StartRemote(ctx, d, true)
	if err != nil {
		t.Fatal(err)
	}
	if run := remoteRun(t, again, "!ok still there"); run["summary"] != "still there" {
		t.Fatalf("a second connection: %v", run)
	}
	// Without the host's token nothing passes.
	req, _ := http.NewRequest("GET", "http://localhost/api/runs", nil)
	if res, err := again.Client.Do(req); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %v %v", res, err)
	}
	_ = ssh.StopForward(ctx, d, again)

	// An older one there is replaced when the host is looked at again.
	if err := oldBinary(bin); err != nil {
		t.Fatal(err)
	}
	if got := recheck(t, svc, h.ID); got.State != Ready {
		t.Fatalf("after the upgrade: %+v", got)
	}
	if out, err := exec.Command("su", "-s", "/bin/sh", "-c", bin+" version", srv.User).Output(); err != nil || strings.TrimSpace(string(out)) != "clawboo hosttest-2" {
		t.Fatalf("after the upgrade it says %q (%v)", out, err)
	}
	// A build that does not match its sum is not sent: the host says why.
	if err := oldBinary(bin); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(builds, "clawboo-linux-"+runtime.GOARCH+".sha256"), []byte(strings.Repeat("0", 64)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := recheck(t, svc, h.ID)
	if got.State != VersionMismatch || !strings.Contains(got.Reason, "does not match its published checksum") {
		t.Fatalf("%+v", got)
	}
}

func waitHost(t *testing.T, svc *Service, id string, want State) Host {
	t.Helper()
	var h Host
	testkit.EventuallySays(t, 60*time.Second, "the host "+string(want), func() (bool, string) {
		var err error
		h, err = svc.Get(context.Background(), id)
		return err == nil && h.State == want, string(h.State) + ": " + h.Reason
	})
	return h
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

// remoteRun starts a mock run on the host's server and waits for it.
func remoteRun(t *testing.T, r Remote, message string) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"message": message, "wait": true})
	req, _ := http.NewRequest("POST", "http://localhost/api/runtimes/clawboo-mock/run", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res, err := r.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode/100 != 2 {
		t.Fatalf("run on the host: %d %v %v", res.StatusCode, out, err)
	}
	return out
}

// oldBinary puts another version in the host's place, as an older install
// would have left it (the running server keeps its own copy open).
func oldBinary(bin string) error {
	_ = os.Remove(bin)
	return os.WriteFile(bin, []byte("#!/bin/sh\necho clawboo old-1\n"), 0o700)
}

// recheck looks at the host again and waits for that look to be recorded.
func recheck(t *testing.T, svc *Service, id string) Host {
	t.Helper()
	before, err := svc.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	svc.Check(id)
	var h Host
	testkit.EventuallySays(t, 60*time.Second, "the host looked at again", func() (bool, string) {
		h, err = svc.Get(context.Background(), id)
		return err == nil && h.CheckedAt > before.CheckedAt, string(h.State)
	})
	return h
}
