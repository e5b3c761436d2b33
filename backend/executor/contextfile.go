package executor

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// ContextDir is where runtimes that take context as files (Claude Code,
// Codex, Hermes) keep the notes WriteContext gives them, relative to the
// run's working folder. The worktree manager leaves it out of a task's
// commits and diffs.
const ContextDir = ".clawboo/context"

// MaxContextValue bounds one context note.
const MaxContextValue = 1 << 20

// Compiled on first use: a counted repetition compiles to a state per
// count, which cost start-up time as a package-level var.
var contextKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`) })

// WriteContextFile is WriteContext for a runtime that reads context from
// files: key's value becomes ContextDir/<key>.md inside workDir. A run
// without a working folder keeps nothing (and that is not an error); a key
// that is not a plain name, or a value over MaxContextValue, is refused.
func WriteContextFile(workDir, key, value string) error {
	if workDir == "" {
		return nil
	}
	if !contextKey().MatchString(key) || strings.Trim(key, ".") == "" {
		return fmt.Errorf("context key %q: use letters, digits, '.', '_' or '-' (at most 64)", key)
	}
	if len(value) > MaxContextValue {
		return fmt.Errorf("context value of %d bytes is over the %d-byte limit", len(value), MaxContextValue)
	}
	dir := filepath.Join(workDir, filepath.FromSlash(ContextDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, key+".md"), []byte(value), 0o644)
}
