package supervisor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/worktree"
)

// Landing: a task's work is done when it is in its base branch. Land is the
// one place a task's branch is merged, whoever asks: a person from the
// drawer (the API) or Clawboo itself when the task or its team says merge
// when green and its verify passed (finishTask). It merges (worktree.Merge:
// into the task's recorded base branch, never switching the checkout,
// beside uncommitted work the change does not touch), records `merged` and
// moves the task to done in one transaction (a task an earlier build left
// done and unmerged stays done), removes the worktree and its branch, and
// leaves a system comment saying what was merged where. A refusal changes
// nothing and says why (a *worktree.Refusal or a *board.RuleError).

// MergedNote starts the system comment a merge leaves.
const MergedNote = "Merged into "

// LandRequest asks for a task's work to be merged.
type LandRequest struct {
	Strategy worktree.MergeStrategy
	// Base overrides the task's base branch for this merge.
	Base string
	// Override marks the task done over a failed verification.
	Override *board.Override
	// Auto is Clawboo merging by itself (merge when green).
	Auto bool
}

// LandResult is what Land did. Warning says what failed after the merge
// was in (the task not marked done, the worktree not removed).
type LandResult struct {
	Task    board.Task
	Merge   worktree.MergeResult
	Warning string
	// NotDone is set when the merge is in but the task could not be marked
	// done (Warning says why).
	NotDone bool
}

// ErrNoWorktrees is Land on a server without git worktrees.
var ErrNoWorktrees = errors.New("worktrees are not available on this server (is git installed?)")

// Land merges a task's branch into its base branch and marks it done; see
// the top of this file.
func (s *Supervisor) Land(ctx context.Context, taskID string, req LandRequest) (LandResult, error) {
	if s.opts.Board == nil || s.opts.Worktrees == nil {
		return LandResult{}, ErrNoWorktrees
	}
	if !req.Strategy.Valid() {
		return LandResult{}, fmt.Errorf("unknown merge strategy %q: use ff, merge or squash", req.Strategy)
	}
	s.landing.Lock()
	defer s.landing.Unlock()
	t, err := s.opts.Board.Get(ctx, taskID)
	if err != nil {
		return LandResult{}, err
	}
	rec, err := s.opts.Board.Worktree(ctx, taskID)
	if errors.Is(err, board.ErrNotFound) {
		return LandResult{}, &worktree.Refusal{Reason: "no_worktree", Msg: fmt.Sprintf("task '%s' has no worktree: nothing to merge", t.Title)}
	}
	if err != nil {
		return LandResult{}, err
	}
	// The board's rules first: a task that cannot be done is not merged.
	if err := board.LandCheck(t, req.Override); err != nil {
		return LandResult{}, err
	}
	wt := WorktreeOf(rec)
	wt.Message = s.WorkMessage(ctx, t)
	base := req.Base
	if base == "" && t.BaseBranch != nil {
		base = *t.BaseBranch
	}
	hint := ""
	if t.BaseRef != nil {
		hint = *t.BaseRef
	}
	res, err := s.opts.Worktrees.Merge(ctx, wt, worktree.MergeSpec{
		Base: base, Hint: hint, Strategy: req.Strategy,
		Message: s.mergeMessage(ctx, t, wt, req.Strategy, base),
	})
	if err != nil {
		return LandResult{}, err
	}
	// The merge is in: from here on the result says so, whatever fails.
	bg := context.WithoutCancel(ctx)
	out := LandResult{Merge: res}
	done, err := s.opts.Board.MarkMerged(bg, taskID, board.Merged{Base: res.Base, Commit: res.Commit, How: res.How}, req.Override)
	if err != nil {
		out.Task, out.NotDone = t, true
		out.Warning = fmt.Sprintf("merged into %s, but the task could not be marked done: %v", res.Base, err)
		return out, nil
	}
	out.Task = done
	note := fmt.Sprintf(MergedNote+"%s (%s) at %s.", res.Base, howWords(res.How), short(res.Commit))
	if req.Auto {
		note += " Clawboo merged it because its verification passed and merge when green is on."
	}
	if err := s.opts.Worktrees.Remove(bg, wt, true); err != nil {
		out.Warning = "the worktree or branch could not be removed: " + err.Error()
		note += " " + out.Warning
	} else if err := s.opts.Board.SetWorktreeStatus(bg, taskID, "archived"); err != nil {
		s.opts.Log.Warn("worktree record not archived", "task", taskID, "err", err)
	}
	if _, err := s.opts.Board.AddComment(bg, taskID, newSystemComment(note)); err != nil {
		s.opts.Log.Warn("merge comment not saved", "task", taskID, "err", err)
	}
	return out, nil
}

// WorktreeOf is the worktree a task's record names.
func WorktreeOf(rec board.Worktree) worktree.Worktree {
	return worktree.Worktree{
		TaskID: rec.TaskID, RepoPath: rec.RepoPath, RepoHash: worktree.RepoHash(rec.RepoPath),
		Path: rec.Path, Branch: rec.Branch, BaseCommit: rec.BaseCommit,
	}
}

