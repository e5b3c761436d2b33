package api

import (
	"net/http"

	"github.com/clawboo/desktop/backend/worktree"
)

// diskRoutes serves what task worktrees cost on disk and what the janitor
// reclaimed: GET /api/worktrees → {totalBytes, worktrees, budgetBytesPerRepo,
// depFolders, janitor: {at, report: {reclaimed: [{taskId, repoPath, folders,
// bytes, removed}], totalBytes}} | null}; GET|PUT
// /api/settings/worktree-budget {bytesPerRepo} (0 = no budget).
func (a *API) diskRoutes() {
	a.mux.Handle("/api/worktrees", methods{"GET": a.worktreeDisk})
	a.mux.Handle("/api/settings/worktree-budget", methods{"GET": a.getWorktreeBudget, "PUT": a.putWorktreeBudget})
}

func (a *API) worktreeDisk(w http.ResponseWriter, r *http.Request) {
	out := map[string]any{"totalBytes": int64(0), "worktrees": []worktree.Usage{}, "depFolders": worktree.DepFolders(), "janitor": nil}
	if a.opts.Worktrees != nil {
		total, per, err := a.opts.Worktrees.DiskUsage(r.Context())
		if err != nil {
			writeError(w, http.StatusInternalServerError, "%v", err)
			return
		}
		if per != nil {
			out["worktrees"] = per
		}
		out["totalBytes"] = total
	}
	budget, err := a.opts.Board.WorktreeBudget(r.Context())
	if err != nil {
		boardError(w, err)
		return
	}
	out["budgetBytesPerRepo"] = budget
	if rep, err := a.opts.Board.JanitorReport(r.Context()); err == nil && rep != nil {
		out["janitor"] = rep
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *API) getWorktreeBudget(w http.ResponseWriter, r *http.Request) {
	n, err := a.opts.Board.WorktreeBudget(r.Context())
	if err != nil {
		boardError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"bytesPerRepo": n})
}

func (a *API) putWorktreeBudget(w http.ResponseWriter, r *http.Request) {
	var body struct {
		BytesPerRepo *int64 `json:"bytesPerRepo"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	if body.BytesPerRepo == nil {
		writeError(w, http.StatusBadRequest, "bytesPerRepo is required (0 = no budget)")
		return
	}
	if err := a.opts.Board.SetWorktreeBudget(r.Context(), *body.BytesPerRepo); err != nil {
		boardError(w, err)
		return
	}
	a.getWorktreeBudget(w, r)
}
