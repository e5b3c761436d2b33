package hosts

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Conn is a ready host as a run reaches it: its server's API (Remote,
// over the forwarded socket) and git's way to its clones.
type Conn struct {
	Host        Host
	Destination Destination
	Remote      Remote
}

// GitURL is the URL git reaches a path under the host user's home by
// (git's own ssh transport expands the ~).
func (c Conn) GitURL(path string) string {
	base := c.Destination.Target
	if !strings.HasPrefix(base, "ssh://") {
		base = "ssh://" + base
	}
	return base + "/~/" + strings.TrimPrefix(path, "/")
}

// GitSSHCommand is git's GIT_SSH_COMMAND for this Clawboo: the person's
// ssh with the same options as every other ssh (batch mode, strict host
// keys against both known_hosts files, the shared connection), each word
// quoted for the shell git hands it to.
func (s *SSH) GitSSHCommand() (string, error) {
	bin, ok := s.Find("ssh")
	if !ok {
		return "", fmt.Errorf("ssh is not installed on this computer (OpenSSH's client is needed to reach other machines)")
	}
	words := append([]string{bin}, s.options()...)
	for i, w := range words {
		words[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(words, " "), nil
}

// Connect answers a ready host's connection, starting its server and the
// forward when none answers (the first run, or after the link dropped).
// A host that is not ready is refused with its state in words.
func (s *Service) Connect(ctx context.Context, id string) (Conn, error) {
	h, err := s.Get(ctx, id)
	if err != nil {
		return Conn{}, err
	}
	// An unreachable host is tried (a run re-attaching, a stop to send):
	// reaching it is news a probe then confirms.
	if why := h.NotReady(); why != "" && h.State != Unreachable {
		return Conn{}, notReady(why)
	}
	d, err := ParseDestination(h.Destination)
	if err != nil {
		return Conn{}, err
	}
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if c, ok := s.conns[id]; ok && alive(ctx, c.Remote) {
		c.Host = h
		return c, nil
	}
	if c, ok := s.conns[id]; ok {
		_ = s.ssh.StopForward(ctx, d, c.Remote) // a forward on a dead connection
		delete(s.conns, id)
	}
	r, err := s.ssh.StartRemote(ctx, d, s.mock)
	var lost *LinkError
	if errors.As(err, &lost) && h.State != lost.Probe.State && ctx.Err() == nil {
		// Noticed on the way (not by a probe): the door holds its work from
		// now on, and the recheck sees it come back.
		p := lost.Probe
		p.Fingerprint, p.Info, p.Runtimes = h.Fingerprint, h.Info, h.Runtimes
		if h2, rerr := s.record(ctx, h, p); rerr == nil {
			h = h2
		}
	}
	if err != nil {
		if why := h.NotReady(); why != "" && lost != nil {
			return Conn{}, notReady(why)
		}
		return Conn{}, fmt.Errorf("%s: %w", h.Name, err)
	}
	if h.State == Unreachable {
		s.Check(id) // it answers again: look at all of it (version, runtimes)
	}
	c := Conn{Host: h, Destination: d, Remote: r}
	s.conns[id] = c
	return c, nil
}

// Reach answers whether a ready host answers now, reaching it (and
// keeping the connection for the run) if no connection is alive; a host
// ssh cannot reach is recorded as such, and the answer is why, in words.
func (s *Service) Reach(ctx context.Context, id string) string {
	if _, err := s.Connect(ctx, id); err != nil {
		return err.Error()
	}
	return ""
}

// recheck looks again, every, at each host last found unreachable, so
// one that comes back is ready (and its waiting work starts) without a
// person testing it.
func (s *Service) recheck(every time.Duration) {
	defer s.wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-s.ctx.Done():
			return
		}
		hs, err := s.List(s.ctx)
		if err != nil {
			continue
		}
		for _, h := range hs {
			if h.State == Unreachable {
				s.Check(h.ID)
			}
		}
	}
}

