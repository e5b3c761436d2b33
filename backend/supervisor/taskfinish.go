package supervisor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/worktree"
)

func newSystemComment(body string) board.NewComment {
	return board.NewComment{AuthorType: "system", Body: body}
}

// finishTask moves the task the run held, after the run's own result is
// saved. A run that did not succeed gives the task back (todo) with a note
// saying why and pauses its worktree (work committed to the branch, the
// folder freed). A successful run with no worktree is done; with one, an
// empty diff is cleaned up and the task is done, and a non-empty diff is
// verified when a verify command exists. A change waits in review with its
// diff kept, ready to merge: done means landed in its base branch. A pass
// the task asks to have reviewed goes through the critic first
// (critic.go); a pass of a task whose team or itself says merge when green
// is then merged by Clawboo and done (landing.go), or left in review with
// the reason when it cannot be.
func (l *liveRun) finishTask(o *outcome, run store.Run) {
	s, tc := l.s, l.task
	ctx := context.Background()
	taskID := tc.task.ID
	finish := func(out board.Outcome) {
		t, err := s.opts.Board.Finish(ctx, taskID, l.id, out)
		if err != nil {
			s.opts.Log.Error("task not moved after its run", "task", taskID, "run", l.id, "err", err)
		}
		l.mu.Lock()
		l.taskFinal = &t
		l.mu.Unlock()
	}
	if o.done != nil && o.done.Reason == executor.DoneMaxTurns && run.Status == store.RunSucceeded &&
		l.params.Carry.Generation < MaxSuccessors && l.continueInSuccessor(finish) {
		return
	}
	if run.Status != store.RunSucceeded {
		why := l.unfinishedWords(ctx, o, run)
		l.pauseWorktree()
		finish(board.Outcome{To: board.Todo, KeepAssignee: StoppedByPerson(run), Comment: &board.NewComment{AuthorType: "system", Body: why}})
		return
	}
	report := strings.TrimSpace(run.Summary)
	if tc.wt == nil {
		finish(board.Outcome{To: board.Done, Comment: agentComment(l, report)})
		return
	}
	wm := s.opts.Worktrees
	diff, err := wm.Diff(ctx, *tc.wt)
	if err != nil {
		l.pauseWorktree()
		finish(board.Outcome{To: board.Todo, Comment: &board.NewComment{AuthorType: "system", Body: "Could not read the task's worktree: " + err.Error()}})
		return
	}
	if !diff.Changed {
		if _, err := wm.Complete(ctx, *tc.wt); err != nil {
			s.opts.Log.Warn("worktree not cleaned up", "task", taskID, "err", err)
		} else {
			_ = s.opts.Board.SetWorktreeStatus(ctx, taskID, "archived")
		}
		finish(board.Outcome{To: board.Done, Comment: agentComment(l, joinNote(report, "No changes to the repository."))})
		return
	}
	verif, interrupted := l.verify(ctx)
	if interrupted {
		l.pauseWorktree()
		finish(board.Outcome{To: board.Todo, Comment: &board.NewComment{AuthorType: "system", Body: "Verification was interrupted: Clawboo shut down."}})
		return
	}
	change, err := wm.Complete(ctx, *tc.wt)
	var notCommitted string
	if err != nil {
		s.opts.Log.Warn("task work not committed", "task", taskID, "err", err)
		change = diff
		if errors.Is(err, worktree.ErrSecretInCommit) {
			// Said on the task, so a person sees why it cannot be merged yet.
			notCommitted = " Not committed: " + err.Error() + "."
		}
	}
	note := fmt.Sprintf("Changed %d file(s) (+%d −%d); the diff is kept on branch %s for review.", diff.Files, diff.Insertions, diff.Deletions, tc.wt.Branch) + notCommitted
	to := board.InReview
	note += verifyNote(verif)
	// A green verify may still be reviewed by the critic (critic.go).
	if verif != nil && verif.Passed {
		more, handled := l.criticGate(ctx, change, verif, agentComment(l, joinNote(report, note)), finish)
		if handled {
			return
		}
		note += more
	}
	finish(board.Outcome{To: to, Verification: verif, Comment: agentComment(l, joinNote(report, note))})
	if verif != nil && verif.Passed {
		l.landFinal(ctx)
	}
}

// landFinal lands the task as the run left it when its team merges
// verified changes (landWhenGreen), and keeps the task as landing left it.
func (l *liveRun) landFinal(ctx context.Context) {
	l.mu.Lock()
	t := l.taskFinal
	l.mu.Unlock()
	if t == nil || t.ID == "" {
		return
	}
	landed := l.landWhenGreen(ctx, *t)
	l.mu.Lock()
	l.taskFinal = &landed
	l.mu.Unlock()
}

func joinNote(report, note string) string {
	if report == "" {
		return note
	}
	return report + "\n\n" + note
}

// agentComment reports up: the run's summary, as the agent that did it.
func agentComment(l *liveRun, body string) *board.NewComment {
	if strings.TrimSpace(body) == "" {
		return nil
	}
	return &board.NewComment{AuthorType: "agent", AuthorID: l.params.AgentID, Body: body}
}

// verifyCommand is the task's own, else the repository's: the first
// non-comment line of .clawboo/verify as the task's base commit has it, so
// the run being judged cannot rewrite its own gate.
func (s *Supervisor) verifyCommand(ctx context.Context, tc *taskCtx) string {
	if tc.task.VerifyCommand != nil && strings.TrimSpace(*tc.task.VerifyCommand) != "" {
		return strings.TrimSpace(*tc.task.VerifyCommand)
	}
	b, err := s.opts.Worktrees.BaseFile(ctx, *tc.wt, ".clawboo/verify", 64<<10)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			return line
		}
	}
	return ""
}

