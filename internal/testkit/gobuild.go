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
func GoBuild(pkg, out string) error {
	b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}
