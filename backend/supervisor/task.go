package supervisor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/worktree"
	"github.com/oklog/ulid/v2"
)

// Refusal is why a task run was not started. Nothing was claimed when it
// is returned (a claim taken before a later refusal is released).
type Refusal struct {
	// Reason is one of not_found, conflict, too_deep, connected_substrate,
	// budget_paused, workspace_unavailable, quota.
	Reason string
	Msg    string
	// DeferralID and Until are set when the governor deferred the work
	// (reason quota): it starts again at Until (Unix ms).
	DeferralID string
	Until      int64
}

func (r *Refusal) Error() string { return r.Reason + ": " + r.Msg }

func refuse(reason, format string, a ...any) error {
	return &Refusal{Reason: reason, Msg: fmt.Sprintf(format, a...)}
}

// taskCtx is what a run of a board task carries beyond an ad-hoc run.
type taskCtx struct {
	task  board.Task
	kind  board.Kind
	wt    *worktree.Worktree
	ports []int // the worktree's leased ports (board.PortEnv)
	// checkout is the repository a work-in-place task works in, locked
	// for the run (no worktree then).
	checkout string
	scopes   budget.Scopes
}

// startTask checks, claims and prepares a board task, in the order that
// refuses before anything is claimed: the task exists, the runtime can run
// board tasks, the tree is not too deep, no budget is paused; then the
// claim (a loser gets conflict and never retries); then the worktree,
// whose failure releases the claim.
func (s *Supervisor) startTask(ctx context.Context, ap *executor.Adapter, p *StartParams) (*taskCtx, string, error) {
	a := *ap
	if s.opts.Board == nil {
		return nil, "", refuse("not_found", "this server has no board")
	}
	t, err := s.opts.Board.Get(ctx, p.TaskID)
	if errors.Is(err, board.ErrNotFound) {
		return nil, "", refuse("not_found", "no task '%s'", p.TaskID)
	}
	if err != nil {
		return nil, "", err
	}
	if a.Capabilities().RuntimeClass == executor.ConnectedSubstrate {
		return nil, "", refuse("connected_substrate", "%s works in its own Gateway-owned folders and cannot run board tasks", a.Name())
	}
	if t.Depth > s.opts.MaxTaskDepth {
		return nil, "", refuse("too_deep", "task '%s' is nested deeper than %d levels", t.ID, s.opts.MaxTaskDepth)
	}
	tc := &taskCtx{task: t, kind: t.Kind}
	if p.Kind != "" {
		tc.kind = board.Kind(p.Kind)
	}
	if p.AgentID == "" && t.AssigneeAgentID != nil {
		p.AgentID = *t.AssigneeAgentID
	}
	tc.scopes = budget.Scopes{AgentID: p.AgentID, MissionID: t.RootID}
	if t.TeamID != nil {
		tc.scopes.TeamID = *t.TeamID
	}
	if err := s.preflight(ctx, tc.scopes); err != nil {
		return nil, "", err
	}
	if err := s.admit(ctx, ap, p, QuotaWork{
		AgentID: p.AgentID, TeamID: tc.scopes.TeamID, TaskID: t.ID, Title: t.Title, Reason: p.Reason,
		Message: s.heldMessage(ctx, t, p.Message), Carry: p.Carry,
	}); err != nil {
		return nil, "", err
	}
	if a = *ap; a.Capabilities().RuntimeClass == executor.ConnectedSubstrate {
		return nil, "", refuse("connected_substrate", "%s works in its own Gateway-owned folders and cannot run board tasks", a.Name())
	}
	if err := s.place(ctx, ap, p, tc.scopes.TeamID); err != nil {
		return nil, "", err
	}
	a = *ap
	if err := s.opts.Board.SetHost(ctx, t.ID, p.hostID); err != nil {
		return nil, "", err
	}
	runID := ulid.Make().String()
	// Answer for the run from the moment the claim can name it (the board
	// publishes the claimed task before Claim returns) until it is live.
	s.claimed(runID, store.Run{
		ID: runID, RuntimeID: string(a.ID()), TaskID: &t.ID, Title: title(t.Title),
		Status: store.RunStarting, CreatedAt: s.opts.Now().UnixMilli(),
	})
	claimed, err := s.opts.Board.Claim(ctx, t.ID, board.ClaimSpec{AgentID: p.AgentID, Runtime: string(a.ID()), RunID: runID})
	if err != nil {
		s.unclaiming(runID)
	}
	if err != nil {
		return nil, "", claimRefusal(err, t.ID)
	}
	tc.task = claimed
	// A runtime that does not declare worktrees (the seed's mock) works
	// in no folder of ours: it is never handed one it does not expect.
	if worktree.NeedsWorktree(string(tc.kind)) && a.Capabilities().Worktrees && claimed.WorkInPlace {
		dir, err := s.inPlace(ctx, claimed, p.RepoPath, runID)
		if err != nil {
			s.unclaiming(runID)
			_, _ = s.opts.Board.Release(context.Background(), t.ID, runID, "Not started: "+err.Error())
			return nil, "", err
		}
		tc.checkout, p.workDir = dir, dir
	} else if worktree.NeedsWorktree(string(tc.kind)) && a.Capabilities().Worktrees {
		wt, ports, err := s.provision(ctx, claimed, p.RepoPath)
		if err != nil {
			s.unclaiming(runID)
			_, _ = s.opts.Board.Release(context.Background(), t.ID, runID, "Not started: "+err.Error())
			return nil, "", refuse("workspace_unavailable", "%v", err)
		}
		wt.Message = s.WorkMessage(ctx, claimed)
		tc.wt, tc.ports = wt, ports
		p.workDir = wt.Path
	}
	return tc, runID, nil
}

