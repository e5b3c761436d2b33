package supervisor

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/clawboo/desktop/backend/board"
)

// inPlace prepares a work-in-place code task: its working folder is the
// repository's own checkout (no worktree, no branch, no commit; its changes
// stay in the user's checkout), held under the repository's exclusive lock
// for the run. A checkout another task's live run holds refuses with
// conflict, naming that task.
func (s *Supervisor) inPlace(ctx context.Context, t board.Task, repoOverride, runID string) (string, error) {
	if s.opts.Worktrees == nil || s.opts.Worktrees.Usable(ctx) != nil {
		return "", refuse("workspace_unavailable", "git is not available on this server (is it installed?)")
	}
	repo := repoOverride
	if repo == "" && t.RepoPath != nil {
		repo = *t.RepoPath
	}
	if repo == "" {
		return "", refuse("workspace_unavailable", "a code task needs a repository: set the task's repoPath")
	}
	top, err := s.opts.Worktrees.Checkout(ctx, repo)
	if err != nil {
		return "", refuse("workspace_unavailable", "%v", err)
	}
	var busy *board.CheckoutBusyError
	if err := s.opts.Board.LockCheckout(ctx, top, t.ID, runID, s.IsLive); errors.As(err, &busy) {
		return "", refuse("conflict", "%v", err)
	} else if err != nil {
		return "", refuse("workspace_unavailable", "%v", err)
	}
	return filepath.Clean(top), nil
}

// unlockCheckout frees the checkout a work-in-place run held, once the run
// has finished with it.
func (l *liveRun) unlockCheckout() {
	if l.task == nil || l.task.checkout == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.s.opts.Board.UnlockCheckout(ctx, l.id); err != nil {
		l.s.opts.Log.Warn("checkout lock not freed (the stale sweep will)", "task", l.task.task.ID, "run", l.id, "err", err)
	}
}