// ErrNotReady is a host that cannot take work now (Connect says which
// and why, in words).
var ErrNotReady = errors.New("the host is not ready")

type notReady string

func (e notReady) Error() string        { return string(e) }
func (e notReady) Is(target error) bool { return target == ErrNotReady }

// Forget drops a host's connection after a request through it failed, so
// the next Connect makes a new one.
func (s *Service) Forget(id string) {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if c, ok := s.conns[id]; ok {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.ssh.StopForward(ctx, c.Destination, c.Remote)
		delete(s.conns, id)
	}
}

// HostRepo makes (once) the host's clone of a repository, under
// ~/.clawboo-host/repos/<key>, and answers its absolute path there. key
// names the repository (its hash); it is checked here, since it reaches a
// shell.
func (s *Service) HostRepo(ctx context.Context, c Conn, key string) (string, error) {
	for _, r := range key {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') || len(key) > 64 {
			return "", fmt.Errorf("a repository key is lowercase hex, not %q", key)
		}
	}
	out, err := s.ssh.Exec(ctx, c.Destination, `command -v git >/dev/null || { echo "git is not installed here" >&2; exit 3; }; `+
		`d="$HOME/.clawboo-host/repos/`+key+`"; mkdir -p "$HOME/.clawboo-host/repos" && { test -d "$d/.git" || { git init -q "$d" && git -C "$d" config receive.autogc false; }; } && cd "$d" && pwd`)
	if err != nil {
		return "", err
	}
	if out.Code != 0 {
		return "", fmt.Errorf("%s: the repository's clone could not be made there: %s", c.Host.Name, orWords(lastLine(out.Stderr), fmt.Sprintf("exit %d", out.Code)))
	}
	return strings.TrimSpace(lastLine(out.Stdout)), nil
}

// BornHead gives the host's clone of a repository a HEAD once it has
// none (a fresh clone's first push): the host's Clawboo takes only a
// repository with a commit. commit is checked here, since it reaches a
// shell.
func (s *Service) BornHead(ctx context.Context, c Conn, key, commit string) error {
	for _, r := range key + commit {
		if !(r >= 'a' && r <= 'f' || r >= '0' && r <= '9') || len(key) > 64 || len(commit) > 64 {
			return fmt.Errorf("%q or %q is not hex", key, commit)
		}
	}
	out, err := s.ssh.Exec(ctx, c.Destination, `cd "$HOME/.clawboo-host/repos/`+key+`" && { git rev-parse -q --verify HEAD >/dev/null || git update-ref --no-deref HEAD `+commit+`; }`)
	if err != nil {
		return err
	}
	if out.Code != 0 {
		return fmt.Errorf("%s: the clone's first commit was not set: %s", c.Host.Name, orWords(lastLine(out.Stderr), fmt.Sprintf("exit %d", out.Code)))
	}
	return nil
}

// alive says the host's server answers through r.
func alive(ctx context.Context, r Remote) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://localhost/api/health", nil)
	res, err := r.Do(req)
	if err != nil {
		return false
	}
	res.Body.Close()
	return res.StatusCode == http.StatusOK
}

// NotReady says why the host cannot take work, in words ("Build box is
// unreachable: …"); "" when it is ready. The one sentence for it: the
// door's deferrals and a refused connect both say this.
func (h Host) NotReady() string {
	if h.State == Ready {
		return ""
	}
	state := string(h.State)
	switch h.State {
	case UnknownHostKey:
		state = "waiting for its host key to be accepted"
	case HostKeyChanged:
		state = "refused (its host key changed)"
	case VersionMismatch:
		state = "not running this Clawboo's version"
	}
	return fmt.Sprintf("%s is %s: %s", h.Name, state, orWords(h.Reason, "not ready"))
}

// GitSSHCommand is the SSH's GitSSHCommand.
func (s *Service) GitSSHCommand() (string, error) { return s.ssh.GitSSHCommand() }
