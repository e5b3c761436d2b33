package worktree

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/proc"
)

// gitEnvNames is what git needs from the server's environment: proc's base
// set (PATH, HOME, locale, proxies) plus where the user's git config lives.
// No GIT_* variable passes; see the package comment.
func gitEnvNames() []string {
	return append(proc.BaseEnv(), "XDG_CONFIG_HOME")
}

// gitError is a git command that exited non-zero.
type gitError struct {
	args   []string
	code   int
	stderr string
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.code)
	}
	return fmt.Sprintf("git %s: %s", verb(e.args), msg)
}

// verb is the git subcommand in args, past any "-c name=value".
func verb(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" {
			i++
			continue
		}
		return args[i]
	}
	return ""
}

// exitCode is the exit status of a failed git command, or -1.
func exitCode(err error) int {
	var ge *gitError
	if errors.As(err, &ge) {
		return ge.code
	}
	return -1
}

// call is one git invocation.
type call struct {
	dir     string
	args    []string
	env     map[string]string // added to the child's environment
	inside  bool              // dir is a worktree of repo: check its link, pass its git dir explicitly
	repo    string            // with inside: the repository the worktree belongs to
	limit   int               // stdout bytes kept (default 8 MiB); the rest is cut
	noRetry bool
	// userIdentity leaves out Clawboo's default identity, so git sees the
	// user's own user.name and user.email (merge_identity.go).
	userIdentity bool
}

// result is what a call printed on stdout, and whether it was cut.
type result struct {
	out string
	cut bool
}

// run is git with args in dir.
func (m *Manager) run(ctx context.Context, dir string, args ...string) (string, error) {
	r, err := m.gitCall(ctx, call{dir: dir, args: args})
	return r.out, err
}

// runIn is git with args inside worktree w.
func (m *Manager) runIn(ctx context.Context, w Worktree, args ...string) (string, error) {
	r, err := m.gitCall(ctx, w.in(args...))
	return r.out, err
}

// in is a call inside worktree w.
func (w Worktree) in(args ...string) call {
	return call{dir: w.Path, repo: w.RepoPath, args: args, inside: true}
}

// worktreeCmd runs `git worktree args...` in repo, one at a time per
// repository: git reads every registration while adding, listing or
// pruning, and a neighbour's half-written one makes it fail ("failed to
// read .../commondir") or, for prune, delete it. Checkouts of one
// repository's tasks therefore run one after another; everything else
// (commits, diffs, verify) runs in parallel.
func (m *Manager) worktreeCmd(ctx context.Context, repo string, args ...string) (string, error) {
	unlock, err := m.locks.lock(ctx, "repo\x00"+repo)
	if err != nil {
		return "", err
	}
	defer unlock()
	// Parallel checkout (one worker per core, for 100 files or more): on
	// a 10,000-file repository it cuts the checkout by a third to a half.
	return m.run(ctx, repo, append([]string{"-c", "checkout.workers=0", "worktree"}, args...)...)
}

// gitCall runs git, retrying a few times when another git process holds a
// lock we need (parallel tasks in one repository share its ref store and
// worktree registry).
func (m *Manager) gitCall(ctx context.Context, c call) (result, error) {
	if err := m.Usable(ctx); err != nil {
		return result{}, err
	}
	delay := 20 * time.Millisecond
	for attempt := 0; ; attempt++ {
		r, err := m.gitOnce(ctx, c)
		if err == nil || c.noRetry || attempt >= 6 || !lockContention(err) || ctx.Err() != nil {
			return r, err
		}
		m.log.Debug("git lock busy, retrying", "args", verb(c.args), "attempt", attempt+1)
		t := time.NewTimer(delay + rand.N(delay))
		select {
		case <-ctx.Done():
			t.Stop()
			return r, err
		case <-t.C:
		}
		delay *= 2
	}
}

func lockContention(err error) bool {
	var ge *gitError
	if !errors.As(err, &ge) {
		return false
	}
	s := ge.stderr
	return strings.Contains(s, ".lock': File exists") || strings.Contains(s, "Unable to create") && strings.Contains(s, ".lock") ||
		strings.Contains(s, "cannot lock ref") || strings.Contains(s, "could not lock") ||
		// another git process is halfway through adding a worktree
		strings.Contains(s, "failed to read") && (strings.Contains(s, "/commondir") || strings.Contains(s, "/gitdir"))
}

