package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ReviewCheckout is a detached checkout of a task branch's commit, made for
// the critic (backend/review) to read: <Home>/reviews/<RepoHash>/<TaskID>,
// outside worktrees/ so the janitor never takes it for a task's worktree.
// It is never committed from, gets no setup, teardown, included files or
// ports, and whatever a critic writes in it is thrown away by CloseReview.
// The task's own worktree is not touched.
type ReviewCheckout struct {
	TaskID   string
	RepoPath string
	Path     string
	Commit   string // the branch tip reviewed
}

func (m *Manager) reviewPath(w Worktree) string {
	return filepath.Join(filepath.Dir(m.root), "reviews", w.RepoHash, w.TaskID)
}

// OpenReview adds a detached worktree at the tip of the task's branch
// (`git worktree add --detach`), replacing what an earlier review left.
// The branch must hold the work already (Complete committed it).
func (m *Manager) OpenReview(ctx context.Context, w Worktree) (ReviewCheckout, error) {
	if err := m.check(w, true); err != nil {
		return ReviewCheckout{}, err
	}
	tip, err := m.refCommit(ctx, w.RepoPath, "refs/heads/"+w.Branch)
	if err != nil {
		return ReviewCheckout{}, err
	}
	if tip == "" {
		return ReviewCheckout{}, fmt.Errorf("review task %s: branch %s does not exist", w.TaskID, w.Branch)
	}
	r := ReviewCheckout{TaskID: w.TaskID, RepoPath: w.RepoPath, Path: m.reviewPath(w), Commit: tip}
	unlock, err := m.locks.lock(ctx, r.Path)
	if err != nil {
		return ReviewCheckout{}, err
	}
	defer unlock()
	if err := m.dropReview(ctx, r); err != nil {
		return ReviewCheckout{}, err
	}
	if err := os.MkdirAll(filepath.Dir(r.Path), 0o700); err != nil {
		return ReviewCheckout{}, fmt.Errorf("review task %s: %w", w.TaskID, err)
	}
	if _, err := m.worktreeCmd(ctx, w.RepoPath, "add", "--detach", r.Path, tip); err != nil {
		_ = m.dropReview(context.WithoutCancel(ctx), r)
		return ReviewCheckout{}, fmt.Errorf("review task %s: %w", w.TaskID, err)
	}
	if _, err := m.linkedGitDir(ctx, r.Path, w.RepoPath); err != nil {
		_ = m.dropReview(context.WithoutCancel(ctx), r)
		return ReviewCheckout{}, err
	}
	return r, nil
}

// CloseReview removes a review checkout and its registration. Removing
// one that is already gone is not an error.
func (m *Manager) CloseReview(ctx context.Context, r ReviewCheckout) error {
	if err := validTaskID(r.TaskID); err != nil {
		return err
	}
	w := m.worktreeFor(r.RepoPath, r.TaskID, "")
	if !filepath.IsAbs(r.RepoPath) || filepath.Clean(r.RepoPath) != r.RepoPath || r.Path != m.reviewPath(w) {
		return fmt.Errorf("%w: review of task %s at %q", ErrBadWorktree, r.TaskID, r.Path)
	}
	unlock, err := m.locks.lock(ctx, r.Path)
	if err != nil {
		return err
	}
	defer unlock()
	return m.dropReview(ctx, r)
}

// dropReview deletes the folder and lets git forget it. The path is ours
// (derived from the task id), so nothing in the folder is trusted or run.
func (m *Manager) dropReview(ctx context.Context, r ReviewCheckout) error {
	if !exists(r.Path) {
		return nil
	}
	if !exists(r.RepoPath) {
		return os.RemoveAll(r.Path)
	}
	_, rmErr := m.worktreeCmd(ctx, r.RepoPath, "remove", "--force", "--force", r.Path)
	if err := os.RemoveAll(r.Path); err != nil {
		return fmt.Errorf("remove review %s: %w", r.Path, err)
	}
	if _, err := m.worktreeCmd(ctx, r.RepoPath, "prune"); err != nil {
		return errors.Join(err, rmErr)
	}
	return nil
}
