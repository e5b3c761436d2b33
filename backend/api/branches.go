package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/clawboo/desktop/backend/board"
)

// taskBranches answers GET /api/board/{id}/branches: the local branches a
// task can be merged into, {"base": <what a merge would use now, or null>,
// "branches": [...]}.
func (a *API) taskBranches(w http.ResponseWriter, r *http.Request) {
	ctx, id := r.Context(), r.PathValue("id")
	t, err := a.opts.Board.Get(ctx, id)
	if err != nil {
		boardError(w, err)
		return
	}
	if a.opts.Worktrees == nil {
		writeError(w, http.StatusServiceUnavailable, "worktrees are not available on this server (is git installed?)")
		return
	}
	repo := a.taskRepo(ctx, t)
	if repo == "" {
		writeJSON(w, http.StatusConflict, map[string]any{"error": fmt.Sprintf("task '%s' has no repository: set its repoPath", t.Title), "reason": "no_repository"})
		return
	}
	names, current, err := a.opts.Worktrees.Branches(ctx, repo)
	if err != nil {
		writeJSON(w, http.StatusConflict, map[string]any{"error": fmt.Sprintf("cannot list the branches of %s: %v", repo, err), "reason": "no_repository"})
		return
	}
	var base any
	if b := a.mergeBase(ctx, id, ""); b != "" {
		base = b
	} else if t.Merged == nil && t.BaseBranch == nil {
		// No worktree yet: the branch checked out now is what it would take.
		if t.BaseRef != nil && slices.Contains(names, *t.BaseRef) {
			base = *t.BaseRef
		} else if current != "" {
			base = current
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"base": base, "branches": names})
}

// mergeBase is the branch a merge of task id would go into now (want
// overrides the task's own), or "" when none can be told.
func (a *API) mergeBase(ctx context.Context, id, want string) string {
	t, err := a.opts.Board.Get(ctx, id)
	if err != nil {
		return ""
	}
	if t.Merged != nil && want == "" {
		return t.Merged.Base
	}
	if want == "" && t.BaseBranch != nil {
		want = *t.BaseBranch
	}
	rec, err := a.opts.Board.Worktree(ctx, id)
	if err != nil || rec.Status == "archived" || a.opts.Worktrees == nil {
		return want
	}
	hint := ""
	if t.BaseRef != nil {
		hint = *t.BaseRef
	}
	b, err := a.opts.Worktrees.BaseBranch(ctx, toWorktree(rec), want, hint)
	if err != nil {
		return ""
	}
	return b
}

// checkBaseBranch refuses (400) a baseBranch that is not a local branch
// outside clawboo/ of repo; with no repository known only its shape is
// checked (the merge checks it again).
func (a *API) checkBaseBranch(w http.ResponseWriter, r *http.Request, repo, branch string) bool {
	if branch == "" {
		return true
	}
	if err := board.ValidBranchName(branch); err != nil {
		boardError(w, err)
		return false
	}
	if repo == "" || a.opts.Worktrees == nil {
		return true
	}
	names, _, err := a.opts.Worktrees.Branches(r.Context(), repo)
	if err != nil {
		writeError(w, http.StatusBadRequest, "cannot read the branches of %s: %v", repo, err)
		return false
	}
	if !slices.Contains(names, branch) {
		writeError(w, http.StatusBadRequest, "baseBranch %q is not a local branch of %s", branch, repo)
		return false
	}
	return true
}

// taskRepo is the repository a task works in (its worktree's, else its
// own, else its team's), or "".
func (a *API) taskRepo(ctx context.Context, t board.Task) string {
	if rec, err := a.opts.Board.Worktree(ctx, t.ID); err == nil {
		return rec.RepoPath
	}
	if t.RepoPath != nil {
		return *t.RepoPath
	}
	return a.teamRepo(ctx, t.TeamID)
}

// newTaskRepo is the repository a new task will work in: its own, else its
// parent's, else its team's.
func (a *API) newTaskRepo(ctx context.Context, repo, parentID, teamID string) string {
	if repo != "" {
		return repo
	}
	if parentID != "" {
		if p, err := a.opts.Board.Get(ctx, parentID); err == nil {
			return a.taskRepo(ctx, p)
		}
	}
	return a.teamRepo(ctx, &teamID)
}

func (a *API) teamRepo(ctx context.Context, teamID *string) string {
	if teamID == nil || *teamID == "" || a.opts.Teams == nil {
		return ""
	}
	if tm, err := a.opts.Teams.Get(ctx, *teamID); err == nil && tm.RepoPath != nil {
		return *tm.RepoPath
	}
	return ""
}
