//go:build unix

package codex

import "syscall"

func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// signalGroup signals every process in the group led by pid.
func signalGroup(pid int, sig syscall.Signal) { _ = syscall.Kill(-pid, sig) }
