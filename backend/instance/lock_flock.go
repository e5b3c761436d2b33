//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package instance

import (
	"errors"
	"os"
	"syscall"
)

// lockFile is an open lock file holding a flock(2). Go opens it
// close-on-exec, so children never inherit the lock.
type lockFile struct{ f *os.File }

// lock takes an exclusive flock on path without waiting; held reports that
// another open file (another process) has it.
func lock(path string) (lockFile, bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return lockFile{}, false, err
	}
	raw, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return lockFile{}, false, err
	}
	var ferr error
	if err := raw.Control(func(fd uintptr) {
		for {
			ferr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if !errors.Is(ferr, syscall.EINTR) {
				return
			}
		}
	}); err != nil {
		f.Close()
		return lockFile{}, false, err
	}
	if errors.Is(ferr, syscall.EWOULDBLOCK) || errors.Is(ferr, syscall.EAGAIN) {
		f.Close()
		return lockFile{}, true, nil
	}
	if ferr != nil {
		f.Close()
		return lockFile{}, false, ferr
	}
	return lockFile{f: f}, false, nil
}

// unlock releases the lock by closing the file (which drops the flock).
func (l lockFile) unlock() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}
