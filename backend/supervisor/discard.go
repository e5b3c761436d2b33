package supervisor

import (
	"context"
	"errors"
	"fmt"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/worktree"
)

// Discard drops a task's work once it is kept elsewhere (a host's task
// whose branch the desktop fetched): its worktree and branch are removed
// and the task, unless finished, is cancelled with a comment saying why.
// A task a run still holds is refused (a *worktree.Refusal, "held").
func (s *Supervisor) Discard(ctx context.Context, taskID, why string) (board.Task, error) {
	if s.opts.Board == nil || s.opts.Worktrees == nil {
		return board.Task{}, ErrNoWorktrees
	}
	s.landing.Lock()
	defer s.landing.Unlock()
	t, err := s.opts.Board.Get(ctx, taskID)
	if err != nil {
		return board.Task{}, err
	}
	if t.RunID != nil {
		return board.Task{}, &worktree.Refusal{Reason: "held", Msg: fmt.Sprintf("task '%s' has a run going: stop it first", t.Title)}
	}
	rec, err := s.opts.Board.Worktree(ctx, taskID)
	switch {
	case errors.Is(err, board.ErrNotFound):
	case err != nil:
		return board.Task{}, err
	case rec.Status != "archived":
		if err := s.opts.Worktrees.Remove(ctx, WorktreeOf(rec), true); err != nil {
			return board.Task{}, fmt.Errorf("the task's worktree could not be removed: %w", err)
		}
		if err := s.opts.Board.SetWorktreeStatus(ctx, taskID, "archived"); err != nil {
			s.opts.Log.Warn("worktree record not archived", "task", taskID, "err", err)
		}
	}
	if !t.Status.Terminal() {
		cancelled := board.Cancelled
		if t, err = s.opts.Board.Update(ctx, taskID, board.Patch{Status: &cancelled}); err != nil {
			return board.Task{}, err
		}
	}
	if why != "" {
		if _, err := s.opts.Board.AddComment(ctx, taskID, newSystemComment(why)); err != nil {
			s.opts.Log.Warn("discard comment not saved", "task", taskID, "err", err)
		}
	}
	return t, nil
}
