package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/redact"
	"github.com/clawboo/desktop/backend/worktree"
)

// boardError maps board refusals to statuses: a missing task 404, a lost
// claim 409, a move the rules refuse 409, bad input 400, a tree cap 422.
func boardError(w http.ResponseWriter, err error) {
	var re *board.RuleError
	switch {
	case errors.Is(err, board.ErrNotFound):
		writeError(w, http.StatusNotFound, "%v", err)
	case errors.Is(err, board.ErrConflict):
		writeJSON(w, http.StatusConflict, map[string]any{"error": err.Error(), "reason": "conflict"})
	case errors.Is(err, board.ErrCycle):
		writeJSON(w, http.StatusConflict, map[string]any{"error": "that dependency would make a cycle", "reason": "task_dependency_cycle"})
	case errors.As(err, &re):
		status := http.StatusConflict
		switch re.Code {
		case "invalid":
			status = http.StatusBadRequest
		case "too_deep", "too_many_children":
			status = http.StatusUnprocessableEntity
		}
		writeJSON(w, status, map[string]any{"error": re.Msg, "reason": re.Code})
	default:
		writeError(w, http.StatusInternalServerError, "%v", err)
	}
}

type createTaskBody struct {
	Title         string `json:"title"`
	Description   string `json:"description"`
	Status        string `json:"status"`
	Priority      int    `json:"priority"`
	TeamID        string `json:"teamId"`
	ParentTaskID  string `json:"parentTaskId"`
	RepoPath      string `json:"repoPath"`
	BaseRef       string `json:"baseRef"`
	Kind          string `json:"kind"`
	VerifyCommand string `json:"verifyCommand"`
	// WorkInPlace: no worktree; the task works in the repository's own
	// checkout, one such task per repository at a time.
	WorkInPlace bool `json:"workInPlace"`
	// Critic is auto (default: review a risky change), on or off.
	Critic string `json:"critic"`
	// Secrets names the vault secrets the task receives (names only).
	Secrets []string `json:"secrets"`
	// AssigneeAgentID names the agent meant to work it (its runtime comes
	// with it); the team must be a real team.
	AssigneeAgentID string `json:"assigneeAgentId"`
	// BaseBranch is the local branch the work goes back into ("" = the
	// one checked out when its worktree is made); MergeWhenGreen merges it
	// once its verify passed (branches.go, supervisor/landing.go).
	BaseBranch     string `json:"baseBranch"`
	MergeWhenGreen bool   `json:"mergeWhenGreen"`
}

func (a *API) createTask(w http.ResponseWriter, r *http.Request) {
	var b createTaskBody
	if !decodeJSON(w, r, &b) {
		return
	}
	if !a.checkRepo(w, r, b.RepoPath) {
		return
	}
	if b.TeamID != "" && a.opts.Teams != nil {
		if ok, err := a.opts.Teams.Exists(r.Context(), b.TeamID); err != nil || !ok {
			writeError(w, http.StatusBadRequest, "unknown team '%s': create it first (POST /api/teams)", truncate(b.TeamID, 64))
			return
		}
	}
	n := board.NewTask{
		Title: b.Title, Description: b.Description, Status: board.Status(b.Status), Priority: b.Priority, TeamID: b.TeamID,
		ParentID: b.ParentTaskID, RepoPath: b.RepoPath, BaseRef: b.BaseRef, Kind: board.Kind(b.Kind), VerifyCommand: b.VerifyCommand,
		WorkInPlace: b.WorkInPlace, Critic: b.Critic, Secrets: b.Secrets, BaseBranch: b.BaseBranch, MergeWhenGreen: b.MergeWhenGreen,
	}
	if !a.checkBaseBranch(w, r, a.newTaskRepo(r.Context(), b.RepoPath, b.ParentTaskID, b.TeamID), b.BaseBranch) {
		return
	}
	if !a.checkTaskSecrets(w, b.Secrets) {
		return
	}
	if b.AssigneeAgentID != "" && a.opts.Agents != nil {
		ag, err := a.opts.Agents.Get(r.Context(), b.AssigneeAgentID)
		if err != nil {
			writeError(w, http.StatusBadRequest, "unknown assignee agent '%s'", truncate(b.AssigneeAgentID, 64))
			return
		}
		n.AssigneeAgentID, n.AssigneeRuntime = ag.ID, ag.Runtime
	}
	t, err := a.opts.Board.Create(r.Context(), n)
	if err != nil {
		boardError(w, err)
		return
	}
	a.verifyCommandSet(r, t, "")
	writeJSON(w, http.StatusCreated, map[string]any{"task": t})
}