// mergeMessage is a merge or squash commit's message: the task's title,
// what it did (a squash: its last run's summary), and a trailer naming the
// agent that did it and its runtime.
func (s *Supervisor) mergeMessage(ctx context.Context, t board.Task, wt worktree.Worktree, strategy worktree.MergeStrategy, base string) string {
	body := ""
	if strategy == worktree.MergeSquash {
		body = s.taskSummary(ctx, t)
	} else if base != "" {
		body = "Merge branch '" + wt.Branch + "' into " + base + "."
	} else {
		body = "Merge branch '" + wt.Branch + "'."
	}
	var trailers []string
	if who := s.agentLabel(ctx, t); who != "" {
		trailers = append(trailers, "Clawboo-Agent: "+who)
	}
	return worktree.CommitMessage(t.Title, body, trailers...)
}

// agentLabel is "Name (runtime)" for the agent assigned the task, the
// runtime alone when the agent has no name, "" when neither is known.
func (s *Supervisor) agentLabel(ctx context.Context, t board.Task) string {
	name := ""
	if t.AssigneeAgentID != nil && s.opts.AgentName != nil {
		name = strings.TrimSpace(s.opts.AgentName(ctx, *t.AssigneeAgentID))
	}
	rt := ""
	if t.AssigneeRuntime != nil {
		rt = strings.TrimSpace(*t.AssigneeRuntime)
	}
	switch {
	case name != "" && rt != "":
		return name + " (" + rt + ")"
	case name != "":
		return name
	}
	return rt
}

// taskSummary is what a squash commit says about a task: its last run's
// summary, else its description.
func (s *Supervisor) taskSummary(ctx context.Context, t board.Task) string {
	if runs, err := s.opts.Store.TaskRuns(ctx, t.ID, 5); err == nil {
		for _, run := range runs {
			if sum := strings.TrimSpace(run.Summary); sum != "" {
				return sum
			}
		}
	}
	return strings.TrimSpace(t.Description)
}

func howWords(how string) string {
	switch how {
	case "ff":
		return "fast-forward"
	case "merge":
		return "merge commit"
	case "squash":
		return "squashed"
	}
	return "already there"
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// recordBase records the branch a task's work goes back into when its
// worktree is made, unless the task already has one (a person's choice, or
// an earlier worktree's).
func (s *Supervisor) recordBase(ctx context.Context, t board.Task, wt worktree.Worktree) {
	if t.BaseBranch != nil {
		return
	}
	hint := ""
	if t.BaseRef != nil {
		hint = *t.BaseRef
	}
	b := s.opts.Worktrees.StartBranch(ctx, wt, hint)
	if b == "" {
		return
	}
	if _, err := s.opts.Board.RecordBaseBranch(ctx, t.ID, b); err != nil {
		s.opts.Log.Warn("base branch not recorded", "task", t.ID, "err", err)
	}
}

// mergeWhenGreen reports whether Clawboo merges the task's verified change
// itself: the task says so, or its team does.
func (s *Supervisor) mergeWhenGreen(ctx context.Context, t board.Task) bool {
	if t.MergeWhenGreen {
		return true
	}
	return t.TeamID != nil && s.opts.TeamMergeWhenGreen != nil && s.opts.TeamMergeWhenGreen(ctx, *t.TeamID)
}

// landWhenGreen merges a task whose verify passed and that now waits in
// review, when it or its team says merge when green. A refusal (a conflict,
// the person's uncommitted work in the way) leaves it in review with a
// comment naming the files. It returns the task as it now is.
func (l *liveRun) landWhenGreen(ctx context.Context, t board.Task) board.Task {
	s := l.s
	if t.Status != board.InReview || !s.mergeWhenGreen(ctx, t) {
		return t
	}
	res, err := s.Land(ctx, t.ID, LandRequest{Auto: true})
	var re *board.RuleError
	if errors.As(err, &re) && re.Code == "already_merged" {
		err = nil // a person merged it meanwhile
		res.Task, _ = s.opts.Board.Get(ctx, t.ID)
	}
	if err == nil {
		if res.Warning != "" {
			s.opts.Log.Warn("merged when green, with a warning", "task", t.ID, "warning", res.Warning)
		}
		return res.Task
	}
	why := "Merge when green is on, but Clawboo did not merge it: " + strings.TrimRight(err.Error(), ". ") + "."
	if rf, ok := worktree.IsRefusal(err); ok && rf.Reason == "merge_conflict" && len(rf.Files) > 0 {
		why += " Files: " + strings.Join(rf.Files, ", ") + "."
	}
	why += " It waits in review for you."
	if _, err := s.opts.Board.AddComment(ctx, t.ID, newSystemComment(why)); err != nil {
		s.opts.Log.Warn("merge-when-green comment not saved", "task", t.ID, "err", err)
	}
	if now, err := s.opts.Board.Get(ctx, t.ID); err == nil {
		return now
	}
	return t
}

// WorkMessage is the message of the commits Clawboo makes of a task's
// work: its title, then trailers naming the agent (by name) and the task,
// so that a fast-forward puts a commit a person can read on the base.
func (s *Supervisor) WorkMessage(ctx context.Context, t board.Task) string {
	trailers := []string{}
	if who := s.agentLabel(ctx, t); who != "" {
		trailers = append(trailers, "Clawboo-Agent: "+who)
	}
	trailers = append(trailers, "Clawboo-Task: "+t.ID)
	return worktree.CommitMessage(t.Title, "", trailers...)
}
