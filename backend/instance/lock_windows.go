//go:build windows

package instance

import (
	"errors"
	"syscall"
)

// lockFile is the lock file opened with no sharing at all: while this
// handle is open no other process can open the file, and Windows closes it
// when the process ends, however it ends. The handle is not inheritable.
type lockFile struct{ h syscall.Handle }

const errorSharingViolation syscall.Errno = 32

func lock(path string) (lockFile, bool, error) {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return lockFile{}, false, err
	}
	h, err := syscall.CreateFile(p, syscall.GENERIC_READ|syscall.GENERIC_WRITE, 0, nil,
		syscall.OPEN_ALWAYS, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if errors.Is(err, errorSharingViolation) {
		return lockFile{}, true, nil
	}
	if err != nil {
		return lockFile{}, false, err
	}
	return lockFile{h: h}, false, nil
}

func (l lockFile) unlock() error {
	if l.h == 0 {
		return nil
	}
	return syscall.CloseHandle(l.h)
}