// listTasks answers one page of the board: {tasks, nextCursor, counts}.
// limit (default 500, at most 2000) and cursor (a previous nextCursor) page
// it; counts are per status over the whole filter, so a column can say how
// many it holds beyond the page. order=recent lists newest change first
// (finished work); q searches titles (or names an id).
func (a *API) listTasks(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := board.Filter{
		TeamID: q.Get("teamId"), ParentID: q.Get("parentId"), Ready: q.Get("ready") == "true",
		AgentID: q.Get("agentId"), Runtime: q.Get("runtime"), Query: truncate(q.Get("q"), 200), Cursor: q.Get("cursor"),
	}
	for _, s := range strings.Split(q.Get("status"), ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !board.Status(s).Valid() {
			writeError(w, http.StatusBadRequest, "unknown status %q", s)
			return
		}
		f.Statuses = append(f.Statuses, board.Status(s))
	}
	switch q.Get("order") {
	case "", "priority":
	case "recent":
		f.Recent = true
	default:
		writeError(w, http.StatusBadRequest, "unknown order %q (priority or recent)", truncate(q.Get("order"), 32))
		return
	}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > board.MaxPage {
			writeError(w, http.StatusBadRequest, "limit must be 1 to %d", board.MaxPage)
			return
		}
		f.Limit = n
	}
	page, err := a.opts.Board.Page(r.Context(), f)
	if err != nil {
		boardError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, page)
}

func (a *API) getTask(w http.ResponseWriter, r *http.Request) {
	ctx, id := r.Context(), r.PathValue("id")
	t, err := a.opts.Board.Get(ctx, id)
	if err != nil {
		boardError(w, err)
		return
	}
	comments, err := a.opts.Board.Comments(ctx, id)
	if err != nil {
		boardError(w, err)
		return
	}
	// The task's own runs and its critic's reviews, each with its role.
	runs, err := a.opts.Store.TaskRunsWithReviews(ctx, id, 50)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	for i := range runs {
		if live, ok := a.opts.Supervisor.Live(runs[i].ID); ok {
			runs[i].Run = live
		}
	}
	var wt *board.Worktree
	if rec, err := a.opts.Board.Worktree(ctx, id); err == nil {
		wt = &rec
	}
	children, err := a.opts.Board.List(ctx, board.Filter{ParentID: id})
	if err != nil {
		boardError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"task": t, "comments": comments, "runs": runs, "worktree": wt,
		"children": children, "moves": board.Moves(t.Status),
	})
}

type patchTaskBody struct {
	Title         *string         `json:"title"`
	Description   *string         `json:"description"`
	Priority      *int            `json:"priority"`
	Status        *string         `json:"status"`
	RepoPath      *string         `json:"repoPath"`
	VerifyCommand *string         `json:"verifyCommand"`
	WorkInPlace   *bool           `json:"workInPlace"`
	Critic        *string         `json:"critic"`
	Secrets       *[]string       `json:"secrets"`
	HumanOverride *board.Override `json:"humanOverride"`
	// BaseBranch ("" clears it) and MergeWhenGreen: see createTaskBody.
	BaseBranch     *string `json:"baseBranch"`
	MergeWhenGreen *bool   `json:"mergeWhenGreen"`
}

func (a *API) patchTask(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var b patchTaskBody
	if !decodeJSON(w, r, &b) {
		return
	}
	p := board.Patch{
		Title: b.Title, Description: b.Description, Priority: b.Priority, RepoPath: b.RepoPath,
		VerifyCommand: b.VerifyCommand, WorkInPlace: b.WorkInPlace, Critic: b.Critic, Secrets: b.Secrets, Override: b.HumanOverride,
		BaseBranch: b.BaseBranch, MergeWhenGreen: b.MergeWhenGreen,
	}
	if b.Secrets != nil && !a.checkTaskSecrets(w, *b.Secrets) {
		return
	}
	if b.RepoPath != nil && !a.checkRepo(w, r, *b.RepoPath) {
		return
	}
	if b.Status != nil {
		s := board.Status(*b.Status)
		p.Status = &s
	}
	before, err := a.opts.Board.Get(r.Context(), id)
	if err != nil {
		boardError(w, err)
		return
	}
	if b.BaseBranch != nil && !a.checkBaseBranch(w, r, a.taskRepo(r.Context(), before), *b.BaseBranch) {
		return
	}
	t, err := a.opts.Board.Update(r.Context(), id, p)
	if err != nil {
		boardError(w, err)
		return
	}
	if b.VerifyCommand != nil {
		a.verifyCommandSet(r, t, deref(before.VerifyCommand))
	}
	// Cancelling a task stops the run working on it.
	if t.Status == board.Cancelled && before.RunID != nil {
		_ = a.opts.Supervisor.Abort(r.Context(), *before.RunID)
	}
	writeJSON(w, http.StatusOK, map[string]any{"task": t})
}

type claimBody struct {
	AssigneeAgentID string `json:"assigneeAgentId"`
	AssigneeRuntime string `json:"assigneeRuntime"`
}

