package api

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/worktree"
)

// lineCommentRoutes serves review comments on a task's diff and sending
// them back to the agent.
func (a *API) lineCommentRoutes() {
	a.mux.Handle("/api/board/{id}/line-comments", methods{"GET": a.listLineComments, "POST": a.addLineComment})
	a.mux.Handle("/api/board/{id}/line-comments/{cid}", methods{"DELETE": a.deleteLineComment})
	a.mux.Handle("/api/board/{id}/send-back", methods{"POST": a.sendBack})
}

func (a *API) listLineComments(w http.ResponseWriter, r *http.Request) {
	ctx, id := r.Context(), r.PathValue("id")
	if _, err := a.opts.Board.Get(ctx, id); err != nil {
		boardError(w, err)
		return
	}
	cs, err := a.opts.Board.LineComments(ctx, id)
	if err != nil {
		boardError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"taskId": id, "comments": cs, "unsent": len(board.Unsent(cs))})
}

type lineCommentBody struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Side string `json:"side"`
	Body string `json:"body"`
}

// diffPaths reads the files of the task's diff now: the only paths a line
// comment may name. ok is false when it has answered (no task, no diff).
func (a *API) diffPaths(w http.ResponseWriter, r *http.Request, id string) ([]string, bool) {
	ctx := r.Context()
	if _, err := a.opts.Board.Get(ctx, id); err != nil {
		boardError(w, err)
		return nil, false
	}
	rec, err := a.opts.Board.Worktree(ctx, id)
	if errors.Is(err, board.ErrNotFound) {
		writeJSON(w, http.StatusConflict, map[string]any{"error": "the task has no diff to comment on yet", "reason": "no_diff"})
		return nil, false
	}
	if err != nil || a.opts.Worktrees == nil {
		writeError(w, http.StatusInternalServerError, "worktrees are not available: %v", err)
		return nil, false
	}
	out, err := a.opts.Worktrees.Diff(ctx, toWorktree(rec))
	if err != nil {
		writeError(w, http.StatusConflict, "cannot read the diff: %v", err)
		return nil, false
	}
	return worktree.DiffPaths(out.Diff), true
}

func (a *API) addLineComment(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var b lineCommentBody
	if !decodeJSON(w, r, &b) {
		return
	}
	// Cheap checks first: a bad request does not cost a diff.
	if b.Line <= 0 {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "line must be a line number from 1", "reason": "invalid"})
		return
	}
	if len(b.Body) > board.MaxLineCommentBody {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "body is longer than 8 KiB", "reason": "invalid"})
		return
	}
	paths, ok := a.diffPaths(w, r, id)
	if !ok {
		return
	}
	if b.Path == "" || !slices.Contains(paths, b.Path) {
		writeJSON(w, http.StatusBadRequest, map[string]any{
			"reason": "path_not_in_diff",
			"error":  "path '" + truncate(b.Path, 200) + "' is not a file of the task's diff",
		})
		return
	}
	c, err := a.opts.Board.AddLineComment(r.Context(), id, board.NewLineComment{Path: b.Path, Line: b.Line, Side: b.Side, Body: b.Body})
	if err != nil {
		boardError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"comment": c})
}