func (m *Manager) gitOnce(ctx context.Context, c call) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	extra := map[string]string{
		"GIT_TERMINAL_PROMPT": "0",
		"GIT_OPTIONAL_LOCKS":  "0", // reads never take index.lock
		"GIT_PAGER":           "cat",
		"LC_ALL":              "C", // messages we match are English
	}
	var where []string
	if c.inside {
		// The worktree's files (its .git link included) may be an agent's:
		// check the link against git's own records and name the git dir
		// and work tree explicitly, so a forged one is never read, even if
		// it changes after the check. git also never looks for a
		// repository above the worktree.
		gitDir, err := m.linkedGitDir(ctx, c.dir, c.repo)
		if err != nil {
			return result{}, err
		}
		where = []string{"--git-dir=" + gitDir, "--work-tree=" + c.dir}
		extra["GIT_CEILING_DIRECTORIES"] = filepath.Dir(c.dir)
	}
	for k, v := range c.env {
		extra[k] = v
	}
	args := []string{
		"-c", "core.hooksPath=" + os.DevNull, // never run the repository's hooks
		"-c", "core.fsmonitor=false", // no daemon outliving the command
		"-c", "gc.auto=0", "-c", "maintenance.auto=false",
		"-c", "commit.gpgsign=false", "-c", "color.ui=false", "-c", "core.quotepath=false",
	}
	if !c.userIdentity {
		args = append(args, "-c", "user.name="+clawbooName, "-c", "user.email="+clawbooEmail) // works with no identity set
	}
	args = append(args, append(where, c.args...)...)
	began := time.Now()
	child, err := proc.Start(ctx, proc.Spec{
		Path: m.git, Args: args, Dir: c.dir,
		Env: proc.AllowEnv(m.environ(), gitEnvNames(), nil, extra),
	})
	if err != nil {
		return result{}, fmt.Errorf("git %s: %w", verb(c.args), err)
	}
	limit := c.limit
	if limit <= 0 {
		limit = 8 << 20
	}
	var out strings.Builder
	var errTail string
	cut := false
	for l := range child.Lines() {
		if l.Stderr {
			errTail = tail(errTail+l.Text+"\n", 2000)
			continue
		}
		if cut {
			continue
		}
		if out.Len()+len(l.Text)+1 > limit {
			cut = true
			child.Stop() // we have what we keep; do not wait for the rest
			continue
		}
		out.WriteString(l.Text)
		out.WriteByte('\n')
	}
	exit := child.Wait()
	m.log.Debug("git", "args", c.args, "code", exit.Code, "ms", time.Since(began).Milliseconds())
	r := result{out: out.String(), cut: cut}
	switch {
	case cut:
		return r, nil
	case ctx.Err() != nil:
		return r, fmt.Errorf("git %s: %w", verb(c.args), ctx.Err())
	case exit.Err != nil:
		return r, fmt.Errorf("git %s: %w", verb(c.args), exit.Err)
	case exit.Code != 0:
		return r, &gitError{args: c.args, code: exit.Code, stderr: errTail}
	}
	return r, nil
}

// tail is the last n bytes of s, starting on a rune boundary.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && s[i]&0xC0 == 0x80 {
		i++
	}
	return s[i:]
}

type registration struct {
	branch       string // "refs/heads/…", or "" when detached
	prunable     bool
	initializing bool
}

// registered lists the repository's worktrees by path.
func (m *Manager) registered(ctx context.Context, repo string) (map[string]registration, error) {
	out, err := m.worktreeCmd(ctx, repo, "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	regs := map[string]registration{}
	var path string
	var cur registration
	flush := func() {
		if path != "" {
			if real, err := filepath.EvalSymlinks(path); err == nil {
				path = real
			}
			regs[path] = cur
		}
		path, cur = "", registration{}
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		switch k {
		case "":
			flush()
		case "worktree":
			flush()
			path = filepath.Clean(v)
		case "branch":
			cur.branch = v
		case "prunable":
			cur.prunable = true
		case "locked":
			cur.initializing = v == "initializing"
		}
	}
	flush()
	return regs, nil
}
