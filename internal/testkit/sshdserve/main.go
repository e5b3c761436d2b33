// Command sshdserve starts the tests' real sshd (testkit.NewSSHD: a second
// Unix user as the remote host, on a loopback port) for a test that is not
// Go (the browser suites), prints one JSON line describing it, and undoes
// it all when its standard input closes or it is told to stop. It needs
// root, as the Go tests' does.
//
//	{"alias":…, "config":…, "user":…, "port":…, "hostKey":…, "fingerprint":…}
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/clawboo/desktop/internal/testkit"
)

func main() { os.Exit(serve()) }

func serve() int {
	if why := testkit.SSHDMissing(); why != "" {
		fmt.Fprintln(os.Stderr, "sshdserve:", why)
		return 3
	}
	dir, err := os.MkdirTemp("", "clawboo-sshd-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "sshdserve:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	s, err := testkit.NewSSHD(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sshdserve:", err)
		return 1
	}
	defer s.Close()
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{
		"alias": s.Alias, "config": s.Config, "user": s.User, "port": s.Port, "hostKey": s.HostKey, "fingerprint": s.Fingerprint,
	})
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-done:
	case <-sig:
	}
	return 0
}
