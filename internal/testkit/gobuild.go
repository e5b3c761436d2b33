package testkit

import (
	"fmt"
	"os/exec"
)

// GoBuild builds the program pkg (an import path, or a path the go
// command takes) into out with the go command on PATH; its error carries
// the compiler's words. Tests build the module's stand-in programs with it
// (the scripted ACP agent, the fake hermes) instead of each writing the
// command again.
//
// flags go to `go build` before the package (-ldflags for a version).
func GoBuild(pkg, out string, flags ...string) error {
	args := append(append([]string{"build", "-o", out}, flags...), pkg)
	b, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}
