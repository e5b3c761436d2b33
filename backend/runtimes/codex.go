package runtimes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/adapters/codex"
	"github.com/clawboo/desktop/backend/proc"
)

// codexLogin answers whether `codex login` has authenticated, from the
// credential file the CLI writes ($CODEX_HOME/auth.json, default
// ~/.codex/auth.json). The file is re-read only when its size or time
// changes; its contents are checked for shape (the Codex adapter owns
// that format: codex.AuthUsable) and never kept. A re-check
// may also ask the CLI itself (`codex login status`).
type codexLogin struct {
	getenv func(string) string

	mu      sync.Mutex
	stamp   string // size and mtime of the last read
	fromFS  bool
	fromCLI *bool // the CLI's answer since the last invalidate
}

func newCodexLogin(getenv func(string) string) *codexLogin { return &codexLogin{getenv: getenv} }

func (c *codexLogin) authPath() string {
	home := c.getenv("CODEX_HOME")
	if home == "" {
		home = filepath.Join(c.getenv("HOME"), ".codex")
	}
	return filepath.Join(home, "auth.json")
}

func (c *codexLogin) loggedIn() bool {
	path := c.authPath()
	stamp := ""
	if st, err := os.Stat(path); err == nil {
		stamp = fmt.Sprintf("%d/%d", st.ModTime().UnixNano(), st.Size())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if stamp != c.stamp {
		c.stamp = stamp
		c.fromFS = stamp != "" && codex.AuthUsable(path)
	}
	if c.fromCLI != nil {
		return *c.fromCLI || c.fromFS
	}
	return c.fromFS
}

func (c *codexLogin) invalidate() {
	c.mu.Lock()
	c.stamp, c.fromCLI = "\x00", nil
	c.mu.Unlock()
}

// askCLI runs `codex login status` (exit 0 means logged in), bounded to a
// few seconds, with an allowlisted environment.
func (c *codexLogin) askCLI(ctx context.Context, bin string, env []string) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	env = append(env, "CODEX_HOME="+filepath.Dir(c.authPath()))
	child, err := proc.Start(ctx, proc.Spec{Path: bin, Args: []string{"login", "status"}, Env: env, Grace: time.Second})
	if err != nil {
		return
	}
	for range child.Lines() {
	}
	ok := child.Wait().Code == 0
	if ctx.Err() != nil {
		return // no answer: keep what the file says
	}
	c.mu.Lock()
	c.fromCLI = &ok
	c.mu.Unlock()
}
