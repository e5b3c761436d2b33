package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"

	"github.com/mark3labs/mcp-go/mcp"
)

// Tool arguments. Field names are the wire names; unknown fields are
// refused by handler.
type (
	listArgs struct {
		TeamID string `json:"teamId"`
		Status string `json:"status"`
		Ready  bool   `json:"ready"`
		Limit  int    `json:"limit"`
		Cursor string `json:"cursor"`
	}
	taskArgs struct {
		TaskID string `json:"taskId"`
	}
	createArgs struct {
		Title           string `json:"title"`
		Description     string `json:"description"`
		Status          string `json:"status"`
		Priority        int    `json:"priority"`
		TeamID          string `json:"teamId"`
		ParentTaskID    string `json:"parentTaskId"`
		AssigneeRuntime string `json:"assigneeRuntime"`
	}
	subtaskArgs struct {
		ParentTaskID string `json:"parentTaskId"`
		Title        string `json:"title"`
		Description  string `json:"description"`
	}
	claimArgs struct {
		TaskID          string `json:"taskId"`
		AssigneeAgentID string `json:"assigneeAgentId"`
		AssigneeRuntime string `json:"assigneeRuntime"`
	}
	statusArgs struct {
		TaskID string `json:"taskId"`
		Status string `json:"status"`
	}
	commentArgs struct {
		TaskID        string `json:"taskId"`
		Body          string `json:"body"`
		AuthorAgentID string `json:"authorAgentId"`
		AuthorType    string `json:"authorType"`
	}
	linkArgs struct {
		TaskID          string `json:"taskId"`
		DependsOnTaskID string `json:"dependsOnTaskId"`
	}
)

// listTasks lists tasks, most urgent first. A team-bound session always
// lists its own team: a teamId naming another team is refused (foreign_team)
// rather than silently replaced, so an agent never mistakes its team's tasks
// for another's.
func (ts *tasksServer) listTasks(ctx context.Context, c Caller, a listArgs) *mcp.CallToolResult {
	if bad := firstProblem(checkID("teamId", a.TeamID, false)); bad != nil {
		return bad
	}
	if a.Limit < 0 || a.Limit > maxListPage || len(a.Cursor) > 512 {
		return toolcall.InvalidArgs("limit must be 1 to %d and cursor a nextCursor from list_tasks", maxListPage)
	}
	f := TaskFilter{TeamID: a.TeamID, Ready: a.Ready, Limit: a.Limit, Cursor: a.Cursor}
	if f.Limit == 0 {
		f.Limit = defaultListPage
	}
	for _, s := range strings.Split(a.Status, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !knownStatus(s) {
			return toolcall.InvalidArgs("unknown status %q (one of %s)", s, strings.Join(TaskStatuses, ", "))
		}
		f.Statuses = append(f.Statuses, s)
	}
	if c.TeamID != "" {
		if a.TeamID != "" && a.TeamID != c.TeamID {
			return foreignTeam(c, a.TeamID)
		}
		f.TeamID = c.TeamID
	}
	recs, next, err := ts.board.List(ctx, f)
	if err != nil {
		return ts.refusal("list", "", err)
	}
	views := make([]any, 0, len(recs))
	for _, r := range recs {
		views = append(views, r.View)
	}
	out := map[string]any{"tasks": views}
	if next != "" {
		out["nextCursor"] = next // more tasks match: call again with cursor
	}
	return toolcall.JSON(out)
}

// list_tasks pages: an agent's context holds a page, not a board of
// thousands.
const (
	defaultListPage = 100
	maxListPage     = 500
)

// maxAncestors bounds the climb to the root (the board allows depth 2; the
// bound only guards against a damaged tree).
const maxAncestors = 8

// getTask answers {task, comments, ancestors}, the ancestors root first.
func (ts *tasksServer) getTask(ctx context.Context, c Caller, a taskArgs) *mcp.CallToolResult {
	if bad := firstProblem(checkID("taskId", a.TaskID, true)); bad != nil {
		return bad
	}
	rec, res := ts.visible(ctx, c, a.TaskID)
	if res != nil {
		return res
	}
	comments, err := ts.board.Comments(ctx, rec.ID)
	if err != nil {
		return ts.refusal("get_task", rec.ID, err)
	}
	// Ancestors, root first; the climb stops at one the caller may not see.
	var up []any
	for parent := rec.ParentID; parent != "" && len(up) < maxAncestors; {
		p, err := ts.board.Get(ctx, parent)
		if err != nil || !canSee(c, p) {
			break
		}
		up = append([]any{p.View}, up...)
		parent = p.ParentID
	}
	if up == nil {
		up = []any{}
	}
	return toolcall.JSON(map[string]any{"task": rec.View, "comments": comments, "ancestors": up})
}

