package hosts

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Remote is a host's Clawboo server, reached over a Unix socket the
// person's ssh forwards (`ssh -O forward -L local:remote` on the shared
// connection): plain HTTP to the same API, with the host's own token. No
// port is open on either side.
type Remote struct {
	// Client dials the forwarded socket; requests go to http://localhost.
	Client *http.Client
	Token  string
	// MCPSocket is the socket on the host that reaches this computer's
	// API (a reverse forward into the host's Clawboo home); "" when none.
	MCPSocket string
	local     string
	remote    string
}

// Do sends one request to the host's API with its token.
func (r Remote) Do(req *http.Request) (*http.Response, error) {
	req.Header.Set("Authorization", "Bearer "+r.Token)
	return r.Client.Do(req)
}

// StartRemote starts the host's server unless it runs (it outlives this
// connection), forwards its socket here and returns a client for it.
func (s *SSH) StartRemote(ctx context.Context, d Destination, mock bool) (Remote, error) {
	flag := ""
	if mock {
		flag = " --enable-mock"
	}
	back, mcpName := s.reachBack(d)
	clear := ""
	if back != "" {
		// A forward a dead connection left is in the way of a new one (sshd
		// unlinks it only when configured to); a run's relay dials again.
		clear = `rm -f "$HOME/.clawboo-host/` + mcpName + `"; `
	}
	out, err := s.Exec(ctx, d, clear+hostBinary+` host --start`+flag+` && printf 'token:%s\n' "$(cat "$HOME/.clawboo-host/api-token")"`)
	if err != nil {
		return Remote{}, err
	}
	var remote, token string
	for _, l := range strings.Split(out.Stdout, "\n") {
		if t, ok := strings.CutPrefix(l, "token:"); ok {
			token = strings.TrimSpace(t)
		} else if strings.HasPrefix(l, "/") && strings.HasSuffix(l, ".sock") {
			remote = strings.TrimSpace(l)
		}
	}
	if out.Code == sshFailed {
		return Remote{}, &LinkError{Probe: classify(out.Stderr)}
	}
	if out.Code != 0 || remote == "" || token == "" {
		return Remote{}, fmt.Errorf("the host's Clawboo did not start: %s", orWords(lastLine(out.Stderr), fmt.Sprintf("exit %d", out.Code)))
	}
	sum := sha256.Sum256([]byte(d.Target + "\x00" + remote))
	local := filepath.Join(s.controlDir(), fmt.Sprintf("fwd-%x.sock", sum[:6]))
	_ = os.Remove(local) // a forward a dead connection left
	fwd, err := s.run(ctx, "ssh", append(s.options(), "-O", "forward", "-L", local+":"+remote, "--", d.Target), nil)
	if err != nil {
		return Remote{}, err
	}
	if fwd.Code != 0 {
		return Remote{}, fmt.Errorf("ssh could not forward the host's socket: %s", orWords(lastLine(fwd.Stderr), "no reason given"))
	}
	mcpSock := ""
	if back != "" {
		mcpSock = filepath.Join(filepath.Dir(remote), mcpName)
		fwd, err := s.run(ctx, "ssh", append(s.options(), "-O", "forward", "-R", mcpSock+":"+back, "--", d.Target), nil)
		if err == nil && fwd.Code != 0 {
			err = fmt.Errorf("ssh could not forward this computer's MCP servers there: %s", orWords(lastLine(fwd.Stderr), "no reason given"))
		}
		if err != nil {
			_, _ = s.run(ctx, "ssh", append(s.options(), "-O", "cancel", "-L", local+":"+remote, "--", d.Target), nil)
			return Remote{}, err
		}
	}
	r := Remote{Token: token, MCPSocket: mcpSock, local: local, remote: remote, Client: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{Timeout: 10 * time.Second}).DialContext(ctx, "unix", local)
		},
	}}}
	return r, nil
}

// sshFailed is ssh's own exit status when it could not reach the host (a
// remote command's status is passed through otherwise).
const sshFailed = 255

// LinkError is a host ssh could not reach (refused, timed out, its key
// changed), with what a probe would have said of it.
type LinkError struct{ Probe Probe }

func (e *LinkError) Error() string { return e.Probe.Reason }

// StopForward ends the forward of r (the host's server goes on).
func (s *SSH) StopForward(ctx context.Context, d Destination, r Remote) error {
	if r.local == "" {
		return errors.New("no forward")
	}
	_, err := s.run(ctx, "ssh", append(s.options(), "-O", "cancel", "-L", r.local+":"+r.remote, "--", d.Target), nil)
	_ = os.Remove(r.local)
	if back, _ := s.reachBack(d); back != "" && r.MCPSocket != "" {
		_, _ = s.run(ctx, "ssh", append(s.options(), "-O", "cancel", "-R", r.MCPSocket+":"+back, "--", d.Target), nil)
	}
	return err
}

// reachBack is this computer's API address to forward to d and the name
// of the socket it is forwarded to in the host's Clawboo home (named for
// this Clawboo and d, so two desktops on one host account do not meet);
// "" when there is nothing to forward.
func (s *SSH) reachBack(d Destination) (addr, name string) {
	if s.ReachBack == nil {
		return "", ""
	}
	addr = s.ReachBack()
	if host, port, err := net.SplitHostPort(addr); err != nil || !net.ParseIP(host).IsLoopback() || port == "" {
		return "", ""
	}
	sum := sha256.Sum256([]byte(s.Dir + "\x00" + d.Target))
	return addr, fmt.Sprintf("mcp-%x.sock", sum[:6])
}
