//go:build !unix

package main

import (
	"fmt"
	"io"
)

// hostCommand: `clawboo host` serves another machine's runs on a Unix
// socket and starts detached with setsid; it runs on Linux and macOS.
func hostCommand(_ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "clawboo host: a host runs Linux or macOS; this build is for another system")
	return 2
}
