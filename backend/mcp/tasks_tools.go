package mcp

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Limits on arguments, matching the board's own (titles 500 characters,
// texts 20,000) so a refusal is a clear "invalid args" before any write.
const (
	maxTitle    = 500
	maxText     = 20000
	maxPriority = 1000 // priorities run from -maxPriority to maxPriority
)

// tools defines the Tasks tools: names and inputs follow the reference
// surface (clawboo-tasks), so agents written against it work unchanged.
func (ts *tasksServer) tools() []server.ServerTool {
	taskID := mcp.WithString("taskId", mcp.Required(), mcp.Description("The task's id (from list_tasks or get_task)."), mcp.MaxLength(128))
	claim := func(name, desc string) mcp.Tool {
		return mcp.NewTool(name, mcp.WithDescription(desc), taskID,
			mcp.WithString("assigneeAgentId", mcp.MaxLength(128),
				mcp.Description("The agent taking the task. A session bound to an agent may omit it (its own agent is used) and may not name another.")),
			mcp.WithString("assigneeRuntime", mcp.MaxLength(128), mcp.Description("The runtime the agent works in, e.g. claude-code.")))
	}
	statusOnly := func(name, desc string) mcp.Tool {
		return mcp.NewTool(name, mcp.WithDescription(desc), taskID, mcp.WithDestructiveHintAnnotation(false))
	}
	return []server.ServerTool{
		tool(ts, mcp.NewTool("list_tasks",
			mcp.WithDescription("List tasks, most urgent first. A session bound to a team sees only that team's tasks."),
			mcp.WithString("teamId", mcp.MaxLength(128), mcp.Description("Only this team's tasks (a team-bound session may name only its own team).")),
			mcp.WithString("status", mcp.Description("Only tasks in this status; several may be given comma-separated: backlog, todo, in_progress, in_review, blocked, done, cancelled.")),
			mcp.WithBoolean("ready", mcp.Description("Only tasks ready to claim: todo, with every dependency done.")),
			mcp.WithInteger("limit", mcp.Min(1), mcp.Max(maxListPage), mcp.Description("At most this many tasks (default 100); when more match, the answer has nextCursor.")),
			mcp.WithString("cursor", mcp.MaxLength(512), mcp.Description("The nextCursor of the previous answer, for the next page.")),
			mcp.WithReadOnlyHintAnnotation(true)), ts.listTasks),
		tool(ts, mcp.NewTool("get_task",
			mcp.WithDescription("Read one task with its comments and its ancestors (root first)."), taskID,
			mcp.WithReadOnlyHintAnnotation(true)), ts.getTask),
		tool(ts, mcp.NewTool("create_task",
			mcp.WithDescription("Create a task. With parentTaskId it is a subtask (at most 24 open subtasks per parent, 2 levels below the root); without, a root task (at most 30 per 5 minutes per team)."),
			mcp.WithString("title", mcp.Required(), mcp.MaxLength(maxTitle)),
			mcp.WithString("description", mcp.MaxLength(maxText)),
			mcp.WithString("status", mcp.Enum("todo", "backlog"), mcp.Description("Where it starts; default todo.")),
			mcp.WithInteger("priority", mcp.Min(-maxPriority), mcp.Max(maxPriority), mcp.Description("Higher is more urgent; default 0.")),
			mcp.WithString("teamId", mcp.MaxLength(128), mcp.Description("The team it belongs to. A team-bound session's tasks always go into its team; naming another team is refused.")),
			mcp.WithString("parentTaskId", mcp.MaxLength(128), mcp.Description("Make it a subtask of this task (it joins the parent's team).")),
			mcp.WithString("assigneeRuntime", mcp.MaxLength(128), mcp.Description("The runtime suggested to work it; a claim replaces it."))), ts.createTask),
		tool(ts, mcp.NewTool("create_subtask",
			mcp.WithDescription("Create a subtask of a task (at most 24 open subtasks per parent, 2 levels below the root)."),
			mcp.WithString("parentTaskId", mcp.Required(), mcp.MaxLength(128)),
			mcp.WithString("title", mcp.Required(), mcp.MaxLength(maxTitle)),
			mcp.WithString("description", mcp.MaxLength(maxText))), ts.createSubtask),
		tool(ts, claim("claim_task", "Claim a todo task whose dependencies are done, moving it to in_progress. If another agent got it first the answer is a conflict: do not retry, pick another task."), ts.claimTask),
		tool(ts, claim("assign_task", "Same as claim_task."), ts.claimTask),
		tool(ts, statusOnly("release_task", "Give back a task you claimed: it returns to todo with no assignee."), ts.releaseTask),
		tool(ts, mcp.NewTool("update_task_status",
			mcp.WithDescription("Move a task to another status, following the board's rules (e.g. todo → in_progress → in_review → done)."), taskID,
			mcp.WithString("status", mcp.Required(), mcp.Enum(TaskStatuses...))), ts.updateStatus),
		tool(ts, statusOnly("block_task", "Mark a task blocked."), ts.blockTask),
		tool(ts, statusOnly("unblock_task", "Move a blocked task back to todo."), ts.unblockTask),
		tool(ts, mcp.NewTool("add_comment",
			mcp.WithDescription("Add a note to a task."), taskID,
			mcp.WithString("body", mcp.Required(), mcp.MaxLength(maxText)),
			mcp.WithString("authorAgentId", mcp.MaxLength(128), mcp.Description("The author. A session bound to an agent writes as that agent and may not name another.")),
			mcp.WithString("authorType", mcp.Enum("agent", "user", "system"), mcp.Description("Default agent; an agent-bound session writes only as agent."))), ts.addComment),
		tool(ts, mcp.NewTool("link_task",
			mcp.WithDescription("Make a task wait for another: it becomes ready only once dependsOnTaskId is done. A link that would close a cycle is refused."), taskID,
			mcp.WithString("dependsOnTaskId", mcp.Required(), mcp.MaxLength(128))), ts.linkTask),
	}
}
