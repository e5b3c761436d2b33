package hosts

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"
)

// The host's end of a desktop's MCP servers: the desktop's ssh forwards a
// Unix socket into the host's Clawboo home (`ssh -O forward -R
// <home>/mcp-<id>.sock:<the desktop's API>`; sshd makes it the host
// user's only, mode 0600). CLIs take their MCP servers only as URLs, so a
// run that brought the desktop's attachment gets a loopback port of its
// own that pipes each connection to that socket, for as long as the run
// lives. Every request through it still needs the run's own token, which
// the desktop revokes when the run ends.

// mcpSocketName is a reverse forward's socket in the host's home.
var mcpSocketName = regexp.MustCompile(`^mcp-[0-9a-f]{12}\.sock$`)

// maxRelayConns bounds the connections one run's relay pipes at once.
const maxRelayConns = 32

// RelayMCP serves socket (a reverse forward's, directly in home) on a
// fresh loopback port until ctx ends, and answers its base URL. A socket
// anywhere else, or one that is not a socket, is refused.
func RelayMCP(ctx context.Context, home, socket string) (string, error) {
	if filepath.Dir(socket) != filepath.Clean(home) || !mcpSocketName.MatchString(filepath.Base(socket)) {
		return "", errors.New("the MCP socket is not a reverse forward's in this host's Clawboo home")
	}
	if fi, err := os.Lstat(socket); err != nil || fi.Mode()&os.ModeSocket == 0 {
		return "", errors.New("the desktop's MCP socket is not there (its ssh forward is down)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	slots := make(chan struct{}, maxRelayConns)
	var mu sync.Mutex
	open := map[net.Conn]struct{}{}
	track := func(c net.Conn, on bool) {
		mu.Lock()
		defer mu.Unlock()
		if on {
			open[c] = struct{}{}
		} else {
			delete(open, c)
		}
	}
	context.AfterFunc(ctx, func() {
		_ = ln.Close()
		mu.Lock()
		for c := range open {
			_ = c.Close()
		}
		mu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			select {
			case slots <- struct{}{}:
			default:
				_ = c.Close() // too many at once: the client retries
				continue
			}
			go func() {
				defer func() { <-slots }()
				pipe(ctx, c, socket, track)
			}()
		}
	}()
	return "http://" + ln.Addr().String(), nil
}

// pipe joins c to a fresh connection to socket until either side ends.
func pipe(ctx context.Context, c net.Conn, socket string, track func(net.Conn, bool)) {
	track(c, true)
	defer func() { track(c, false); _ = c.Close() }()
	d := net.Dialer{Timeout: 10 * time.Second}
	up, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return
	}
	track(up, true)
	defer func() { track(up, false); _ = up.Close() }()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); closeWrite(up); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); closeWrite(c); done <- struct{}{} }()
	<-done
	<-done
}

// closeWrite half-closes a connection that can, so the other side reads
// the end of the request while its answer still flows back.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	} else {
		_ = c.Close()
	}
}
