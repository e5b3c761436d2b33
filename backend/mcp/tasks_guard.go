package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"

	"github.com/mark3labs/mcp-go/mcp"
)

// The Tasks server's checks: argument validation, team visibility, the
// acting agent, and the answers to board refusals.

// firstProblem answers the first non-empty problem as invalid args (nil
// when there is none).
func firstProblem(problems ...string) *mcp.CallToolResult {
	for _, p := range problems {
		if p != "" {
			return toolcall.InvalidArgs("%s", p)
		}
	}
	return nil
}

// checkID accepts ids of letters, digits, '_', '-', '.' and ':' up to 128
// bytes (every board, team, agent and runtime id fits).
func checkID(field, v string, required bool) string {
	switch {
	case v == "" && required:
		return field + " is required"
	case !toolcall.ValidID(v):
		return field + " must be an id of at most 128 letters, digits, '_', '-', '.' or ':'"
	}
	return ""
}

func checkText(title, desc string) string {
	title = strings.TrimSpace(title)
	switch {
	case title == "":
		return "title is required"
	case utf8.RuneCountInString(title) > maxTitle:
		return fmt.Sprintf("title is longer than %d characters", maxTitle)
	case utf8.RuneCountInString(desc) > maxText:
		return fmt.Sprintf("description is longer than %d characters", maxText)
	}
	return ""
}

func checkBody(body string) string {
	body = strings.TrimSpace(body)
	switch {
	case body == "":
		return "body is required"
	case utf8.RuneCountInString(body) > maxText:
		return fmt.Sprintf("body is longer than %d characters", maxText)
	}
	return ""
}

func knownStatus(s string) bool { return slices.Contains(TaskStatuses, s) }

// canSee reports whether a caller may see a task: a team-bound caller sees
// only its team's tasks (not those of no team).
func canSee(c Caller, t TaskRecord) bool { return c.TeamID == "" || t.TeamID == c.TeamID }

// visible reads a task the caller may see; a task of another team answers
// exactly as a missing one does.
func (ts *tasksServer) visible(ctx context.Context, c Caller, id string) (TaskRecord, *mcp.CallToolResult) {
	t, err := ts.board.Get(ctx, id)
	if err != nil {
		return TaskRecord{}, ts.refusal("read", id, err)
	}
	if !canSee(c, t) {
		return TaskRecord{}, notFound(id)
	}
	return t, nil
}

func notFound(id string) *mcp.CallToolResult {
	return toolcall.Denied(CodeNotFound, "task not found: "+id, "list_tasks shows the tasks this session can see")
}

func parentNotFound(id string) *mcp.CallToolResult {
	return toolcall.Denied("parent_not_found", "create failed: parent task not found: "+id,
		"check parentTaskId with list_tasks, or omit it to create a root task")
}

func foreignTeam(c Caller, team string) *mcp.CallToolResult {
	return toolcall.Denied("foreign_team", fmt.Sprintf("this session is bound to team '%s' and cannot act on team '%s'", c.TeamID, team),
		"omit teamId: this session always works in its own team")
}

// actingAgent is the agent a call acts as: the bound agent, whatever the
// arguments say (naming another is refused as spoofing), or the argument
// when the session is not bound to an agent.
func actingAgent(c Caller, field, arg string) (string, *mcp.CallToolResult) {
	if c.AgentID == "" {
		return arg, nil
	}
	if arg != "" && arg != c.AgentID {
		return "", spoofed(fmt.Sprintf("%s '%s' is not this session's agent ('%s')", field, arg, c.AgentID), field)
	}
	return c.AgentID, nil
}

func spoofed(msg, field string) *mcp.CallToolResult {
	return toolcall.Denied("identity_mismatch", "refused: "+msg+"; a session acts only as the agent it is bound to",
		"omit "+field+": the session's own agent is used")
}

// refusal answers a board error for op on task id: a missing task is "task
// not found", bad input is invalid args, another refusal keeps its code, and
// anything else is an internal failure (logged).
func (ts *tasksServer) refusal(op, id string, err error) *mcp.CallToolResult {
	var be *BoardError
	if !errors.As(err, &be) {
		ts.h.opts.Log.Error("tasks: board failure", "op", op, "task", id, "err", err)
		return toolcall.Error(op + " failed: internal error: " + err.Error())
	}
	switch be.Code {
	case CodeNotFound:
		if id == "" {
			return toolcall.Denied(CodeNotFound, op+" failed: "+be.Msg, "")
		}
		return notFound(id)
	case "invalid":
		return toolcall.InvalidArgs("%s", be.Msg)
	}
	return toolcall.Denied(be.Code, op+" failed: "+be.Msg, be.Hint)
}

// createRefusal maps the board's tree caps to the denials agents recover
// from.
func (ts *tasksServer) createRefusal(parentID string, err error) *mcp.CallToolResult {
	var be *BoardError
	if errors.As(err, &be) {
		switch be.Code {
		case "too_many_children":
			return toolcall.Denied("child_cap", "create failed: "+be.Msg,
				"finish or cancel some of the parent's subtasks first, or put the new task under another parent")
		case "too_deep":
			return toolcall.Denied("depth_cap", "create failed: "+be.Msg,
				"attach it to the parent's parent instead, or fold the work into the parent's description")
		case CodeNotFound:
			if parentID != "" {
				return parentNotFound(parentID)
			}
		}
	}
	return ts.refusal("create", "", err)
}

// rootKey is whose root-create budget a caller spends: its team's, else its
// agent's. Unbound callers share one budget: nothing verified tells them
// apart.
func rootKey(c Caller) string {
	switch {
	case c.TeamID != "":
		return "team:" + c.TeamID
	case c.AgentID != "":
		return "agent:" + c.AgentID
	}
	return "unbound"
}

// rateWindow allows at most max events per key in any rolling window.
type rateWindow struct {
	mu     sync.Mutex
	max    int
	window time.Duration
	hits   map[string][]time.Time
}

func newRateWindow(max int, window time.Duration) *rateWindow {
	return &rateWindow{max: max, window: window, hits: map[string][]time.Time{}}
}

// take records an event at now when the key has room; otherwise it
// reports how long until the oldest event leaves the window.
func (w *rateWindow) take(key string, now time.Time) (bool, time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.hits) > 4096 { // forget idle keys now and then
		for k := range w.hits {
			w.prune(k, now)
		}
	}
	hs := w.prune(key, now)
	if len(hs) >= w.max {
		return false, hs[0].Add(w.window).Sub(now)
	}
	w.hits[key] = append(hs, now)
	return true, 0
}

// undo forgets an event take recorded (the create it allowed failed).
func (w *rateWindow) undo(key string, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	hs := w.hits[key]
	for i := len(hs) - 1; i >= 0; i-- {
		if hs[i].Equal(at) {
			w.hits[key] = slices.Delete(hs, i, i+1)
			return
		}
	}
}

// prune drops the key's events older than the window and returns the rest.
func (w *rateWindow) prune(key string, now time.Time) []time.Time {
	hs := w.hits[key]
	i := 0
	for i < len(hs) && !hs[i].After(now.Add(-w.window)) {
		i++
	}
	hs = hs[i:]
	if len(hs) == 0 {
		delete(w.hits, key)
		return nil
	}
	w.hits[key] = hs
	return hs
}
