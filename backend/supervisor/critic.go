package supervisor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/review"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/worktree"
	"github.com/oklog/ulid/v2"
)

// criticWanted reports whether the task's change is reviewed: the task's
// critic mode, its team's switch and how risky the change is.
func (l *liveRun) criticWanted(ctx context.Context, change worktree.Outcome) bool {
	t := l.task.task
	mode, err := review.ParseMode(t.Critic)
	if err != nil {
		mode = review.Auto
	}
	teamOn := true
	if t.TeamID != nil && l.s.opts.TeamCritic != nil {
		teamOn = l.s.opts.TeamCritic(ctx, *t.TeamID)
	}
	risky := review.Risky(t.ParentID != nil, review.Change{Files: change.Files, Insertions: change.Insertions, Deletions: change.Deletions})
	return review.Wanted(mode, teamOn, risky)
}

// criticGate runs the critic (backend/review) on a verified change the task
// asks to have reviewed. It returns handled false when the task proceeds as
// it would have (no review, a pass, debt recorded as a comment, or a critic
// that could not run), with a note for the run's report; true when it
// moved the task itself: a fix run on
// the same worktree and session (this run then waits for it, so whoever
// waits for this run sees where the chain left the task), or blocked when
// the fixes ran out.
func (l *liveRun) criticGate(ctx context.Context, change worktree.Outcome, verif *board.Verification, report *board.NewComment,
	finish func(board.Outcome),
) (note string, handled bool) {
	s, tc := l.s, l.task
	t := tc.task
	if !l.criticWanted(ctx, change) {
		return "", false
	}
	comment := func(body string) {
		if _, err := s.opts.Board.AddComment(context.Background(), t.ID, newSystemComment(body)); err != nil {
			s.opts.Log.Warn("critic comment not saved", "task", t.ID, "err", err)
		}
	}
	rc, err := s.opts.Worktrees.OpenReview(ctx, *tc.wt)
	if err != nil {
		comment("The critic did not run (no review checkout: " + err.Error() + "); the change goes on without its review.")
		return "", false
	}
	round := l.params.Carry.Fixes + 1
	v := review.Critique(ctx, criticRunner{l}, review.Request{
		TaskID: t.ID, Title: t.Title, Description: t.Description,
		Diff: change.Diff, Round: round,
	}, rc.Path)
	if err := s.opts.Worktrees.CloseReview(context.Background(), rc); err != nil {
		s.opts.Log.Warn("review checkout not removed", "task", t.ID, "err", err)
	}
	if s.root.Err() != nil {
		l.pauseWorktree()
		finish(board.Outcome{To: board.Todo, Comment: &board.NewComment{AuthorType: "system", Body: "The critic's review was interrupted: Clawboo shut down."}})
		return "", true
	}
	if !v.Ran {
		comment("The critic did not run (" + v.Why + "); the change goes on without its review.")
		return "", false
	}
	if debt := v.Debt(); len(debt) > 0 {
		comment(review.DebtComment(debt))
	}
	blocking := v.Blocking()
	if len(blocking) == 0 {
		if len(v.Debt()) > 0 {
			return " The critic found no blocking issue; its other findings are recorded as debt.", false
		}
		return " The critic found no issue.", false
	}
	if report != nil {
		if _, err := s.opts.Board.AddComment(context.Background(), t.ID, *report); err != nil {
			s.opts.Log.Warn("run report not saved", "task", t.ID, "err", err)
		}
	}
	if l.params.Carry.Fixes >= review.MaxFixes {
		// The board's comment is the notice: a delegated task's orchestrator
		// reports the child's end (blocked) to its leader from it.
		finish(board.Outcome{To: board.Blocked, Verification: verif, Comment: &board.NewComment{AuthorType: "system", Body: review.BlockedComment(blocking)}})
		return "", true
	}
	finish(board.Outcome{To: board.Todo, Verification: verif, Comment: &board.NewComment{AuthorType: "system", Body: review.FixComment(blocking, round)}})
	p := l.params
	p.Message = review.FixMessage(blocking, round)
	p.workDir, p.Carry = "", Carry{Generation: l.params.Carry.Generation, Fixes: l.params.Carry.Fixes + 1}
	p.Reason = "critic-fix"
	h, err := s.Start(context.Background(), p)
	if err != nil {
		comment("The critic's fix run could not start: " + err.Error())
		return "", true // the task is back in todo, which is the right place for it
	}
	_, _ = h.Wait(context.Background())
	if ft := h.Task(); ft != nil {
		l.mu.Lock()
		l.taskFinal = ft
		l.mu.Unlock()
	}
	return "", true
}

// reviewKey is key when it is a critic run's session key, or an agent's
// 1:1 chat key ("agent:<id>:chat"), written with the run's row from its
// start so its task lists the review, and the chat its turns, while it runs
// and when the runtime reports no session (store.TaskRunsWithReviews,
// store.SessionRuns); other keys are written only with a session, at the
// run's end.
func reviewKey(key string) string {
	if strings.HasPrefix(key, "review:") || (strings.HasPrefix(key, "agent:") && strings.HasSuffix(key, ":chat")) {
		return key
	}
	return ""
}

// criticRunner starts the critic: a fresh ad-hoc session of the task's
// agent on the same runtime, working in the review checkout, its cost
// charged to the task's scopes (agent, mission, team).
type criticRunner struct{ l *liveRun }

func (c criticRunner) Run(ctx context.Context, prompt, dir string, round int) (string, string, error) {
	l := c.l
	sc := l.task.scopes
	p := StartParams{
		RuntimeID: l.params.RuntimeID, Message: prompt, AgentID: l.params.AgentID, Model: l.params.Model,
		Reason: "critic", SessionKey: fmt.Sprintf("review:%s:%d:%s", l.task.task.ID, round, ulid.Make()),
		workDir: dir, scopes: &sc, hider: l.hider, title: criticTitle(l.task.task.Title, round),
	}
	h, err := l.s.Start(ctx, p)
	if err != nil {
		return "", "", err
	}
	run, err := h.Wait(ctx)
	if err != nil {
		return h.ID, "", err
	}
	if run.Status != store.RunSucceeded {
		return h.ID, "", errors.New("its run ended " + firstNonEmpty(run.Error, run.Status))
	}
	return h.ID, run.Summary, nil
}

// criticTitle is what people read for a review run: the task by its title.
func criticTitle(task string, round int) string {
	if round > 1 {
		return fmt.Sprintf("Critic review of %q (round %d)", task, round)
	}
	return fmt.Sprintf("Critic review of %q", task)
}
