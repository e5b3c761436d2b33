package worktree

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/proc"
)

// Errors a caller can tell apart with errors.Is, to explain to a person why
// a task could not get a worktree.
var (
	ErrGitMissing  = errors.New("git is not installed")
	ErrBadTaskID   = errors.New("invalid task id")
	ErrNoRepo      = errors.New("does not exist")       // "repository <path> does not exist"
	ErrNotRepo     = errors.New("not a git repository") // "<path> is not a git repository"
	ErrUnknownBase = errors.New("unknown base ref")
	ErrBadWorktree = errors.New("worktree does not belong to this manager")
)

// Options configure a Manager.
type Options struct {
	Home string // worktrees live in <Home>/worktrees/<repoHash>/<taskID>
	Git  string // path of git ("" = resolve "git" on PATH via proc)
	// Environ is the server's environment. Children get only an allowlist
	// of it (gitEnvNames, verifyEnvNames): no GIT_* and never a provider
	// key. nil = os.Environ.
	Environ func() []string
	// TaskEnv, when set, adds a task's own variables to its setup, verify
	// and teardown children (its ports: CLAWBOO_PORT, CLAWBOO_PORTS).
	// Only CLAWBOO_* names pass.
	TaskEnv func(taskID string) map[string]string
	Log     *slog.Logger
}

// Manager provisions and retires task worktrees. It is safe for concurrent
// use; it holds no state beyond its options and the per-path locks.
type Manager struct {
	root    string // <Home>/worktrees, symlinks resolved
	git     string
	sh      string
	environ func() []string
	taskEnv func(taskID string) map[string]string
	log     *slog.Logger
	locks   keyedMutex
	commons commonDirs
	// includes caches each base commit's include globs (include.go).
	includes includeCache

	// checked is closed when `git --version` has answered (gitErr says
	// how). The check runs in the background so the spawn is off the start
	// path; every git call waits for it, and Usable reports it.
	checked chan struct{}
	gitErr  error
}

// gitTimeout bounds every git command: git may hang on a network file
// system or a stuck lock, and a task must not hang with it.
const gitTimeout = 2 * time.Minute

// New checks that git runs and prepares <Home>/worktrees.
func New(opts Options) (*Manager, error) {
	if opts.Home == "" {
		return nil, errors.New("worktree: Home is required")
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	home, err := filepath.Abs(opts.Home)
	if err != nil {
		return nil, fmt.Errorf("worktree home: %w", err)
	}
	root := filepath.Join(home, "worktrees")
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("worktree home: %w", err)
	}
	// Resolved once, so the paths we hand git match the ones it prints.
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return nil, fmt.Errorf("worktree home: %w", err)
	}
	env := opts.Environ()
	getenv := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if name, v, ok := strings.Cut(env[i], "="); ok && name == k {
				return v
			}
		}
		return ""
	}
	res := proc.NewResolver(proc.ResolverOptions{Getenv: getenv, NoWatch: true})
	defer res.Close()
	git := opts.Git
	if git == "" {
		p, ok := res.Find("git")
		if !ok {
			return nil, fmt.Errorf("%w (not found on PATH): install git to run code tasks in worktrees", ErrGitMissing)
		}
		git = p
	}
	sh, ok := res.Find("sh")
	if !ok {
		sh = "/bin/sh"
	}
	// A binary that is not there fails now; one that is there but does not
	// run is found by the background check.
	if fi, err := os.Stat(git); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("%w (%s is not an executable file)", ErrGitMissing, git)
	}
	m := &Manager{root: root, git: git, sh: sh, environ: opts.Environ, taskEnv: opts.TaskEnv, log: opts.Log, checked: make(chan struct{})}
	go func() {
		defer close(m.checked)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := m.gitOnce(ctx, call{args: []string{"--version"}}); err != nil {
			m.gitErr = fmt.Errorf("%w (%s does not run): %v", ErrGitMissing, git, err)
			m.log.Warn("code tasks cannot run: no worktrees", "err", m.gitErr)
		}
	}()
	return m, nil
}