// createTask creates a root task (within the root-create cap) or, with
// parentTaskId, a capped subtask. A team-bound session's task always goes
// into its team: a teamId naming another team is refused (foreign_team),
// one naming its own team is accepted.
func (ts *tasksServer) createTask(ctx context.Context, c Caller, a createArgs) *mcp.CallToolResult {
	bad := firstProblem(checkText(a.Title, a.Description), checkID("teamId", a.TeamID, false),
		checkID("parentTaskId", a.ParentTaskID, false), checkID("assigneeRuntime", a.AssigneeRuntime, false))
	if bad != nil {
		return bad
	}
	if a.Status != "" && a.Status != "todo" && a.Status != "backlog" {
		return toolcall.InvalidArgs("a new task starts in todo or backlog, not %q", a.Status)
	}
	if a.Priority < -maxPriority || a.Priority > maxPriority {
		return toolcall.InvalidArgs("priority must be between %d and %d", -maxPriority, maxPriority)
	}
	team := a.TeamID
	if c.TeamID != "" {
		if a.TeamID != "" && a.TeamID != c.TeamID {
			return foreignTeam(c, a.TeamID)
		}
		team = c.TeamID
	}
	n := NewTask{
		Title: a.Title, Description: a.Description, Status: a.Status, Priority: a.Priority,
		TeamID: team, AssigneeRuntime: a.AssigneeRuntime,
	}
	if a.ParentTaskID != "" {
		return ts.createChild(ctx, c, a.ParentTaskID, a.TeamID, n)
	}
	return ts.createRoot(ctx, c, n)
}

// createSubtask is create_task with a required parent; the parent must be
// visible to the caller (the reference server forgot this check).
func (ts *tasksServer) createSubtask(ctx context.Context, c Caller, a subtaskArgs) *mcp.CallToolResult {
	if bad := firstProblem(checkID("parentTaskId", a.ParentTaskID, true), checkText(a.Title, a.Description)); bad != nil {
		return bad
	}
	return ts.createChild(ctx, c, a.ParentTaskID, "", NewTask{Title: a.Title, Description: a.Description})
}

// createChild creates a subtask of a parent the caller can see. A subtask
// joins its parent's team: a teamId argument naming another is refused.
func (ts *tasksServer) createChild(ctx context.Context, c Caller, parentID, teamArg string, n NewTask) *mcp.CallToolResult {
	parent, err := ts.board.Get(ctx, parentID)
	if err != nil || !canSee(c, parent) {
		var be *BoardError
		if err == nil || errors.As(err, &be) && be.Code == CodeNotFound {
			return parentNotFound(parentID)
		}
		return ts.refusal("create", "", err)
	}
	if teamArg != "" && teamArg != parent.TeamID {
		return toolcall.InvalidArgs("a subtask joins its parent's team ('%s'); omit teamId", parent.TeamID)
	}
	n.ParentID, n.TeamID = parent.ID, parent.TeamID
	rec, err := ts.board.Create(ctx, n)
	if err != nil {
		return ts.createRefusal(parentID, err)
	}
	return toolcall.JSON(map[string]any{"task": rec.View})
}

// createRoot creates a root task within the root-create cap.
func (ts *tasksServer) createRoot(ctx context.Context, c Caller, n NewTask) *mcp.CallToolResult {
	key := rootKey(c)
	now := ts.h.opts.Now()
	if ok, wait := ts.roots.take(key, now); !ok {
		who := "this session's callers"
		if c.TeamID != "" {
			who = "team '" + c.TeamID + "'"
		}
		return toolcall.Denied("root_rate_cap",
			fmt.Sprintf("create failed: %s created %d root tasks in the last %s (the most allowed)", who, rootCap, rootWindow),
			fmt.Sprintf("add the work as subtasks of an existing task (parentTaskId or create_subtask), or wait %s before creating another root task", wait.Round(1e9)))
	}
	rec, err := ts.board.Create(ctx, n)
	if err != nil {
		ts.roots.undo(key, now)
		return ts.createRefusal("", err)
	}
	return toolcall.JSON(map[string]any{"task": rec.View})
}

