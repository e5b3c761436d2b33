//go:build linux

package claudecode

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// sweep stops what a run's CLI left behind. The CLI starts each shell
// command in a session of its own, so stopping the CLI's process group
// does not reach them, and a CLI that dies hard (or exits while a
// background command runs) orphans them. Every process of the run carries
// the run's marker in its environment; sweep sends those processes'
// groups SIGTERM, then SIGKILL after grace. It returns how many it found.
func sweep(marker string, grace time.Duration) int {
	found := marked(marker)
	if len(found) == 0 {
		return 0
	}
	signalAll(found, syscall.SIGTERM)
	for deadline := time.Now().Add(grace); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if len(marked(marker)) == 0 {
			return len(found)
		}
	}
	signalAll(marked(marker), syscall.SIGKILL)
	return len(found)
}

func signalAll(pids []int, sig syscall.Signal) {
	own := syscall.Getpgrp()
	for _, pid := range pids {
		if pg, err := syscall.Getpgid(pid); err == nil && pg > 1 && pg != own {
			_ = syscall.Kill(-pg, sig)
		}
		_ = syscall.Kill(pid, sig)
	}
}

// marked lists the processes whose environment holds marker (only this
// user's processes are readable).
func marked(marker string) []int {
	needle := []byte("\x00" + marker + "\x00")
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []int
	buf := []byte{0}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || len(env) == 0 {
			continue
		}
		buf = append(append(buf[:1], env...), 0)
		if bytes.Contains(buf, needle) {
			out = append(out, pid)
		}
	}
	return out
}
