package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/worktree"
)

// mergeRoutes serves the end of a code task's review: merge it into its
// base branch, or push it and open a pull request.
func (a *API) mergeRoutes() {
	a.mux.Handle("/api/board/{id}/merge", methods{"POST": a.mergeTask})
	a.mux.Handle("/api/board/{id}/pr", methods{"POST": a.openPR})
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
		if rf.Reason == "merge_conflict" {
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

// mergeTask merges the task's branch into its base branch (see
// worktree.Merge for what is and is not touched), then marks the task done
// and removes its worktree and branch. The board's rules are checked before
// anything is merged: a task that cannot be done is not merged.
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
	t, wt, ok := a.reviewTarget(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	if t.Status.Terminal() || !board.CanMove(t.Status, board.Done) {
		writeJSON(w, http.StatusConflict, map[string]any{"error": fmt.Sprintf("a task cannot move from %s to done, so it is not merged", t.Status), "reason": "illegal_transition"})
		return
	}
	if t.Verification != nil && !t.Verification.Passed && (b.HumanOverride == nil || strings.TrimSpace(b.HumanOverride.By) == "") {
		writeJSON(w, http.StatusConflict, map[string]any{"error": "the last verification failed; merging it needs an explicit override", "reason": "verification_required"})
		return
	}
	hint := ""
	if t.BaseRef != nil {
		hint = *t.BaseRef
	}
	msg := "Merge task " + t.ID + ": " + t.Title
	if strategy == worktree.MergeSquash {
		msg = t.Title + "\n\n" + a.taskSummary(ctx, t) + "\n\nClawboo task " + t.ID + " (" + wt.Branch + ")"
	}
	res, err := a.opts.Worktrees.Merge(ctx, wt, worktree.MergeSpec{Base: b.Base, Hint: hint, Strategy: strategy, Message: msg})
	if err != nil {
		extra := map[string]any{}
		if rf, ok := worktree.IsRefusal(err); ok && rf.Reason == "merge_conflict" {
			// Said so that a rebase can be asked for by name.
			if base, err := a.opts.Worktrees.BaseBranch(ctx, wt, b.Base, hint); err == nil {
				extra["base"] = base
			}
		}
		a.refusalJSON(w, err, extra)
		return
	}
	// The merge is in: from here on the answer says so, whatever fails.
	bg := context.WithoutCancel(ctx)
	done := board.Done
	task, err := a.opts.Board.Update(bg, t.ID, board.Patch{Status: &done, Override: b.HumanOverride})
	if err != nil {
		writeJSON(w, http.StatusConflict, map[string]any{"merge": res, "reason": "merged_not_done",
			"error": fmt.Sprintf("merged into %s, but the task could not be marked done: %v", res.Base, err)})
		return
	}
	note := fmt.Sprintf(mergedNote+"%s (%s) at %s.", res.Base, howWords(res.How), short(res.Commit))
	warning := ""
	if err := a.opts.Worktrees.Remove(bg, wt, true); err != nil {
		warning = "the worktree or branch could not be removed: " + err.Error()
		note += " " + warning
	} else {
		_ = a.opts.Board.SetWorktreeStatus(bg, t.ID, "archived")
	}
	_, _ = a.opts.Board.AddComment(bg, t.ID, board.NewComment{AuthorType: "system", Body: note})
	out := map[string]any{"task": task, "merge": res}
	if warning != "" {
		out["warning"] = warning
	}
	writeJSON(w, http.StatusOK, out)
}

// mergedNote starts the system comment a merge leaves (taskDiff reads it).
const mergedNote = "Merged into "

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
	hint := ""
	if t.BaseRef != nil {
		hint = *t.BaseRef
	}
	base, _ := a.opts.Worktrees.BaseBranch(ctx, wt, "", hint) // "" = the host's default branch
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
