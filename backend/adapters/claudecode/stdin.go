package claudecode

import (
	"context"
	"os"

	"github.com/clawboo/desktop/backend/proc"
)

// startWithStdin starts spec through proc (own process group, bounded
// lines, allowlisted environment) with a pipe on its standard input, which
// the adapter writes its user lines and control requests to. cleanup is
// kept for the callers' symmetry; the pipe is proc's to close.
func startWithStdin(ctx context.Context, spec proc.Spec) (child *proc.Child, stdin *os.File, cleanup func(), err error) {
	spec.Stdin = true
	child, err = proc.Start(ctx, spec)
	if err != nil {
		return nil, nil, nil, err
	}
	return child, child.Stdin(), func() {}, nil
}
