//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// setGroup starts a stdio server in its own process group, so that what it
// spawns (npx starts node, which may start more) is stopped with it.
func setGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills whatever is left of the server's process group once the
// client has closed (the server itself has been waited for by then).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil && cmd.Process.Pid > 0 {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
