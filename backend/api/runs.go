package api

import (
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"sync"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
)

// Compiled on first use: a counted repetition compiles to a state per
// count, which cost start-up time as a package-level var.
var agentIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`) })

type startRunBody struct {
	Message *string `json:"message"`
	Context string  `json:"context"`
	AgentID string  `json:"agentId"`
	Wait    *bool   `json:"wait"`
	// A board task run (the task runner).
	TaskID          string `json:"taskId"`
	AssigneeAgentID string `json:"assigneeAgentId"`
	RepoPath        string `json:"repoPath"`
	Kind            string `json:"kind"`
	Model           string `json:"model"`
	// Env is the environment a desktop sends its host's server with a
	// run: the runtime's keys and the task's secrets, for that run's child
	// only (refused by any other server).
	Env map[string]string `json:"env"`
	// MCP is the desktop's MCP attachment for the run, reached on this
	// host through the socket the desktop's ssh forwards (only a host's
	// server takes it).
	MCP *executor.CarriedMCP `json:"mcp"`
}

// runResult is the answer to a waited run.
type runResult struct {
	OK         bool     `json:"ok"`
	RunID      string   `json:"runId"`
	RuntimeID  string   `json:"runtimeId"`
	DoneReason *string  `json:"doneReason"`
	Status     string   `json:"status"`
	Summary    string   `json:"summary"`
	Error      string   `json:"error,omitempty"`
	CostUSD    *float64 `json:"costUsd"`
	CostKind   *string  `json:"costKind"`
	// A task run also says where the task ended up.
	Task         *board.Task `json:"task,omitempty"`
	UsedWorktree bool        `json:"usedWorktree,omitempty"`
	// SuccessorRunID continues the task in a fresh session after this run
	// reached its turn limit.
	SuccessorRunID string `json:"successorRunId,omitempty"`
	// RoutedFrom is the runtime first asked when the quota governor routed
	// the task to a fallback runtime, and Why says why.
	RoutedFrom string `json:"routedFrom,omitempty"`
	Why        string `json:"why,omitempty"`
}

func (a *API) startRun(w http.ResponseWriter, r *http.Request) {
	rt := executor.ID(r.PathValue("id"))
	var body startRunBody
	if !decodeJSON(w, r, &body) {
		return
	}
	if body.AgentID == "" {
		body.AgentID = body.AssigneeAgentID
	}
	if body.TaskID == "" && (body.Message == nil || *body.Message == "") {
		writeError(w, http.StatusBadRequest, "message (or taskId) is required")
		return
	}
	if body.Kind != "" && !board.Kind(body.Kind).Valid() {
		writeError(w, http.StatusBadRequest, "kind must be code, research or review")
		return
	}
	if body.Message == nil {
		empty := ""
		body.Message = &empty
	}
	if !a.checkRunEnv(w, body.Env) || !a.checkRunMCP(w, body.MCP) {
		return
	}
	if body.AgentID != "" {
		if !agentIDPattern().MatchString(body.AgentID) {
			writeError(w, http.StatusBadRequest, "invalid agentId: use letters, digits, '_' and '-'")
			return
		}
		ok, err := a.opts.Store.AgentExists(r.Context(), body.AgentID)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "%v", err)
			return
		}
		if !ok {
			writeError(w, http.StatusNotFound, "unknown agent '%s'", body.AgentID)
			return
		}
	}
	h, err := a.opts.Supervisor.Start(r.Context(), supervisor.StartParams{
		RuntimeID: rt, Message: *body.Message, Context: body.Context, AgentID: body.AgentID,
		TaskID: body.TaskID, RepoPath: body.RepoPath, Kind: body.Kind, Model: body.Model, Env: body.Env,
		MCP: body.MCP,
	})
	_, listed := a.opts.Catalog.Descriptor(rt)
	if startFailed(w, rt, listed, err) {
		return
	}
	from, why := h.RoutedFrom()
	if body.Wait != nil && !*body.Wait {
		ans := map[string]string{"runId": h.ID}
		if from != "" {
			ans["runtime"], ans["routedFrom"], ans["why"] = string(h.Runtime()), string(from), why
		}
		writeJSON(w, http.StatusAccepted, ans)
		return
	}
	// The run does not depend on this request: if the caller leaves, only
	// the wait ends.
	run, err := h.Wait(r.Context())
	if errors.Is(err, supervisor.ErrNotSaved) {
		// Ended, but not durable: never answer a result the ledger lacks.
		notSaved(w, run.ID, err)
		return
	}
	if err != nil {
		return
	}
	res := runResult{
		OK: run.Status == store.RunSucceeded, RunID: run.ID, RuntimeID: run.RuntimeID, DoneReason: run.DoneReason,
		Status: run.Status, Summary: run.Summary, Error: run.Error, CostUSD: run.CostUSD, CostKind: run.CostKind,
		Task: h.Task(), SuccessorRunID: h.Successor(), RoutedFrom: string(from), Why: why,
	}
	if res.Task != nil && a.opts.Board != nil {
		_, err := a.opts.Board.Worktree(r.Context(), res.Task.ID)
		res.UsedWorktree = err == nil
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) listRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, ok := pageLimit(w, q)
	if !ok {
		return
	}
	before := q.Get("before")
	var runs []store.Run
	var err error
	key := q.Get("sessionKey")
	if key != "" {
		// One conversation's turns: an agent's chat is "agent:<id>:chat".
		runs, err = a.opts.Store.SessionRuns(r.Context(), key, before, limit+1)
		if err == nil && before == "" {
			runs = withLive(runs, a.opts.Supervisor.LiveInSession(key))
		}
	} else {
		runs, err = a.opts.Store.ListRuns(r.Context(), before, limit+1)
		if err == nil && before == "" {
			// A run just started may have no row yet (it is written with
			// its first events); the newest page shows it all the same.
			runs = withLive(runs, a.opts.Supervisor.LiveRuns())
		}
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	var next *string
	if len(runs) > limit {
		runs = runs[:limit]
		c := runs[limit-1].ID
		next = &c
	}
	for i := range runs {
		if live, ok := a.opts.Supervisor.Live(runs[i].ID); ok {
			runs[i] = live
		}
		if key == "" {
			// The general list stays light: a run's whole message is read
			// with the run (GET /api/runs/{id}) or its conversation.
			runs[i].Prompt = ""
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": a.answerRuns(r.Context(), runs), "nextCursor": next})
}

// lookupRun prefers the live view (the ledger trails it by a commit).
func (a *API) lookupRun(r *http.Request, id string) (store.Run, error) {
	if live, ok := a.opts.Supervisor.Live(id); ok {
		return live, nil
	}
	return a.opts.Store.GetRun(r.Context(), id)
}

func (a *API) getRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	run, err := a.lookupRun(r, id)
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, "unknown run '%s'", id)
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, a.answerRun(r.Context(), run))
}

func (a *API) abortRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	err := a.opts.Supervisor.Abort(r.Context(), id)
	switch {
	case errors.Is(err, supervisor.ErrUnknownRun):
		writeError(w, http.StatusNotFound, "unknown run '%s'", id)
	case errors.Is(err, supervisor.ErrRunFinished):
		writeError(w, http.StatusConflict, "run '%s' already finished", id)
	case err != nil:
		writeError(w, http.StatusInternalServerError, "%v", err)
	default:
		writeJSON(w, http.StatusAccepted, map[string]any{"ok": true, "runId": id})
	}
}

// startFailed answers a run that did not start and reports whether it did
// so: a refusal is {ok:false, reason, error} (409 conflict, 404 not_found,
// 422 the rest); a runtime without an adapter here is 501 when the catalog
// knows of it (known), else 404; shutting down is 503.
func startFailed(w http.ResponseWriter, rt executor.ID, known bool, err error) bool {
	var refusal *supervisor.Refusal
	switch {
	case err == nil:
		return false
	case errors.As(err, &refusal):
		status := http.StatusUnprocessableEntity
		switch refusal.Reason {
		case "conflict":
			status = http.StatusConflict
		case "not_found":
			status = http.StatusNotFound
		}
		writeJSON(w, status, refusalBody(refusal))
	case errors.Is(err, supervisor.ErrUnknownRuntime):
		if known {
			writeError(w, http.StatusNotImplemented, "runtime '%s' cannot run tasks in this version of Clawboo yet", rt)
		} else {
			writeError(w, http.StatusNotFound, "unknown runtime '%s'", rt)
		}
	case errors.Is(err, supervisor.ErrClosed):
		writeError(w, http.StatusServiceUnavailable, "%v", err)
	case store.IsDiskFull(err):
		writeError(w, http.StatusInsufficientStorage, "the disk is full: the run could not be recorded; free some disk space")
	default:
		writeError(w, http.StatusInternalServerError, "%v", err)
	}
	return true
}

// refusalBody is a refusal as JSON: {ok:false, reason, error}, and for
// work the quota governor deferred, deferred {id, until}.
func refusalBody(r *supervisor.Refusal) map[string]any {
	body := map[string]any{"ok": false, "reason": r.Reason, "error": r.Msg}
	if r.DeferralID != "" {
		body["deferred"] = map[string]any{"id": r.DeferralID, "until": r.Until}
	}
	return body
}

// notSaved answers a run whose result could not be made durable: 507 when
// the disk is full, else 500, with the run's id so the caller can look
// again once the resaver has written it.
func notSaved(w http.ResponseWriter, id string, err error) {
	if store.IsDiskFull(err) {
		writeJSON(w, http.StatusInsufficientStorage, map[string]any{
			"ok": false, "runId": id, "reason": "disk_full",
			"error": "the disk is full: the run ended but its result could not be saved; free some disk space",
		})
		return
	}
	writeJSON(w, http.StatusInternalServerError, map[string]any{"ok": false, "runId": id, "error": err.Error()})
}

// withLive adds the live runs a first page from the ledger does not show
// yet (their rows trail the start by a commit), newest first.
func withLive(runs, live []store.Run) []store.Run {
	have := make(map[string]bool, len(runs))
	for _, r := range runs {
		have[r.ID] = true
	}
	for _, l := range live {
		if !have[l.ID] {
			runs = append(runs, l)
		}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].ID > runs[j].ID })
	return runs
}

// pageLimit reads a listing's ?limit= (1–200, default 50); a bad one is
// answered 400 and reported false.
func pageLimit(w http.ResponseWriter, q url.Values) (int, bool) {
	v := q.Get("limit")
	if v == "" {
		return 50, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 200 {
		writeError(w, http.StatusBadRequest, "limit must be a number from 1 to 200")
		return 0, false
	}
	return n, true
}
