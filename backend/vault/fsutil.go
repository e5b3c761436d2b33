package vault

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
)

// Everything under secrets/ is owner-only.
const (
	dirMode  os.FileMode = 0o700
	fileMode os.FileMode = 0o600
	// maxReadSize bounds any file the vault reads into memory.
	maxReadSize = 1 << 20
)

// ensureDir creates dir owner-only, or tightens an existing one (best
// effort on Windows, which has no Unix modes).
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if runtime.GOOS == "windows" {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("stat %s: %w", dir, err)
	}
	if fi.Mode().Perm() != dirMode {
		if err := os.Chmod(dir, dirMode); err != nil {
			return fmt.Errorf("restrict %s to its owner: %w", dir, err)
		}
	}
	return nil
}

// writeAtomic replaces path with data (mode 0600) through a temporary file
// and a rename, so a reader sees the old or the new file, never a torn one.
func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := ensureDir(dir); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err = f.Chmod(fileMode); err != nil && runtime.GOOS != "windows" {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// readSmall reads a file of at most maxReadSize bytes. A missing file is
// (nil, nil, nil); info identifies the version read.
func readSmall(path string) (data []byte, info os.FileInfo, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, nil, err
	}
	if info.Size() > maxReadSize {
		return nil, info, fmt.Errorf("%s is larger than %d bytes", path, maxReadSize)
	}
	data, err = io.ReadAll(io.LimitReader(f, maxReadSize+1))
	return data, info, err
}

// statVersion is a cheap identity of a file's current version (nil when
// it does not exist).
func statVersion(path string) os.FileInfo {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	return fi
}

// sameVersion reports whether two stats describe the same file content.
// os.SameFile catches an atomic replace (a new inode) that kept the size
// and the coarse mtime tick.
func sameVersion(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}