func (a *API) claimTask(w http.ResponseWriter, r *http.Request) {
	var b claimBody
	if !decodeJSON(w, r, &b) {
		return
	}
	if b.AssigneeAgentID != "" && !agentIDPattern().MatchString(b.AssigneeAgentID) {
		writeError(w, http.StatusBadRequest, "invalid assigneeAgentId")
		return
	}
	t, err := a.opts.Board.Claim(r.Context(), r.PathValue("id"), board.ClaimSpec{AgentID: b.AssigneeAgentID, Runtime: b.AssigneeRuntime})
	if err != nil {
		boardError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"task": t})
}

type commentBody struct {
	Body       string `json:"body"`
	AuthorType string `json:"authorType"`
	AuthorID   string `json:"authorId"`
}

func (a *API) addComment(w http.ResponseWriter, r *http.Request) {
	var b commentBody
	if !decodeJSON(w, r, &b) {
		return
	}
	c, err := a.opts.Board.AddComment(r.Context(), r.PathValue("id"), board.NewComment{AuthorType: b.AuthorType, AuthorID: b.AuthorID, Body: b.Body})
	if err != nil {
		boardError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"comment": c})
}

func (a *API) addDep(w http.ResponseWriter, r *http.Request) {
	var b struct {
		DependsOnTaskID string `json:"dependsOnTaskId"`
	}
	if !decodeJSON(w, r, &b) {
		return
	}
	if b.DependsOnTaskID == "" {
		writeError(w, http.StatusBadRequest, "dependsOnTaskId is required")
		return
	}
	t, err := a.opts.Board.Link(r.Context(), r.PathValue("id"), b.DependsOnTaskID)
	if err != nil {
		boardError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"task": t})
}

func (a *API) removeDep(w http.ResponseWriter, r *http.Request) {
	t, err := a.opts.Board.Unlink(r.Context(), r.PathValue("id"), r.PathValue("dep"))
	if err != nil {
		boardError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"task": t})
}

// taskDiff shows what a task changed against its base, from its worktree
// (or its branch, once paused or reviewed).
func (a *API) taskDiff(w http.ResponseWriter, r *http.Request) {
	ctx, id := r.Context(), r.PathValue("id")
	rec, err := a.opts.Board.Worktree(ctx, id)
	if errors.Is(err, board.ErrNotFound) {
		writeError(w, http.StatusNotFound, "task '%s' has no worktree", id)
		return
	}
	if err != nil || a.opts.Worktrees == nil {
		writeError(w, http.StatusInternalServerError, "worktrees are not available: %v", err)
		return
	}
	if rec.Status == "archived" {
		// The worktree and its branch are gone: a run that changed nothing
		// (the supervisor removes both) or a merge. Nothing is left to diff.
		merged := a.mergedTask(ctx, id)
		writeJSON(w, http.StatusOK, map[string]any{
			"taskId": id, "branch": "", "baseCommit": rec.BaseCommit,
			"changed": false, "files": 0, "insertions": 0, "deletions": 0, "diff": "", "paths": []string{},
			"removed": true, "merged": merged,
		})
		return
	}
	out, err := a.opts.Worktrees.Diff(ctx, toWorktree(rec))
	if err != nil {
		writeError(w, http.StatusConflict, "cannot read the diff: %v", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"taskId": id, "branch": rec.Branch, "baseCommit": rec.BaseCommit,
		"changed": out.Changed, "files": out.Files, "insertions": out.Insertions, "deletions": out.Deletions, "diff": out.Diff,
		"paths": worktree.DiffPaths(out.Diff),
	})
}

// mergedTask reports a task whose branch was merged from the drawer (the
// merge leaves a system comment saying so, see merge.go).
func (a *API) mergedTask(ctx context.Context, id string) bool {
	cs, err := a.opts.Board.Comments(ctx, id)
	if err != nil {
		return false
	}
	for _, c := range cs {
		if c.AuthorType == "system" && strings.HasPrefix(c.Body, mergedNote) {
			return true
		}
	}
	return false
}

func toWorktree(rec board.Worktree) worktree.Worktree {
	return worktree.Worktree{
		TaskID: rec.TaskID, RepoPath: rec.RepoPath, RepoHash: worktree.RepoHash(rec.RepoPath),
		Path: rec.Path, Branch: rec.Branch, BaseCommit: rec.BaseCommit,
	}
}

// verifyCommandSet says in the log what a task's new verify command is: a
// command that runs as this user in the task's worktree after every run.
func (a *API) verifyCommandSet(r *http.Request, t board.Task, was string) {
	if cmd := deref(t.VerifyCommand); cmd != "" && cmd != was {
		a.opts.Log.Warn("a command was set to run as you after every run of task \""+t.Title+"\" (its verify command)",
			"task", t.ID, "command", redact.Secrets(cmd), "via", answeredBy(r))
	}
}
