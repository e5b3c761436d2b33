package supervisor

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
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

// finishInPlace moves a work-in-place task after its run. A successful run
// with a verify command (the task's, else .clawboo/verify as the
// checkout's HEAD has it) is verified in the checkout: a pass is done,
// anything else waits in review with the verification. Everything else
// (a failed or stopped run, the turn limit, no verify command) finishes as
// a task with no worktree does.
func (l *liveRun) finishInPlace(o *outcome, run store.Run) {
	s, tc := l.s, l.task
	maxTurns := o.done != nil && o.done.Reason == executor.DoneMaxTurns
	if run.Status != store.RunSucceeded || maxTurns || s.opts.Worktrees == nil {
		l.finishTask(o, run)
		return
	}
	cmd := ""
	if tc.task.VerifyCommand != nil {
		cmd = strings.TrimSpace(*tc.task.VerifyCommand)
	}
	if cmd == "" {
		cmd = s.opts.Worktrees.CheckoutVerifyCommand(context.Background(), tc.checkout)
	}
	if cmd == "" {
		l.finishTask(o, run)
		return
	}
	vctx, cancel := context.WithTimeout(s.root, s.opts.VerifyTimeout+time.Minute)
	v := s.opts.Worktrees.VerifyCheckout(vctx, tc.checkout, tc.task.ID, cmd, s.opts.VerifyTimeout)
	cancel()
	out := board.Outcome{To: board.InReview}
	note := "Worked in your checkout at " + tc.checkout + " (no worktree): see `git diff` there."
	switch {
	case s.root.Err() != nil:
		out.To, note = board.Todo, "Verification was interrupted: Clawboo shut down. The changes are in your checkout."
	case v.Passed:
		out.To, note = board.Done, note+" Verification passed: `"+v.Command+"`."
	case v.TimedOut:
		note += " Verification timed out: `" + v.Command + "`."
	default:
		note += fmt.Sprintf(" Verification failed (exit %d): `%s`.", v.ExitCode, v.Command)
	}
	if out.To != board.Todo {
		out.Verification = &board.Verification{
			Command: v.Command, ExitCode: v.ExitCode, Passed: v.Passed, TimedOut: v.TimedOut,
			OutputTail: v.OutputTail, DurationMs: v.DurationMs, At: v.StartedAt, RunID: l.id,
		}
	}
	out.Comment = agentComment(l, joinNote(strings.TrimSpace(run.Summary), note))
	t, err := s.opts.Board.Finish(context.Background(), tc.task.ID, l.id, out)
	if err != nil {
		s.opts.Log.Error("task not moved after its run", "task", tc.task.ID, "run", l.id, "err", err)
	}
	l.mu.Lock()
	l.taskFinal = &t
	l.mu.Unlock()
}
