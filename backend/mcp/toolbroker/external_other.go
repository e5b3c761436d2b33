//go:build !unix

package mcp

import "os/exec"

// Without process groups, closing the client stops the server itself; its
// own children are its business.
func setGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
