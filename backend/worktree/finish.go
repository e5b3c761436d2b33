package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Pause saves the task's work on its branch and frees the disk: everything
// uncommitted (untracked files too; ignored ones are dropped with the
// directory) is committed (w.Message marked "work in progress", else
// "clawboo: pause task <id>"), then the worktree
// is removed. The branch stays, so Provision resumes where it stopped.
// Pausing a task that has no worktree is a no-op.
func (m *Manager) Pause(ctx context.Context, w Worktree) error {
	if err := m.check(w, false); err != nil {
		return err
	}
	unlock, err := m.locks.lock(ctx, w.Path)
	if err != nil {
		return err
	}
	defer unlock()
	return m.pause(ctx, w, w.workMessage(true))
}

func (m *Manager) pause(ctx context.Context, w Worktree, msg string) error {
	if !exists(w.RepoPath) {
		return fmt.Errorf("repository %s %w: cannot save the work of task %s", w.RepoPath, ErrNoRepo, w.TaskID)
	}
	if present(w) {
		if err := m.commitAll(ctx, w, msg); err != nil {
			return fmt.Errorf("pause task %s: %w", w.TaskID, err)
		}
	}
	return m.detach(ctx, w)
}

// Complete ends a task's run: uncommitted work is committed as
// w.Message (else "clawboo: task <id>") and compared with the base. No change at all removes
// the worktree and deletes the branch; a change keeps both, for review.
// It also works on a paused task (branch only).
func (m *Manager) Complete(ctx context.Context, w Worktree) (Outcome, error) {
	if err := m.check(w, true); err != nil {
		return Outcome{}, err
	}
	unlock, err := m.locks.lock(ctx, w.Path)
	if err != nil {
		return Outcome{}, err
	}
	defer unlock()
	if present(w) {
		if err := m.commitAll(ctx, w, w.workMessage(false)); err != nil {
			return Outcome{}, fmt.Errorf("complete task %s: %w", w.TaskID, err)
		}
	}
	o, err := m.outcome(ctx, call{dir: w.RepoPath}, w.BaseCommit, "refs/heads/"+w.Branch)
	if err != nil {
		return o, fmt.Errorf("complete task %s: %w", w.TaskID, err)
	}
	if !o.Changed {
		if err := m.remove(ctx, w, true); err != nil {
			return o, fmt.Errorf("complete task %s: %w", w.TaskID, err)
		}
	}
	return o, nil
}

// Remove deletes the worktree, and the branch with its base ref when
// deleteBranch is set. Anything uncommitted is lost: Pause keeps it. A
// worktree whose repository vanished is removed from disk all the same.
func (m *Manager) Remove(ctx context.Context, w Worktree, deleteBranch bool) error {
	if err := m.check(w, false); err != nil {
		return err
	}
	unlock, err := m.locks.lock(ctx, w.Path)
	if err != nil {
		return err
	}
	defer unlock()
	return m.remove(ctx, w, deleteBranch)
}

func (m *Manager) remove(ctx context.Context, w Worktree, deleteBranch bool) error {
	if !exists(w.RepoPath) {
		return os.RemoveAll(w.Path)
	}
	if err := m.detach(ctx, w); err != nil {
		return err
	}
	if !deleteBranch {
		return nil
	}
	// branch -D refuses a branch checked out anywhere, the user's copy too.
	if _, err := m.run(ctx, w.RepoPath, "branch", "-D", w.Branch); err != nil && !strings.Contains(err.Error(), "not found") {
		return err
	}
	_, err := m.run(ctx, w.RepoPath, "update-ref", "-d", baseRefOf(w.TaskID))
	return err
}

// detach removes the worktree directory and its registration, after the
// repository's teardown script has run in it.
func (m *Manager) detach(ctx context.Context, w Worktree) error {
	m.teardown(ctx, w)
	_, rmErr := m.worktreeCmd(ctx, w.RepoPath, "remove", "--force", "--force", w.Path)
	if err := os.RemoveAll(w.Path); err != nil {
		return fmt.Errorf("remove %s: %w", w.Path, err)
	}
	if _, err := m.worktreeCmd(ctx, w.RepoPath, "prune"); err != nil {
		return err
	}
	if rmErr != nil && !strings.Contains(rmErr.Error(), "is not a working tree") {
		m.log.Debug("git worktree remove", "path", w.Path, "err", rmErr)
	}
	return nil
}

// contextDir is where runtimes keep the context notes the host gives them
// (executor.ContextDir): scaffolding, never part of the task's work.
const contextDir = ".clawboo/context"

// addAll stages everything in the worktree except the context notes.
var addAll = []string{"add", "-A", "--", ".", ":(exclude)" + contextDir}

// commitAll commits everything in the worktree that git does not ignore,
// on the task's branch only: if HEAD was moved elsewhere we stop, since the
// commit would land on a branch we are about to forget.
func (m *Manager) commitAll(ctx context.Context, w Worktree, msg string) error {
	head, err := m.runIn(ctx, w, "symbolic-ref", "-q", "HEAD")
	if errors.Is(err, ErrForgedLink) {
		return err
	}
	if head = strings.TrimSpace(head); err != nil || head != "refs/heads/"+w.Branch {
		return fmt.Errorf("%s is on %q, not %s; %w (resolve it by hand)", w.Path, head, w.Branch, errRefused)
	}
	if _, err := m.runIn(ctx, w, addAll...); err != nil {
		return err
	}
	if err := m.dropIncluded(ctx, w, w.in()); err != nil {
		return fmt.Errorf("keep the included files out of the commit: %w", err)
	}
	_, err = m.runIn(ctx, w, "diff", "--cached", "--quiet")
	if err == nil {
		return nil // nothing to commit
	}
	if exitCode(err) != 1 {
		return err
	}
	if err := m.refuseStagedSecrets(ctx, w); err != nil {
		return err
	}
	_, err = m.runIn(ctx, w, "commit", "--no-verify", "--no-gpg-sign", "-q", "-m", msg)
	return err
}
