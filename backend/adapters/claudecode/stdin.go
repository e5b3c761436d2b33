//go:build unix

package claudecode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/clawboo/desktop/backend/proc"
)

// startWithStdin starts spec through proc (own process group, bounded
// lines, allowlisted environment) with its standard input on a FIFO the
// adapter writes: proc.Spec has no stdin, so /bin/sh opens the FIFO and
// execs the program in its place (same pid, same group). The FIFO is
// opened read-write here first, so neither side ever blocks on open.
// cleanup removes the FIFO once the child is gone.
func startWithStdin(ctx context.Context, spec proc.Spec) (child *proc.Child, stdin *os.File, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "clawboo-claude-stdin-")
	if err != nil {
		return nil, nil, nil, err
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	fifo := filepath.Join(dir, "stdin")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		cleanup()
		return nil, nil, nil, fmt.Errorf("make stdin fifo: %w", err)
	}
	stdin, err = os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		cleanup()
		return nil, nil, nil, fmt.Errorf("open stdin fifo: %w", err)
	}
	spec.Args = append([]string{"-c", `f=$1; shift; exec "$@" <"$f"`, "clawboo-claude", fifo, spec.Path}, spec.Args...)
	spec.Path = "/bin/sh"
	child, err = proc.Start(ctx, spec)
	if err != nil {
		stdin.Close()
		cleanup()
		return nil, nil, nil, err
	}
	return child, stdin, cleanup, nil
}