// claimTask claims a task by hand for the acting agent (claim_task and
// assign_task). The board's claim is one conditional statement, so of
// concurrent claimers exactly one wins; the others get conflictText.
func (ts *tasksServer) claimTask(ctx context.Context, c Caller, a claimArgs) *mcp.CallToolResult {
	bad := firstProblem(checkID("taskId", a.TaskID, true), checkID("assigneeAgentId", a.AssigneeAgentID, false),
		checkID("assigneeRuntime", a.AssigneeRuntime, false))
	if bad != nil {
		return bad
	}
	agent, res := actingAgent(c, "assigneeAgentId", a.AssigneeAgentID)
	if res != nil {
		return res
	}
	if agent == "" {
		return toolcall.InvalidArgs("assigneeAgentId is required")
	}
	if _, res := ts.visible(ctx, c, a.TaskID); res != nil {
		return res
	}
	rec, err := ts.board.Claim(ctx, a.TaskID, TaskClaim{AgentID: agent, Runtime: a.AssigneeRuntime})
	var be *BoardError
	switch {
	case err == nil:
		return toolcall.JSON(map[string]any{"task": rec.View})
	case errors.As(err, &be) && be.Code == CodeConflict:
		return ts.lostClaim(ctx, a.TaskID)
	case errors.As(err, &be) && be.Code == "waiting_on_dependencies":
		return toolcall.Denied(be.Code, "claim failed: "+be.Msg, "claim a ready task instead (list_tasks with ready: true)")
	}
	return ts.refusal("claim", a.TaskID, err)
}

// conflictText is the answer to a lost claim; agents key on it.
const conflictText = "claim failed: conflict — another agent holds this task; do not retry, pick another task"

// lostClaim tells a task someone is working on (the conflict agents must
// not retry) from one that is not open for work (backlog, blocked, done,
// cancelled).
func (ts *tasksServer) lostClaim(ctx context.Context, id string) *mcp.CallToolResult {
	cur, err := ts.board.Get(ctx, id)
	if err == nil && cur.Status != "todo" && cur.Status != "in_progress" && cur.Status != "in_review" {
		return toolcall.Denied("not_claimable", fmt.Sprintf("claim failed: task '%s' is %s; only a todo task can be claimed", id, cur.Status),
			"pick a ready task (list_tasks with ready: true)")
	}
	return toolcall.Denied(CodeConflict, conflictText, "")
}

// releaseTask gives a hand claim back to todo. An agent-bound session
// releases only its own agent's claim; a claim a run holds is the run's.
func (ts *tasksServer) releaseTask(ctx context.Context, c Caller, a taskArgs) *mcp.CallToolResult {
	if bad := firstProblem(checkID("taskId", a.TaskID, true)); bad != nil {
		return bad
	}
	if _, res := ts.visible(ctx, c, a.TaskID); res != nil {
		return res
	}
	why := "Released over MCP."
	if c.AgentID != "" {
		why = "Released over MCP by agent " + c.AgentID + "."
	}
	rec, err := ts.board.Release(ctx, a.TaskID, c.AgentID, why)
	if err != nil {
		return ts.refusal("release", a.TaskID, err)
	}
	return toolcall.JSON(map[string]any{"task": rec.View})
}

// updateStatus moves a task along the board's transition table; a refusal
// reads "status change failed: <reason>" with the legal moves as a hint.
func (ts *tasksServer) updateStatus(ctx context.Context, c Caller, a statusArgs) *mcp.CallToolResult {
	if bad := firstProblem(checkID("taskId", a.TaskID, true)); bad != nil {
		return bad
	}
	if !knownStatus(a.Status) {
		return toolcall.InvalidArgs("unknown status %q (one of %s)", a.Status, strings.Join(TaskStatuses, ", "))
	}
	return ts.setStatus(ctx, c, a.TaskID, a.Status, "")
}

