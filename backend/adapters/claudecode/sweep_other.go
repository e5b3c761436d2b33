//go:build !linux

package claudecode

import "time"

// sweep needs /proc to find a run's orphaned commands; elsewhere stopping
// the CLI's process group is all there is.
func sweep(string, time.Duration) int { return 0 }
