package testkit

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// SSHD is a real OpenSSH server on a loopback port whose only login is a
// second Unix user with its own home (mode 700): the "remote host" of the
// tests, so nothing can pass through the desktop's own files. The desktop
// side is ClientHome: a HOME whose .ssh holds Config (naming the server as
// Alias) and the key that logs in. ssh reads ~/.ssh/config from the
// account's home whatever $HOME says, so a test hands Config to ssh (-F).
type SSHD struct {
	Port       int
	User       string
	UserHome   string
	ClientHome string
	Alias      string
	// HostKey is the server's host key's public half (a known_hosts key),
	// and Fingerprint its SHA-256 fingerprint as ssh-keygen prints it.
	HostKey     string
	Fingerprint string
	// Config is the desktop side's ssh configuration file.
	Config  string
	dir     string
	cmd     *exec.Cmd
	cleanup []func()
}

// StartSSHD starts the server for the test. It needs root (to add the
// user) and sshd: without CLAWBOO_TEST_SSHD (make test sets it) the test
// is skipped where either is missing; with it, their absence fails it.
func StartSSHD(t testing.TB) *SSHD {
	t.Helper()
	if why := SSHDMissing(); why != "" {
		if _, required := os.LookupEnv("CLAWBOO_TEST_SSHD"); required {
			t.Fatal(why)
		}
		t.Skip(why + " (make test sets CLAWBOO_TEST_SSHD and installs openssh-server)")
	}
	s, err := NewSSHD(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// SSHDMissing says why no test sshd can start here ("" when one can).
func SSHDMissing() string {
	if os.Geteuid() != 0 {
		return "a second Unix user as the remote host needs root"
	}
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		return "OpenSSH's server is not installed (apt-get install openssh-server)"
	}
	return ""
}

// NewSSHD starts the server with its files under dir (for a program that
// is not a test: internal/testkit/sshdserve); Close undoes it all.
func NewSSHD(dir string) (s *SSHD, err error) {
	s = &SSHD{dir: filepath.Join(dir, "sshd"), ClientHome: filepath.Join(dir, "client"), Alias: "clawboo-test-host"}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	for _, d := range []string{s.dir, s.ClientHome} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	if err := s.addUser(); err != nil {
		return nil, err
	}
	if err := s.keys(); err != nil {
		return nil, err
	}
	if s.Port, err = freePort(); err != nil {
		return nil, err
	}
	s.Alias = "clawboo-test-" + s.User // each server its own, so several can share one ssh config
	if err := s.start(); err != nil {
		return nil, err
	}
	return s, s.writeClientConfig()
}

// Close stops the server and removes the user and its home.
func (s *SSHD) Close() {
	s.Stop()
	for i := len(s.cleanup) - 1; i >= 0; i-- {
		s.cleanup[i]()
	}
	s.cleanup = nil
}

func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// addUser makes the host's user, its home 0700 under /home (sshd reads
// authorized_keys as the user, who could not pass through a test's own
// 0700 folders), and a password field that is not "locked" (sshd refuses
// a locked account's keys without PAM).
func (s *SSHD) addUser() error {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	s.User = "cbhost" + hex.EncodeToString(b)
	if err := os.MkdirAll("/home", 0o755); err != nil {
		return err
	}
	s.UserHome = filepath.Join("/home", s.User)
	if err := run("useradd", "--create-home", "--home-dir", s.UserHome, "--shell", "/bin/sh", "--password", "*", s.User); err != nil {
		return err
	}
	s.cleanup = append(s.cleanup, func() {
		_ = exec.Command("pkill", "-KILL", "-u", s.User).Run()
		_ = exec.Command("userdel", "--force", "--remove", s.User).Run()
	})
	return os.Chmod(s.UserHome, 0o700)
}

// keys makes the server's host key and the desktop's login key, and lets
// the login key in.
func (s *SSHD) keys() error {
	if err := s.hostKey(); err != nil {
		return err
	}
	ssh := filepath.Join(s.ClientHome, ".ssh")
	if err := os.MkdirAll(ssh, 0o700); err != nil {
		return err
	}
	if err := run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(ssh, "id_ed25519")); err != nil {
		return err
	}
	login, err := os.ReadFile(filepath.Join(ssh, "id_ed25519.pub"))
	if err != nil {
		return err
	}
	auth := filepath.Join(s.UserHome, ".ssh")
	if err := os.MkdirAll(auth, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(auth, "authorized_keys"), login, 0o600); err != nil {
		return err
	}
	return run("chown", "-R", s.User+":", auth)
}

// hostKey makes a new host key.
func (s *SSHD) hostKey() error {
	key := filepath.Join(s.dir, "host_ed25519")
	_ = os.Remove(key)
	_ = os.Remove(key + ".pub")
	if err := run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key); err != nil {
		return err
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		return err
	}
	s.HostKey = strings.TrimSpace(string(pub))
	s.Fingerprint, err = fingerprint(s.HostKey)
	return err
}

// fingerprint is ssh-keygen's SHA-256 fingerprint of a public key.
func fingerprint(pub string) (string, error) {
	cmd := exec.Command("ssh-keygen", "-l", "-E", "sha256", "-f", "-")
	cmd.Stdin = strings.NewReader(pub + "\n")
	out, err := cmd.Output()
	if err != nil {
		return "", err
	}
	f := strings.Fields(string(out))
	if len(f) < 2 {
		return "", fmt.Errorf("ssh-keygen printed %q", out)
	}
	return f[1], nil
}

// RotateHostKey gives the server a new host key and restarts it: what a
// desktop sees when a host was replaced, or someone is in the middle.
// Sessions already open go on, as on a real host whose sshd restarts.
func (s *SSHD) RotateHostKey() error {
	s.Stop()
	if err := s.hostKey(); err != nil {
		return err
	}
	return s.start()
}

func (s *SSHD) start() error {
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // sshd's privilege separation folder
		return err
	}
	cfg := filepath.Join(s.dir, "sshd_config")
	text := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile %s
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AuthorizedKeysFile .ssh/authorized_keys
StrictModes yes
PermitRootLogin no
AllowUsers %s
AllowStreamLocalForwarding yes
StreamLocalBindUnlink yes
LogLevel ERROR
`, s.Port, filepath.Join(s.dir, "host_ed25519"), filepath.Join(s.dir, "sshd.pid"), s.User)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		return err
	}
	s.cmd = exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", cfg)
	logf, err := os.OpenFile(filepath.Join(s.dir, "sshd.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close() // the child has its own copy
	s.cmd.Stderr = logf
	if err := s.cmd.Start(); err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(s.Port), time.Second)
		if err == nil {
			return c.Close()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sshd did not listen on port %d: %w", s.Port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Restart starts the server again after Stop, on the same port and key.
func (s *SSHD) Restart() error {
	s.Stop()
	return s.start()
}

// Stop stops the server (its sessions' processes go on).
func (s *SSHD) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

func (s *SSHD) writeClientConfig() error {
	cfg := fmt.Sprintf(`Host %s
  HostName 127.0.0.1
  Port %d
  User %s
  IdentityFile %s
  IdentitiesOnly yes
`, s.Alias, s.Port, s.User, filepath.Join(s.ClientHome, ".ssh", "id_ed25519"))
	s.Config = filepath.Join(s.ClientHome, ".ssh", "config")
	return os.WriteFile(s.Config, []byte(cfg), 0o600)
}

// freePort is a loopback port nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
