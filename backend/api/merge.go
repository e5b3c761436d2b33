package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/worktree"
)

// mergeRoutes serves the end of a code task's review: merge it into its
// base branch, or push it and open a pull request.
func (a *API) mergeRoutes() {
	a.mux.Handle("/api/board/{id}/merge", methods{"POST": a.mergeTask})
	a.mux.Handle("/api/board/{id}/pr", methods{"POST": a.openPR})
	a.mux.Handle("/api/board/{id}/discard", methods{"POST": a.discardTask})
	a.mux.Handle("/api/board/{id}/branches", methods{"GET": a.taskBranches})
}

type mergeBody struct {
	Strategy string `json:"strategy"` // ff, merge, squash; "" = fast-forward when possible, else a merge commit
	Base     string `json:"base"`     // the branch to merge into; "" = the task's own
	// HumanOverride marks the task done over a failed verification, as
	// PATCH does.
	HumanOverride *board.Override `json:"humanOverride"`
}

// reviewTarget is a task and its worktree, or a written refusal.
func (a *API) reviewTarget(w http.ResponseWriter, r *http.Request) (board.Task, worktree.Worktree, bool) {
	ctx, id := r.Context(), r.PathValue("id")
	t, err := a.opts.Board.Get(ctx, id)
	if err != nil {
		boardError(w, err)
		return t, worktree.Worktree{}, false
	}
	rec, err := a.opts.Board.Worktree(ctx, id)
	if errors.Is(err, board.ErrNotFound) {
		writeJSON(w, http.StatusConflict, map[string]any{"error": fmt.Sprintf("task '%s' has no worktree: nothing to merge", id), "reason": "no_worktree"})
		return t, worktree.Worktree{}, false
	}
	if err != nil || a.opts.Worktrees == nil {
		writeError(w, http.StatusServiceUnavailable, "worktrees are not available on this server (is git installed?)")
		return t, worktree.Worktree{}, false
	}
	if t.RunID != nil {
		writeJSON(w, http.StatusConflict, map[string]any{"error": "a run is working on this task: wait for it to end, or abort it", "reason": "task_running"})
		return t, worktree.Worktree{}, false
	}
	return t, toWorktree(rec), true
}

// refusalJSON answers a worktree refusal as a 409 with its reason (and
// files), anything else as a 500.
func (a *API) refusalJSON(w http.ResponseWriter, err error, extra map[string]any) {
	body := map[string]any{"error": err.Error()}
	status := http.StatusInternalServerError
	if rf, ok := worktree.IsRefusal(err); ok {
		status = http.StatusConflict
		body["reason"] = rf.Reason
		if rf.Reason == "merge_conflict" || rf.Reason == "checkout_overlap" {
			files := rf.Files
			if files == nil {
				files = []string{}
			}
			body["files"] = files
		}
	}
	for k, v := range extra {
		body[k] = v
	}
	writeJSON(w, status, body)
}

// mergeTask lands a task (supervisor.Land, the one code path a person's
// merge and merge-when-green share): its branch merged into its base
// branch (the one recorded on the task, or body.base), the task marked
// done with `merged` set (a done task an earlier build left unmerged stays
// done), its worktree and branch removed. The board's rules are checked
// before anything is merged: a task that cannot be done is not merged.
func (a *API) mergeTask(w http.ResponseWriter, r *http.Request) {
	var b mergeBody
	if !decodeJSON(w, r, &b) {
		return
	}
	strategy := worktree.MergeStrategy(b.Strategy)
	if !strategy.Valid() {
		writeError(w, http.StatusBadRequest, "strategy must be ff, merge or squash")
		return
	}
	if err := board.ValidBranchName(b.Base); err != nil {
		boardError(w, err)
		return
	}
	ctx, id := r.Context(), r.PathValue("id")
	res, err := a.opts.Supervisor.Land(ctx, id, supervisor.LandRequest{Strategy: strategy, Base: b.Base, Override: b.HumanOverride})
	var re *board.RuleError
	switch {
	case err == nil:
	case errors.Is(err, supervisor.ErrNoWorktrees):
		writeError(w, http.StatusServiceUnavailable, "%v", err)
		return
	case errors.Is(err, board.ErrNotFound), errors.As(err, &re):
		boardError(w, err)
		return
	default:
		extra := map[string]any{}
		if rf, ok := worktree.IsRefusal(err); ok && rf.Reason == "merge_conflict" {
			// Said so that a rebase can be asked for by name.
			if base := a.mergeBase(ctx, id, b.Base); base != "" {
				extra["base"] = base
			}
		}
		a.refusalJSON(w, err, extra)
		return
	}
	if res.NotDone {
		writeJSON(w, http.StatusConflict, map[string]any{"merge": res.Merge, "reason": "merged_not_done", "error": res.Warning})
		return
	}
	out := map[string]any{"task": res.Task, "merge": res.Merge}
	if res.Warning != "" {
		out["warning"] = res.Warning
	}
	writeJSON(w, http.StatusOK, out)
}

