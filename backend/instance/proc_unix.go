//go:build unix

package instance

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// alive reports whether a process with this pid exists (EPERM: it does,
// as another user's).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ownedPrivateDir checks that dir is a real folder (no symlink) of this
// user that nobody else may enter.
func ownedPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a folder", dir)
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s is not this user's", dir)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%s is open to others (%v)", dir, fi.Mode().Perm())
	}
	return nil
}