// startAdHoc admits a run that is not a task's (an agent's chat, a team
// turn) and names it: a paused agent or team cap refuses it as it refuses a
// task run, and a team turn asks the quota governor.
func (s *Supervisor) startAdHoc(ctx context.Context, a *executor.Adapter, p *StartParams) (string, error) {
	sc := budget.Scopes{AgentID: p.AgentID, TeamID: p.TeamID}
	if p.scopes != nil {
		sc = *p.scopes
	}
	if sc != (budget.Scopes{}) {
		if err := s.preflight(ctx, sc); err != nil {
			return "", err
		}
	}
	if p.Reason == "team-turn" {
		if err := s.admit(ctx, a, p, QuotaWork{
			AgentID: p.AgentID, TeamID: p.TeamID, Title: title(p.Message),
			Message: p.Message, Reason: p.Reason,
		}); err != nil {
			return "", err
		}
	}
	if err := s.place(ctx, a, p, sc.TeamID); err != nil {
		return "", err
	}
	return ulid.Make().String(), nil
}

// place sends the run where its agent runs: *a becomes the adapter that
// runs it on the agent's host, when it has one.
func (s *Supervisor) place(ctx context.Context, a *executor.Adapter, p *StartParams, teamID string) error {
	if s.opts.Place == nil || p.AgentID == "" {
		return nil
	}
	to, host, err := s.opts.Place(ctx, p.AgentID, teamID, *a)
	if err != nil {
		return err
	}
	if host != "" {
		*a, p.hostID = to, host
	}
	return nil
}

// preflight refuses a run whose agent, mission or team has a paused cap
// budget, before anything is claimed or started.
func (s *Supervisor) preflight(ctx context.Context, sc budget.Scopes) error {
	if s.opts.Budget == nil {
		return nil
	}
	var paused *budget.PausedError
	if err := s.opts.Budget.Preflight(ctx, sc); errors.As(err, &paused) {
		return refuse("budget_paused", "the %s budget for %s is paused: raise or resume it to continue", paused.Scope, paused.ScopeID)
	} else if err != nil {
		return err
	}
	return nil
}

// provision gives a code task its worktree, reusing the one it had, and
// the worktree's block of ports (the lease it holds, else a new one).
func (s *Supervisor) provision(ctx context.Context, t board.Task, repoOverride string) (*worktree.Worktree, []int, error) {
	if s.opts.Worktrees == nil || s.opts.Worktrees.Usable(ctx) != nil {
		return nil, nil, errors.New("worktrees are not available on this server (is git installed?)")
	}
	repo := repoOverride
	if repo == "" && t.RepoPath != nil {
		repo = *t.RepoPath
	}
	if repo == "" {
		return nil, nil, errors.New("a code task needs a repository: set the task's repoPath")
	}
	base := ""
	if t.BaseRef != nil {
		base = *t.BaseRef
	}
	wt, err := s.opts.Worktrees.Provision(ctx, worktree.ProvisionSpec{TaskID: t.ID, RepoPath: repo, BaseRef: base})
	if err != nil {
		return nil, nil, err
	}
	rec := board.Worktree{TaskID: t.ID, RepoPath: wt.RepoPath, Path: wt.Path, Branch: wt.Branch, BaseCommit: wt.BaseCommit, Status: "active"}
	if err := s.opts.Board.SetWorktree(ctx, rec); err != nil {
		return nil, nil, err
	}
	s.recordBase(ctx, t, wt) // landing.go
	ports, err := s.opts.Board.LeasePorts(ctx, t.ID)
	if err != nil {
		// The folder stays (it may hold work); the next run leases again.
		return nil, nil, err
	}
	return &wt, ports, nil
}

// taskMessage is the prompt of a task run: the task itself, then what the
// caller added.
func taskMessage(t board.Task, extra string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task %s: %s\n", t.ID, t.Title)
	if d := strings.TrimSpace(t.Description); d != "" {
		b.WriteString("\n" + d + "\n")
	}
	if e := strings.TrimSpace(extra); e != "" {
		b.WriteString("\n" + e + "\n")
	}
	return b.String()
}

// claimRefusal is a failed claim in the door's words: a task gone, another
// claimant first, or a board rule (its own words); anything else as it is.
func claimRefusal(err error, taskID string) error {
	var rule *board.RuleError
	switch {
	case errors.Is(err, board.ErrNotFound):
		return refuse("not_found", "no task '%s'", taskID)
	case errors.Is(err, board.ErrConflict):
		return refuse("conflict", "%v", err)
	case errors.As(err, &rule):
		return refuse("conflict", "%s", rule.Msg)
	}
	return err
}
