package codex

import (
	"context"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/proc"
)

// child is `codex app-server`: a proc child (own process group, bounded
// lines, SIGTERM then SIGKILL to the group, Wait never hangs on
// grandchildren holding the pipes) with its stdin open for JSON-RPC lines.
type child struct {
	*proc.Child
	inMu sync.Mutex // one request line at a time
}

// startChild launches s with a stdin pipe. Cancelling ctx stops it.
func startChild(ctx context.Context, s proc.Spec) (*child, error) {
	s.Stdin = true
	c, err := proc.Start(ctx, s)
	if err != nil {
		return nil, err
	}
	return &child{Child: c}, nil
}

// write sends one line to the child's stdin, bounded by timeout so a child
// that stopped reading cannot hang the caller.
func (c *child) write(b []byte, timeout time.Duration) error {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	in := c.Stdin()
	_ = in.SetWriteDeadline(time.Now().Add(timeout))
	_, err := in.Write(append(b, '\n'))
	return err
}

// closeStdin sends end-of-file (app-server then exits on its own).
func (c *child) closeStdin() {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	_ = c.Stdin().Close()
}