// discardTask: POST /api/board/{id}/discard → 200 {task}, only on a host's
// server: the desktop, having fetched the host task's branch, drops its
// worktree and branch there and cancels it. 409 while a run holds it.
func (a *API) discardTask(w http.ResponseWriter, r *http.Request) {
	if !a.opts.RunEnv {
		writeError(w, http.StatusNotFound, "discard is a host's server's route (clawboo host)")
		return
	}
	t, err := a.opts.Supervisor.Discard(r.Context(), r.PathValue("id"), "The desktop took this work back; its worktree here is removed.")
	var re *board.RuleError
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]any{"task": t})
	case errors.Is(err, supervisor.ErrNoWorktrees):
		writeError(w, http.StatusServiceUnavailable, "%v", err)
	case errors.Is(err, board.ErrNotFound), errors.As(err, &re):
		boardError(w, err)
	default:
		a.refusalJSON(w, err, nil)
	}
}

// mergedNote starts the system comment a merge leaves (taskDiff reads it).
const mergedNote = supervisor.MergedNote

// taskSummary is what a pull request or squash commit says about a task:
// its last run's summary, else its description.
func (a *API) taskSummary(ctx context.Context, t board.Task) string {
	if runs, err := a.opts.Store.TaskRuns(ctx, t.ID, 5); err == nil {
		for _, run := range runs {
			if s := strings.TrimSpace(run.Summary); s != "" {
				return s
			}
		}
	}
	return strings.TrimSpace(t.Description)
}

// openPR pushes the task's branch to the repository's remote and, when gh
// is installed and logged in, opens a pull request with the task's title
// and summary; otherwise it says how to open one. The task stays where it
// is (it is done once the pull request is merged, by a person).
func (a *API) openPR(w http.ResponseWriter, r *http.Request) {
	t, wt, ok := a.reviewTarget(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	if a.opts.Supervisor != nil {
		wt.Message = a.opts.Supervisor.WorkMessage(ctx, t) // work left uncommitted is committed under the task's title
	}
	hint := ""
	if t.BaseRef != nil {
		hint = *t.BaseRef
	}
	want := ""
	if t.BaseBranch != nil {
		want = *t.BaseBranch
	}
	base, _ := a.opts.Worktrees.BaseBranch(ctx, wt, want, hint) // "" = the host's default branch
	push, err := a.opts.Worktrees.Push(ctx, wt)
	if err != nil {
		a.refusalJSON(w, err, map[string]any{"pushed": false})
		return
	}
	out := map[string]any{"pushed": true, "remote": push.Remote, "branch": push.Branch, "base": base, "pr": nil}
	bg := context.WithoutCancel(ctx)
	gh, why := a.opts.Worktrees.GitHubCLI(ctx)
	if gh == "" {
		out["hint"] = fmt.Sprintf("Pushed %s to %s. %s: install and log in to gh (gh auth login) to open pull requests from here, or open one for branch %s on your host.",
			push.Branch, push.Remote, upperFirst(why), push.Branch)
		_, _ = a.opts.Board.AddComment(bg, t.ID, board.NewComment{AuthorType: "system", Body: fmt.Sprintf("Pushed %s to %s.", push.Branch, push.Remote)})
		writeJSON(w, http.StatusOK, out)
		return
	}
	body := a.taskSummary(ctx, t) + "\n\n---\nOpened by Clawboo from task " + t.ID + "."
	url, err := a.opts.Worktrees.OpenPR(ctx, gh, worktree.PRSpec{Repo: wt.RepoPath, Branch: push.Branch, Base: base, Title: t.Title, Body: body})
	if err != nil {
		out["hint"] = fmt.Sprintf("Pushed %s to %s, but gh could not open the pull request (%v); open one for branch %s on your host.", push.Branch, push.Remote, err, push.Branch)
		writeJSON(w, http.StatusOK, out)
		return
	}
	out["pr"] = map[string]any{"url": url}
	_, _ = a.opts.Board.AddComment(bg, t.ID, board.NewComment{AuthorType: "system", Body: fmt.Sprintf("Pushed %s to %s and opened %s", push.Branch, push.Remote, url)})
	writeJSON(w, http.StatusOK, out)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
