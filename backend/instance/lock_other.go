//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package instance

// lockFile is a no-op where neither flock(2) nor Windows' share modes are
// at hand: the home is not guarded there.
type lockFile struct{}

func lock(string) (lockFile, bool, error) { return lockFile{}, false, nil }

func (lockFile) unlock() error { return nil }
