//go:build !unix

package codex

import (
	"os"
	"syscall"
)

func groupAttr() *syscall.SysProcAttr { return nil }

// signalGroup kills the process itself: without Unix process groups, its
// children are not reached.
func signalGroup(pid int, _ syscall.Signal) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
