package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/clawboo/desktop/backend/worktree"
)

// Every route that takes a repository (teams, board tasks, the welcome's
// seed, routines' templates) checks it here before it changes anything: a
// path that is not the top folder of a git repository with at least one
// commit is refused with 400, the reason in words and reason
// "bad_repository", so a form can show the words at its repository field.

// reasonBadRepo is the refusal's stable code.
const reasonBadRepo = "bad_repository"

// repoRefusal is why p cannot be a repository, or "" when it can. An empty
// p is no repository, which every route allows. git missing is a refusal
// too: nothing could ever run there.
func (a *API) repoRefusal(ctx context.Context, p string) string {
	if p == "" {
		return ""
	}
	if a.opts.Worktrees == nil {
		return "git is not installed on this computer, so " + truncate(p, 200) + " cannot be used: install git first"
	}
	_, err := a.opts.Worktrees.CheckRepo(ctx, p)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, worktree.ErrBadRepo):
		return worktree.Reason(err)
	case errors.Is(err, worktree.ErrGitMissing):
		return "git does not run on this computer, so " + truncate(p, 200) + " cannot be used: install git first"
	default:
		return "cannot check " + truncate(p, 200) + ": " + err.Error()
	}
}

// checkRepo answers the refusal itself and returns false when p is not a
// usable repository.
func (a *API) checkRepo(w http.ResponseWriter, r *http.Request, p string) bool {
	if why := a.repoRefusal(r.Context(), p); why != "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": why, "reason": reasonBadRepo, "field": "repoPath"})
		return false
	}
	return true
}

// checkRepoRoute is POST /api/repos/check {repoPath}: 200 {ok, repoPath}
// for a usable repository, the route's refusal otherwise. It changes
// nothing.
func (a *API) checkRepoRoute(w http.ResponseWriter, r *http.Request) {
	var body struct {
		RepoPath string `json:"repoPath"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	if body.RepoPath == "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "no repository given", "reason": reasonBadRepo, "field": "repoPath"})
		return
	}
	if !a.checkRepo(w, r, body.RepoPath) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "repoPath": body.RepoPath})
}
