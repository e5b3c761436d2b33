package api

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/clawboo/desktop/backend/worktree"
)

// diskRoutes serves what task worktrees cost on disk and what the janitor
// reclaimed: GET /api/worktrees → {totalBytes, worktrees, budgetBytesPerRepo,
// depFolders, janitor: {at, report: {reclaimed: [{taskId, repoPath, folders,
// bytes, removed}], totalBytes}} | null}; GET|PUT
// /api/settings/worktree-budget {bytesPerRepo} (0 = no budget). Each
// worktree also carries its task's title and status ("" for a folder no task
// owns), and titles maps every task id of the list and of the janitor's
// report to its title, so the Settings page can name them.
func (a *API) diskRoutes() {
	a.mux.Handle("/api/worktrees", methods{"GET": a.worktreeDisk})
	a.mux.Handle("/api/settings/worktree-budget", methods{"GET": a.getWorktreeBudget, "PUT": a.putWorktreeBudget})
}

// worktreeRow is one worktree on disk with the task it belongs to.
type worktreeRow struct {
	worktree.Usage
	Title  string `json:"title"`
	Status string `json:"status"` // the task's board status; "" when no task owns the folder
}

func (a *API) worktreeDisk(w http.ResponseWriter, r *http.Request) {
	titles := map[string]string{}
	rows := []worktreeRow{}
	out := map[string]any{"totalBytes": int64(0), "depFolders": worktree.DepFolders(), "janitor": nil}
	if a.opts.Worktrees != nil {
		total, per, err := a.opts.Worktrees.DiskUsage(r.Context())
		if err != nil {
			writeError(w, http.StatusInternalServerError, "%v", err)
			return
		}
		for _, u := range per {
			row := worktreeRow{Usage: u}
			if t, err := a.opts.Board.Get(r.Context(), u.TaskID); err == nil {
				row.Title, row.Status = t.Title, string(t.Status)
				titles[u.TaskID] = t.Title
			}
			rows = append(rows, row)
		}
		out["totalBytes"] = total
	}
	out["worktrees"] = rows
	out["titles"] = titles
	budget, err := a.opts.Board.WorktreeBudget(r.Context())
	if err != nil {
		boardError(w, err)
		return
	}
	out["budgetBytesPerRepo"] = budget
	if rep, err := a.opts.Board.JanitorReport(r.Context()); err == nil && rep != nil {
		out["janitor"] = rep
		a.titleJanitorTasks(r.Context(), rep, titles)
	}
	writeJSON(w, http.StatusOK, out)
}

// titleJanitorTasks adds the titles of the report's tasks that are not on
// disk any more (a paused worktree's task, say); a deleted task has none.
func (a *API) titleJanitorTasks(ctx context.Context, raw json.RawMessage, titles map[string]string) {
	var rep struct {
		Report struct {
			Reclaimed []struct {
				TaskID string `json:"taskId"`
			} `json:"reclaimed"`
		} `json:"report"`
	}
	if json.Unmarshal(raw, &rep) != nil {
		return
	}
	for _, c := range rep.Report.Reclaimed {
		if _, ok := titles[c.TaskID]; ok || c.TaskID == "" {
			continue
		}
		if t, err := a.opts.Board.Get(ctx, c.TaskID); err == nil {
			titles[c.TaskID] = t.Title
		}
	}
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
