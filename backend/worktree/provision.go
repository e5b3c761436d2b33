package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ProvisionSpec names the task and where its work starts.
type ProvisionSpec struct {
	TaskID   string
	RepoPath string // any folder inside the repository's work tree
	BaseRef  string // branch, tag or commit to start from; "" = HEAD
}

// errRefused is a state we will not repair automatically, because doing so
// could throw away someone's work.
var errRefused = errors.New("refusing to replace it")

// Provision returns the task's worktree, creating it if needed. An existing
// registered worktree is reused as is; a branch left by Pause is checked out
// again without being reset; otherwise the branch starts at BaseRef. Calls
// for one task are serialized; a failed attempt is cleaned up and retried
// once.
func (m *Manager) Provision(ctx context.Context, s ProvisionSpec) (Worktree, error) {
	if err := validTaskID(s.TaskID); err != nil {
		return Worktree{}, err
	}
	repo, err := m.resolveRepo(ctx, s.RepoPath)
	if err != nil {
		return Worktree{}, err
	}
	point, err := m.branchPoint(ctx, repo, s.BaseRef)
	if err != nil {
		return Worktree{}, err
	}
	w := m.worktreeFor(repo, s.TaskID, "")
	unlock, err := m.locks.lock(ctx, w.Path)
	if err != nil {
		return Worktree{}, err
	}
	defer unlock()
	if err := m.writeRepoFile(w); err != nil {
		return Worktree{}, err
	}
	var last error
	for attempt := 1; attempt <= 2; attempt++ {
		got, err := m.provisionOnce(ctx, w, point)
		if err == nil {
			return got, nil
		}
		last = err
		if errors.Is(err, errRefused) || ctx.Err() != nil {
			break
		}
		m.log.Warn("worktree provision failed; cleaning up", "task", s.TaskID, "attempt", attempt, "err", err)
		m.cleanup(ctx, w)
	}
	return Worktree{}, fmt.Errorf("worktree for task %s: %w", s.TaskID, last)
}

func (m *Manager) provisionOnce(ctx context.Context, w Worktree, point string) (Worktree, error) {
	regs, err := m.registered(ctx, w.RepoPath)
	if err != nil {
		return w, err
	}
	reg, isReg := regs[w.Path]
	// A worktree still locked "initializing" is one whose git worktree add
	// died mid-checkout: its files are partial, so it is stale.
	if isReg && !reg.prunable && !reg.initializing && present(w) {
		// Its files may hold work: a tampered link is refused, not taken
		// for a stale directory and deleted.
		if _, err := m.linkedGitDir(ctx, w.Path, w.RepoPath); err != nil {
			return w, fmt.Errorf("%w; %w (resolve it by hand)", err, errRefused)
		}
		if reg.branch != "refs/heads/"+w.Branch {
			return w, fmt.Errorf("%s is checked out on %q, not %s; %w (resolve it by hand)",
				w.Path, strings.TrimPrefix(reg.branch, "refs/heads/"), w.Branch, errRefused)
		}
		w.BaseCommit, err = m.baseCommit(ctx, w, point)
		return w, err
	}
	// Whatever is left of an earlier attempt is stale: without a
	// registration git no longer knows the directory, and a registration
	// without a directory is an empty promise.
	if isReg {
		_, _ = m.worktreeCmd(ctx, w.RepoPath, "remove", "--force", "--force", w.Path)
	}
	if exists(w.Path) {
		m.log.Warn("removing a stale worktree directory", "task", w.TaskID, "path", w.Path)
		if err := os.RemoveAll(w.Path); err != nil {
			return w, fmt.Errorf("remove stale %s: %w", w.Path, err)
		}
	}
	if _, err := m.worktreeCmd(ctx, w.RepoPath, "prune"); err != nil {
		return w, err
	}
	branchRef := "refs/heads/" + w.Branch
	had, err := m.refCommit(ctx, w.RepoPath, branchRef)
	if err != nil {
		return w, err
	}
	if had != "" {
		// After a pause: the branch holds the work; check it out as it is.
		if _, err := m.worktreeCmd(ctx, w.RepoPath, "add", w.Path, w.Branch); err != nil {
			return w, err
		}
		if w.BaseCommit, err = m.baseCommit(ctx, w, point); err != nil {
			return w, err
		}
	} else {
		if _, err := m.run(ctx, w.RepoPath, "update-ref", baseRefOf(w.TaskID), point); err != nil {
			return w, err
		}
		if _, err := m.worktreeCmd(ctx, w.RepoPath, "add", "-b", w.Branch, w.Path, point); err != nil {
			return w, err
		}
		w.BaseCommit = point
	}
	regs, err = m.registered(ctx, w.RepoPath)
	if err != nil {
		return w, err
	}
	if r, ok := regs[w.Path]; !ok || r.prunable || !present(w) {
		return w, fmt.Errorf("git worktree add left no worktree at %s", w.Path)
	}
	if _, err := m.linkedGitDir(ctx, w.Path, w.RepoPath); err != nil {
		return w, err
	}
	return w, nil
}