// blockTask moves a task to blocked (the board decides from where).
func (ts *tasksServer) blockTask(ctx context.Context, c Caller, a taskArgs) *mcp.CallToolResult {
	if bad := firstProblem(checkID("taskId", a.TaskID, true)); bad != nil {
		return bad
	}
	return ts.setStatus(ctx, c, a.TaskID, "blocked", "")
}

// unblockTask moves only a blocked task (to todo): unblocking a task in
// progress would silently drop its claim.
func (ts *tasksServer) unblockTask(ctx context.Context, c Caller, a taskArgs) *mcp.CallToolResult {
	if bad := firstProblem(checkID("taskId", a.TaskID, true)); bad != nil {
		return bad
	}
	return ts.setStatus(ctx, c, a.TaskID, "todo", "blocked")
}

// setStatus moves a task the caller can see; from, when set, is the status
// the task must be in.
func (ts *tasksServer) setStatus(ctx context.Context, c Caller, id, to, from string) *mcp.CallToolResult {
	cur, res := ts.visible(ctx, c, id)
	if res != nil {
		return res
	}
	if from != "" && cur.Status != from {
		return toolcall.Denied("illegal_transition", fmt.Sprintf("status change failed: task '%s' is %s, not %s", id, cur.Status, from), "")
	}
	rec, err := ts.board.SetStatus(ctx, id, to)
	var be *BoardError
	if errors.As(err, &be) && be.Code != CodeNotFound {
		return toolcall.Denied(be.Code, "status change failed: "+be.Msg, be.Hint)
	}
	if err != nil {
		return ts.refusal("status change", id, err)
	}
	return toolcall.JSON(map[string]any{"task": rec.View})
}

// addComment adds a note. An agent-bound session writes as its agent,
// with authorType agent: naming another author or type is refused.
func (ts *tasksServer) addComment(ctx context.Context, c Caller, a commentArgs) *mcp.CallToolResult {
	bad := firstProblem(checkID("taskId", a.TaskID, true), checkID("authorAgentId", a.AuthorAgentID, false), checkBody(a.Body))
	if bad != nil {
		return bad
	}
	if a.AuthorType == "" {
		a.AuthorType = "agent"
	}
	if a.AuthorType != "agent" && a.AuthorType != "user" && a.AuthorType != "system" {
		return toolcall.InvalidArgs("authorType must be agent, user or system")
	}
	author, res := actingAgent(c, "authorAgentId", a.AuthorAgentID)
	if res != nil {
		return res
	}
	if c.AgentID != "" && a.AuthorType != "agent" {
		return spoofed(fmt.Sprintf("authorType %q: a session bound to agent '%s' writes only as agent", a.AuthorType, c.AgentID), "authorType")
	}
	if _, res := ts.visible(ctx, c, a.TaskID); res != nil {
		return res
	}
	cm, err := ts.board.AddComment(ctx, a.TaskID, TaskComment{AuthorType: a.AuthorType, AuthorID: author, Body: a.Body})
	if err != nil {
		return ts.refusal("comment", a.TaskID, err)
	}
	return toolcall.JSON(map[string]any{"comment": cm})
}

// linkTask makes taskId wait for dependsOnTaskId; both must be visible,
// and a link that would close a cycle is a tool error.
func (ts *tasksServer) linkTask(ctx context.Context, c Caller, a linkArgs) *mcp.CallToolResult {
	if bad := firstProblem(checkID("taskId", a.TaskID, true), checkID("dependsOnTaskId", a.DependsOnTaskID, true)); bad != nil {
		return bad
	}
	for _, id := range []string{a.TaskID, a.DependsOnTaskID} {
		if _, res := ts.visible(ctx, c, id); res != nil {
			return res
		}
	}
	rec, err := ts.board.Link(ctx, a.TaskID, a.DependsOnTaskID)
	var be *BoardError
	if errors.As(err, &be) && be.Code == CodeCycle {
		return toolcall.Denied(CodeCycle, "link failed: that dependency would make a cycle",
			"a task cannot wait, directly or through other tasks, on itself; link it the other way or not at all")
	}
	if err != nil {
		return ts.refusal("link", a.TaskID, err)
	}
	return toolcall.JSON(map[string]any{"task": rec.View})
}
