//go:build !unix

package claudecode

import (
	"context"
	"errors"
	"os"

	"github.com/clawboo/desktop/backend/proc"
)

func startWithStdin(context.Context, proc.Spec) (*proc.Child, *os.File, func(), error) {
	return nil, nil, nil, errors.New("claude-code runs need a Unix system")
}
