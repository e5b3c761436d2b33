package hosts

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/internal/testkit"
)

// The relay pipes a loopback port to the reverse forward's socket for as
// long as its context lives, and takes only a socket named as one in the
// home it is given.
func TestRelayMCPPipesToTheSocketWhileTheRunLives(t *testing.T) {
	home, err := os.MkdirTemp("", "relay-") // short: a socket path's limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	sock := filepath.Join(home, "mcp-0123456789ab.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "home answers "+r.URL.Path)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	for _, bad := range []string{filepath.Join(home, "other.sock"), filepath.Join(home, "sub", "mcp-0123456789ab.sock"), "/tmp/mcp-0123456789ab.sock"} {
		if _, err := RelayMCP(context.Background(), home, bad); err == nil {
			t.Fatalf("relayed %s", bad)
		}
	}
	if _, err := RelayMCP(context.Background(), home, filepath.Join(home, "mcp-00000000000f.sock")); err == nil || !strings.Contains(err.Error(), "forward is down") {
		t.Fatalf("a missing socket: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	base, err := RelayMCP(ctx, home, sock)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("base %q is not loopback", base)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: false}, Timeout: 5 * time.Second}
	res, err := client.Get(base + "/mcp/tasks")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "home answers /mcp/tasks" {
		t.Fatalf("through the relay: %q", body)
	}
	cancel()
	testkit.EventuallySays(t, 5*time.Second, "the relay closed with the run", func() (bool, string) {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second)
		if err == nil {
			c.Close()
			return false, "it still takes connections"
		}
		return true, ""
	})
}