// cleanup undoes a failed attempt, even when ctx has ended, so a retry
// or the next Provision starts clean. The branch is kept: it may hold work.
func (m *Manager) cleanup(ctx context.Context, w Worktree) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_, _ = m.worktreeCmd(ctx, w.RepoPath, "remove", "--force", "--force", w.Path)
	if err := os.RemoveAll(w.Path); err != nil {
		m.log.Warn("worktree cleanup", "path", w.Path, "err", err)
	}
	_, _ = m.worktreeCmd(ctx, w.RepoPath, "prune")
}

// resolveRepo turns a folder into its repository's top level, symlinks
// resolved, with errors a person can act on.
func (m *Manager) resolveRepo(ctx context.Context, p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("no repository path given: a code task needs one")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("repository %s %w", abs, ErrNoRepo)
	}
	if err != nil {
		return "", fmt.Errorf("repository %s: %w", abs, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s is %w (it is a file)", abs, ErrNotRepo)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return "", err
	}
	out, err := m.run(ctx, abs, "rev-parse", "--show-toplevel")
	if err != nil {
		var ge *gitError
		switch {
		case errors.As(err, &ge) && strings.Contains(ge.stderr, "not a git repository"):
			return "", fmt.Errorf("%s is %w", abs, ErrNotRepo)
		case errors.As(err, &ge) && strings.Contains(ge.stderr, "work tree"):
			return "", fmt.Errorf("%s is %w with a work tree (a bare repository?)", abs, ErrNotRepo)
		}
		return "", err
	}
	top, err := filepath.EvalSymlinks(strings.TrimSpace(out))
	if err != nil {
		return "", err
	}
	if top == m.root || strings.HasPrefix(top, m.root+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is a Clawboo worktree, not a task's repository", top)
	}
	return top, nil
}

// branchPoint resolves ref (default HEAD) to a commit.
func (m *Manager) branchPoint(ctx context.Context, repo, ref string) (string, error) {
	if ref == "" {
		ref = "HEAD"
	}
	if strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, " \t\n") {
		return "", fmt.Errorf("%w %q", ErrUnknownBase, ref)
	}
	c, err := m.refCommit(ctx, repo, ref)
	if err != nil {
		return "", err
	}
	if c == "" {
		if ref == "HEAD" {
			return "", fmt.Errorf("%w: %s has no commits yet", ErrUnknownBase, repo)
		}
		return "", fmt.Errorf("%w %q in %s", ErrUnknownBase, ref, repo)
	}
	return c, nil
}

// refCommit is the commit ref names, or "" when it names none.
func (m *Manager) refCommit(ctx context.Context, repo, ref string) (string, error) {
	out, err := m.run(ctx, repo, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if exitCode(err) == 1 || exitCode(err) == 128 {
		return "", nil
	}
	return strings.TrimSpace(out), err
}

// baseCommit is the task's remembered base; if the ref was lost, the merge
// base of the branch and the branch point stands in (and is remembered).
func (m *Manager) baseCommit(ctx context.Context, w Worktree, point string) (string, error) {
	if c, err := m.refCommit(ctx, w.RepoPath, baseRefOf(w.TaskID)); err != nil || c != "" {
		return c, err
	}
	out, err := m.run(ctx, w.RepoPath, "merge-base", "refs/heads/"+w.Branch, point)
	if err != nil {
		return "", fmt.Errorf("find the base of %s: %w", w.Branch, err)
	}
	c := strings.TrimSpace(out)
	_, err = m.run(ctx, w.RepoPath, "update-ref", baseRefOf(w.TaskID), c)
	return c, err
}

// writeRepoFile records which repository a hash folder belongs to.
func (m *Manager) writeRepoFile(w Worktree) error {
	dir := filepath.Join(m.root, w.RepoHash)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	p := filepath.Join(dir, ".repo")
	if b, err := os.ReadFile(p); err == nil && strings.TrimSpace(string(b)) == w.RepoPath {
		return nil
	}
	tmp, err := os.CreateTemp(dir, ".repo-*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(w.RepoPath + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
