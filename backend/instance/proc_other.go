//go:build !unix && !windows

package instance

import (
	"fmt"
	"os"
)

func alive(int) bool { return true }

func ownedPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	return nil
}
