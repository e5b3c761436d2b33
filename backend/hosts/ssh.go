package hosts

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/proc"
)

// SSH runs the person's own OpenSSH client programs.
type SSH struct {
	// Find locates ssh, ssh-keyscan and ssh-keygen (the binary resolver).
	Find func(name string) (string, bool)
	// Environ is the server's environment; children get the allowlist
	// and the ssh agent's socket.
	Environ func() []string
	// Dir holds Clawboo's known_hosts and the shared connections' sockets
	// (<home>/ssh, mode 0700).
	Dir string
	// Timeout bounds one command (default 30 s).
	Timeout time.Duration
	// Config is an ssh configuration file used instead of the person's
	// ~/.ssh/config (ssh reads that from the account's home, whatever
	// $HOME says, so tests name theirs); empty: the person's own.
	Config string
	// ReachBack is this computer's API as a loopback host:port, which each
	// host's connection forwards a socket to (`-R`) so runs there reach
	// this computer's MCP servers; nil or "": nothing is forwarded back.
	ReachBack func() string
}

// maxOutput bounds what one command's output is read up to, per stream.
const maxOutput = 64 << 10

// KnownHosts is Clawboo's own known_hosts file (the person's is read too).
func (s *SSH) KnownHosts() string { return filepath.Join(s.Dir, "known_hosts") }

// options are the switches every ssh gets; the person's ~/.ssh/config
// supplies the rest (user, port, keys, ProxyJump).
func (s *SSH) options() []string {
	var cfg []string
	if s.Config != "" {
		cfg = []string{"-F", s.Config}
	}
	return append(cfg,
		"-o", "BatchMode=yes",
		"-o", "StrictHostKeyChecking=yes",
		"-o", `UserKnownHostsFile="`+s.KnownHosts()+`" ~/.ssh/known_hosts`,
		"-o", "ControlMaster=auto",
		"-o", "ControlPath="+filepath.Join(s.controlDir(), "%C"),
		"-o", "ControlPersist=60",
		"-o", "ConnectTimeout=10",
		"-o", "ServerAliveInterval=15",
		"-o", "ServerAliveCountMax=2",
		"-o", "LogLevel=ERROR",
		"-T",
	)
}

// controlDir holds the shared connections' sockets: Dir, unless a socket
// path there would be longer than a Unix socket's (104 bytes on macOS,
// 108 on Linux; %C is 40, and ssh adds a 17-byte random suffix while it
// binds the master's socket), then a short folder of this user's under the
// system's temporary folder, named for Dir.
func (s *SSH) controlDir() string { return ControlDir(s.Dir) }

// ControlDir is where the shared connections of an SSH whose Dir is dir
// keep their sockets (see controlDir).
func ControlDir(dir string) string {
	if len(dir)+1+40+17 < 104 {
		return dir
	}
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join(os.TempDir(), fmt.Sprintf("clawboo-ssh-%d-%x", os.Getuid(), sum[:6]))
}

// output is what a command printed and how it ended.
type output struct {
	Stdout, Stderr string
	Code           int
}

// run starts a program with args (stdin streamed to it when not nil) and
// reads its output, bounded.
func (s *SSH) run(ctx context.Context, program string, args []string, stdin io.Reader) (output, error) {
	bin, ok := s.Find(program)
	if !ok {
		return output{}, fmt.Errorf("%s is not installed on this computer (OpenSSH's client is needed to reach other machines)", program)
	}
	for _, dir := range []string{s.Dir, s.controlDir()} {
		if err := privateDir(dir); err != nil {
			return output{}, err
		}
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	env := proc.AllowEnv(s.Environ(), append(proc.BaseEnv(), "SSH_AUTH_SOCK"), nil, nil)
	c, err := proc.Start(ctx, proc.Spec{Path: bin, Args: args, Env: env, Grace: time.Second, MaxLine: 8 << 10, Stdin: stdin != nil})
	if err != nil {
		return output{}, fmt.Errorf("could not start %s: %w", program, err)
	}
	if stdin != nil {
		go func() {
			_, _ = io.Copy(c.Stdin(), stdin)
			_ = c.Stdin().Close()
		}()
	}
	var out, errb strings.Builder
	for l := range c.Lines() {
		b := &out
		if l.Stderr {
			b = &errb
		}
		if b.Len() < maxOutput {
			b.WriteString(l.Text + "\n")
		}
	}
	ex := c.Wait()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return output{Stdout: out.String(), Stderr: errb.String(), Code: -1}, fmt.Errorf("%s did not finish within %s", program, timeout)
	}
	return output{Stdout: out.String(), Stderr: errb.String(), Code: ex.Code}, nil
}

// Exec runs Clawboo's own command on the host (remote is fixed text of
// ours, never a person's or an agent's).
func (s *SSH) Exec(ctx context.Context, d Destination, remote string) (output, error) {
	args := append(s.options(), "--", d.Target, remote)
	return s.run(ctx, "ssh", args, nil)
}

// ExecWith runs Clawboo's own command on the host with stdin streamed to it.
func (s *SSH) ExecWith(ctx context.Context, d Destination, remote string, stdin io.Reader) (output, error) {
	args := append(s.options(), "--", d.Target, remote)
	return s.run(ctx, "ssh", args, stdin)
}

// Close ends the shared connection to d, if one is open.
func (s *SSH) Close(ctx context.Context, d Destination) {
	args := append(s.options(), "-O", "exit", "--", d.Target)
	_, _ = s.run(ctx, "ssh", args, nil)
}

// privateDir makes dir (0700) and checks that it is this user's own and
// no one else's to write: a socket folder another user controls could
// hand ssh a connection of theirs.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() || !ownedByMe(fi) || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s is not a private folder of this user's (mode 0700): refusing to keep ssh connections there", dir)
	}
	return nil
}
