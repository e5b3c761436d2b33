package proc

import (
	"os/exec"
	"syscall"
)

// InGroup makes cmd start in its own process group, for a child that
// another library starts and pipes itself (mcp-go's stdio transport drives
// an *exec.Cmd of ours), so that KillGroup reaches whatever it spawns.
func InGroup(cmd *exec.Cmd) { cmd.SysProcAttr = groupAttr() }

// KillGroup SIGKILLs what is left of the process group cmd leads (cmd must
// have been started with InGroup); without process groups, the process
// itself.
func KillGroup(cmd *exec.Cmd) {
	if cmd.Process != nil && cmd.Process.Pid > 0 {
		signalGroup(cmd.Process.Pid, syscall.SIGKILL)
	}
}
