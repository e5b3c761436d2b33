//go:build !desktop

package app

import "errors"

// Run fails: this binary was built without the desktop shell.
func Run(Options) error {
	return errors.New("this clawboo was built without the desktop window " +
		"(build with -tags desktop,production,webkit2_41, or run `make run`); use `clawboo serve` to run headless")
}