// Usable waits for the start-up check of git and reports whether it runs
// (an error wrapping ErrGitMissing when it does not).
func (m *Manager) Usable(ctx context.Context) error {
	select {
	case <-m.checked:
		return m.gitErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// NeedsWorktree says whether a task of this kind edits files: research and
// review tasks only read, so they run without a worktree; code and any kind
// we do not know get one (isolation is the safe default).
func NeedsWorktree(kind string) bool {
	return kind != "research" && kind != "review"
}

// Worktree identifies one task's checkout. The task runner stores it; every
// field is derived from RepoPath and TaskID except BaseCommit.
type Worktree struct {
	TaskID     string
	RepoPath   string // absolute, symlinks resolved, the repository's top level
	RepoHash   string // first 12 hex digits of sha1(RepoPath)
	Path       string // <Home>/worktrees/<RepoHash>/<TaskID>
	Branch     string // clawboo/task-<TaskID>
	BaseCommit string // the commit the branch started from; diffs are against it
	// Message is the message of the commits Clawboo makes of the task's
	// work (its title, then trailers naming the agent and the task), so a
	// fast-forward puts a readable commit on the base; "" = "clawboo: task
	// <id>". It is not part of the record: the caller derives it each time.
	Message string
}

// workMessage is the message of a commit of the task's work; pause marks
// one made when the task was paused midway.
func (w Worktree) workMessage(pause bool) string {
	if strings.TrimSpace(w.Message) == "" {
		if pause {
			return "clawboo: pause task " + w.TaskID
		}
		return "clawboo: task " + w.TaskID
	}
	if !pause {
		return w.Message
	}
	subject, rest, _ := strings.Cut(w.Message, "\n")
	return subject + " (work in progress)" + "\n" + rest
}

// Compiled on first use: a counted repetition compiles to a state per
// count, which cost start-up time as a package-level var.
var taskIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`) })

// validTaskID keeps the id usable as a path element and a ref component:
// git also refuses "..", a trailing "." and a ".lock" suffix.
func validTaskID(id string) error {
	if !taskIDPattern().MatchString(id) || strings.Contains(id, "..") ||
		strings.HasSuffix(id, ".") || strings.HasSuffix(id, ".lock") {
		return fmt.Errorf("%w %q: use letters, digits, '.', '_' and '-' (at most 128, no '..')", ErrBadTaskID, id)
	}
	return nil
}

// RepoHash names a repository's folder under worktrees/: the first 12 hex
// digits of the SHA-1 of its resolved path.
func RepoHash(repo string) string { return repoHash(repo) }

func repoHash(repo string) string {
	sum := sha1.Sum([]byte(repo))
	return hex.EncodeToString(sum[:])[:12]
}

func branchOf(taskID string) string  { return "clawboo/task-" + taskID }
func baseRefOf(taskID string) string { return "refs/clawboo/base/" + taskID }

func (m *Manager) worktreeFor(repo, taskID, base string) Worktree {
	h := repoHash(repo)
	return Worktree{
		TaskID: taskID, RepoPath: repo, RepoHash: h, Path: filepath.Join(m.root, h, taskID),
		Branch: branchOf(taskID), BaseCommit: base,
	}
}

// Compiled on first use: a counted repetition compiles to a state per
// count, which cost start-up time as a package-level var.
var hexPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`) })

// check refuses a Worktree that this manager would not have made: the path
// we might delete must be the one derived from the repository and task id.
func (m *Manager) check(w Worktree, needBase bool) error {
	if err := validTaskID(w.TaskID); err != nil {
		return err
	}
	want := m.worktreeFor(w.RepoPath, w.TaskID, w.BaseCommit)
	want.Message = w.Message // a commit message, not a place: nothing to derive
	if !filepath.IsAbs(w.RepoPath) || filepath.Clean(w.RepoPath) != w.RepoPath || w != want {
		return fmt.Errorf("%w: task %s at %q", ErrBadWorktree, w.TaskID, w.Path)
	}
	if (needBase || w.BaseCommit != "") && !hexPattern().MatchString(w.BaseCommit) {
		return fmt.Errorf("%w: task %s has base commit %q", ErrBadWorktree, w.TaskID, w.BaseCommit)
	}
	return nil
}

// present says whether the worktree's directory is there. Whether its
// ".git" link is sound is a separate question (readLink), asked by every
// git command run inside it: a worktree whose link was tampered with is
// still present, so its files are refused, never taken for stale and
// deleted.
func present(w Worktree) bool {
	st, err := os.Lstat(w.Path)
	return err == nil && st.IsDir()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