func (a *API) deleteLineComment(w http.ResponseWriter, r *http.Request) {
	if err := a.opts.Board.DeleteLineComment(r.Context(), r.PathValue("id"), r.PathValue("cid")); err != nil {
		boardError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

// sendBack starts a run of the task on the same worktree and session
// ("task:<id>") with the person's general request (message, optional) and
// its unsent line comments as the run's message, and marks the comments
// sent with that run. One of the two must be there. The task goes back to
// work through todo (the board's only door to a claim); the runtime and
// agent are the task's last.
func (a *API) sendBack(w http.ResponseWriter, r *http.Request) {
	ctx, id := r.Context(), r.PathValue("id")
	var b struct {
		RuntimeID string `json:"runtimeId"`
		Message   string `json:"message"`
	}
	if r.ContentLength != 0 && !decodeJSON(w, r, &b) {
		return
	}
	request := strings.TrimSpace(b.Message)
	if len(request) > board.MaxLineCommentBody {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "message is longer than 8 KiB", "reason": "invalid"})
		return
	}
	t, err := a.opts.Board.Get(ctx, id)
	if err != nil {
		boardError(w, err)
		return
	}
	if _, err := a.opts.Board.Worktree(ctx, id); errors.Is(err, board.ErrNotFound) {
		writeJSON(w, http.StatusConflict, map[string]any{"error": "the task has no worktree to send work back to", "reason": "no_diff"})
		return
	}
	if t.Status.Terminal() {
		writeJSON(w, http.StatusConflict, map[string]any{"reason": "illegal_transition", "error": "the task is " + string(t.Status) + ": a finished task is not sent back"})
		return
	}
	cs, err := a.opts.Board.LineComments(ctx, id)
	if err != nil {
		boardError(w, err)
		return
	}
	unsent := board.Unsent(cs)
	if len(unsent) == 0 && request == "" {
		writeJSON(w, http.StatusConflict, map[string]any{"error": "there is nothing to send: write what to change, or comment on a line", "reason": "nothing_to_send"})
		return
	}
	if why := busyFor(t); why != "" {
		writeJSON(w, http.StatusConflict, map[string]any{"reason": "conflict", "error": why})
		return
	}
	rt, ok := a.sendBackRuntime(w, r, t, b.RuntimeID)
	if !ok {
		return
	}
	agent := ""
	if t.AssigneeAgentID != nil {
		agent = *t.AssigneeAgentID
	}
	if t.Status != board.Todo {
		todo := board.Todo
		if _, err := a.opts.Board.Update(ctx, id, board.Patch{Status: &todo}); err != nil {
			boardError(w, err)
			return
		}
	}
	h, err := a.opts.Supervisor.Start(ctx, supervisor.StartParams{
		RuntimeID: rt, TaskID: id, AgentID: agent,
		Message: sendBackMessage(request, unsent), Reason: "review",
	})
	_, listed := a.opts.Catalog.Descriptor(rt)
	if startFailed(w, rt, listed, err) {
		return
	}
	n := 0
	if len(unsent) > 0 {
		ids := make([]string, len(unsent))
		for i, c := range unsent {
			ids[i] = c.ID
		}
		n, err = a.opts.Board.MarkLineCommentsSent(ctx, id, h.ID, ids)
		if err != nil {
			a.opts.Log.Error("line comments not marked sent", "task", id, "run", h.ID, "err", err)
		}
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"runId": h.ID, "sent": n})
}

// sendBackMessage is a send-back run's message: the person's general
// request first, then the line comments, each part only when there is one.
func sendBackMessage(request string, unsent []board.LineComment) string {
	var parts []string
	if request != "" {
		parts = append(parts, "Requested changes:\n"+request)
	}
	if len(unsent) > 0 {
		parts = append(parts, board.ReviewMessage(unsent))
	}
	return strings.Join(parts, "\n\n")
}

// sendBackRuntime is the runtime asked for, else the task's assignee's,
// else its last run's.
func (a *API) sendBackRuntime(w http.ResponseWriter, r *http.Request, t board.Task, asked string) (executor.ID, bool) {
	if asked != "" {
		return executor.ID(asked), true
	}
	if t.AssigneeRuntime != nil && *t.AssigneeRuntime != "" {
		return executor.ID(*t.AssigneeRuntime), true
	}
	runs, err := a.opts.Store.TaskRuns(r.Context(), t.ID, 1)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return "", false
	}
	if len(runs) == 0 {
		writeJSON(w, http.StatusConflict, map[string]any{
			"reason": "no_runtime",
			"error":  "no runtime has worked on this task: say which with runtimeId",
		})
		return "", false
	}
	return executor.ID(runs[0].RuntimeID), true
}

// busyFor says why a task cannot be sent back now ("" when it can): a run
// works on it, or it was claimed by hand (an agent over MCP, a person),
// which is not ours to take.
func busyFor(t board.Task) string {
	if t.RunID != nil {
		return "the task is being worked on by run " + *t.RunID + "; wait for it to finish"
	}
	if t.Status == board.InProgress {
		return "the task is in progress; move it to review or to do first"
	}
	return ""
}
