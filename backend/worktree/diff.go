package worktree

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxDiff caps Outcome.Diff: a review page needs the change, not a
// generated lock file of 50 MB.
const maxDiff = 1 << 20

// Outcome is what a task changed relative to its base commit.
type Outcome struct {
	Changed               bool
	Files                 int
	Insertions, Deletions int
	// Diff is the unified diff against BaseCommit, cut at 1 MiB with a note
	// saying so. Lines ending in CR lose it (output is read line by line).
	Diff string
}

// Diff reports the task's change so far: commits on the branch plus
// uncommitted and untracked work in the worktree, against BaseCommit. It
// changes nothing the user or the agent can see: untracked files are staged
// into a temporary copy of the index (their blobs land in the object store,
// unreferenced, for git's own gc to collect).
func (m *Manager) Diff(ctx context.Context, w Worktree) (Outcome, error) {
	if err := m.check(w, true); err != nil {
		return Outcome{}, err
	}
	unlock, err := m.locks.lock(ctx, w.Path)
	if err != nil {
		return Outcome{}, err
	}
	defer unlock()
	if !present(w) { // paused: the branch holds everything
		return m.outcome(ctx, call{dir: w.RepoPath}, w.BaseCommit, "refs/heads/"+w.Branch)
	}
	tree, err := m.snapshot(ctx, w)
	if err != nil {
		return Outcome{}, fmt.Errorf("diff task %s: %w", w.TaskID, err)
	}
	return m.outcome(ctx, w.in(), w.BaseCommit, tree)
}

// snapshot writes the worktree's current files as a tree object, through
// a copy of its index, and returns the tree's id.
func (m *Manager) snapshot(ctx context.Context, w Worktree) (string, error) {
	idx, err := m.runIn(ctx, w, "rev-parse", "--git-path", "index")
	if err != nil {
		return "", err
	}
	idx = strings.TrimSpace(idx)
	if !filepath.IsAbs(idx) {
		idx = filepath.Join(w.Path, idx)
	}
	dir, err := os.MkdirTemp("", "clawboo-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "index")
	if err := copyFile(idx, tmp); err != nil && !os.IsNotExist(err) {
		return "", err
	}
	env := map[string]string{"GIT_INDEX_FILE": tmp}
	if !exists(tmp) {
		if _, err := m.gitCall(ctx, call{dir: w.Path, repo: w.RepoPath, inside: true, env: env, args: []string{"read-tree", "HEAD"}}); err != nil {
			return "", err
		}
	}
	if _, err := m.gitCall(ctx, call{dir: w.Path, repo: w.RepoPath, inside: true, env: env, args: addAll}); err != nil {
		return "", err
	}
	if err := m.dropIncluded(ctx, w, call{dir: w.Path, repo: w.RepoPath, inside: true, env: env}); err != nil {
		return "", err
	}
	r, err := m.gitCall(ctx, call{dir: w.Path, repo: w.RepoPath, inside: true, env: env, args: []string{"write-tree"}})
	return strings.TrimSpace(r.out), err
}

// outcome compares two tree-ishes. at says where git runs.
func (m *Manager) outcome(ctx context.Context, at call, base, right string) (Outcome, error) {
	flags := []string{"--no-ext-diff", "--no-textconv", "-M"}
	at.args = append(append([]string{"diff", "--numstat"}, flags...), base, right, "--")
	r, err := m.gitCall(ctx, at)
	if err != nil {
		return Outcome{}, err
	}
	var o Outcome
	for _, line := range strings.Split(r.out, "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) < 3 {
			continue
		}
		o.Files++
		ins, _ := strconv.Atoi(f[0]) // "-" for a binary file
		del, _ := strconv.Atoi(f[1])
		o.Insertions += ins
		o.Deletions += del
	}
	o.Changed = o.Files > 0
	if !o.Changed {
		return o, nil
	}
	at.args = append(append([]string{"diff", "--src-prefix=a/", "--dst-prefix=b/"}, flags...), base, right, "--")
	at.limit = maxDiff
	r, err = m.gitCall(ctx, at)
	if err != nil {
		return o, err
	}
	o.Diff = r.out
	if r.cut {
		o.Diff += fmt.Sprintf("\n[diff cut at %d KiB; %d files changed in all: run git diff %s in the worktree for the rest]\n",
			maxDiff>>10, o.Files, base)
	}
	return o, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// BaseFile reads a file as the task's base commit has it, at most limit
// bytes (the rest is cut). Configuration a run must not be able to change,
// like the repository's verify command, is read from here rather than from
// the worktree the agent just worked in. A file the base lacks is
// fs.ErrNotExist.
func (m *Manager) BaseFile(ctx context.Context, w Worktree, path string, limit int) ([]byte, error) {
	if w.BaseCommit == "" || strings.HasPrefix(path, "/") || strings.Contains(path, "..") {
		return nil, fs.ErrNotExist
	}
	r, err := m.gitCall(ctx, call{dir: w.RepoPath, args: []string{"cat-file", "blob", w.BaseCommit + ":" + path}, limit: limit, noRetry: true})
	if err != nil {
		if exitCode(err) == 128 {
			return nil, fs.ErrNotExist
		}
		return nil, err
	}
	return []byte(r.out), nil
}