// pauseWorktree commits what a stopped run left and frees the folder; the
// branch keeps the work for the next run.
func (l *liveRun) pauseWorktree() {
	if l.task.wt == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := l.s.opts.Worktrees.Pause(ctx, *l.task.wt); err != nil {
		l.s.opts.Log.Warn("worktree not paused", "task", l.task.task.ID, "err", err)
		return
	}
	_ = l.s.opts.Board.SetWorktreeStatus(ctx, l.task.task.ID, "paused")
}

// MaxSuccessors bounds how many fresh sessions continue a task whose run
// reached its turn limit, so a task that never converges stops costing.
const MaxSuccessors = 3

// continueInSuccessor hands a task whose run hit its turn limit to a fresh
// session of the same agent on the same runtime: the work so far is
// committed to the task's branch, the task goes back to todo with a note,
// and a successor run claims it again. The runtime carries its own handoff
// note across (the session key is the task's). It reports false when the
// successor could not start, leaving the caller to finish as usual.
func (l *liveRun) continueInSuccessor(finish func(board.Outcome)) bool {
	s := l.s
	gen := l.params.Carry.Generation + 1
	l.pauseWorktree()
	finish(board.Outcome{To: board.Todo, Comment: &board.NewComment{
		AuthorType: "system",
		Body:       fmt.Sprintf("The run reached its turn limit; continuing in a fresh session (%d of %d) from its handoff note.", gen, MaxSuccessors),
	}})
	p := l.params
	p.Message = "Continue this task from where the previous session stopped; its handoff note is in your context."
	p.workDir, p.Carry = "", Carry{Generation: gen, Fixes: l.params.Carry.Fixes}
	h, err := s.Start(context.Background(), p)
	if err != nil {
		s.opts.Log.Warn("successor run not started", "task", l.task.task.ID, "err", err)
		_, _ = s.opts.Board.AddComment(context.Background(), l.task.task.ID, newSystemComment("The successor session could not start: "+err.Error()))
		return true // the task is already back in todo, which is the right place for it
	}
	l.mu.Lock()
	l.successor = h.ID
	l.mu.Unlock()
	return true
}

// unfinishedWords is the task's comment when its run did not succeed: a
// paused budget, a person's stop (final: nothing starts it again until a
// person does), a rejected quota window (the task deferred to its reset,
// continuing its session), or the run's own words.
func (l *liveRun) unfinishedWords(ctx context.Context, o *outcome, run store.Run) string {
	why := "The run did not finish: " + firstNonEmpty(run.Error, run.Summary, run.Status) + "."
	switch {
	case o.budgetStop != "":
		why = budget.PauseComment(budget.Scope(o.budgetStop))
	case StoppedByPerson(run):
		why = StoppedByYou + "." // final: nothing starts it again until a person does
	case o.quotaStop != nil && run.Status == store.RunAborted:
		why = l.s.opts.Quota.Paused(ctx, QuotaWork{
			Runtime: l.params.RuntimeID, AgentID: l.params.AgentID, TeamID: l.task.scopes.TeamID,
			TaskID: l.task.task.ID, Title: l.task.task.Title, Reason: l.params.Reason,
			Carry: Carry{Generation: l.params.Carry.Generation, Fixes: l.params.Carry.Fixes, ContinueSession: true},
		}, *o.quotaStop)
	case run.Status == store.RunAborted:
		why = "The run was stopped before it finished: " + strings.TrimSuffix(firstNonEmpty(run.Error, "no reason given"), ".") + "."
	}
	return why
}

// verify runs the task's verify command in its worktree, when it has one;
// interrupted is true when Clawboo shut down meanwhile.
func (l *liveRun) verify(ctx context.Context) (verif *board.Verification, interrupted bool) {
	s, tc := l.s, l.task
	l.mu.Lock()
	rt := l.rt
	l.mu.Unlock()
	if hv, ok := rt.(HostVerified); ok {
		// Verified where it ran: the command does not run again here.
		v := hv.HostVerification()
		if v != nil {
			v.RunID = l.id
		}
		return v, false
	}
	cmd := s.verifyCommand(ctx, tc)
	if cmd == "" {
		return nil, false
	}
	vctx, cancel := context.WithTimeout(s.root, s.opts.VerifyTimeout+time.Minute)
	v := s.opts.Worktrees.Verify(vctx, *tc.wt, cmd, s.opts.VerifyTimeout)
	cancel()
	if s.root.Err() != nil {
		return nil, true
	}
	return &board.Verification{
		Command: v.Command, ExitCode: v.ExitCode, Passed: v.Passed, TimedOut: v.TimedOut,
		OutputTail: v.OutputTail, DurationMs: v.DurationMs, At: v.StartedAt, RunID: l.id,
	}, false
}

// HostVerified is a task run that ran on another machine, which ran the
// task's verify command there (in its own worktree, as it runs setup): its
// verification stands for one here (nil: the task had no verify command).
type HostVerified interface {
	HostVerification() *board.Verification
}

// verifyNote is what the task's comment says of its verification.
func verifyNote(verif *board.Verification) string {
	switch {
	case verif == nil:
		return ""
	case verif.Passed:
		return " Verification passed: `" + verif.Command + "`. Ready to merge."
	case verif.TimedOut:
		return " Verification timed out: `" + verif.Command + "`."
	}
	return fmt.Sprintf(" Verification failed (exit %d): `%s`.", verif.ExitCode, verif.Command)
}
