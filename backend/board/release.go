package board

import (
	"context"
	"strings"

	"github.com/clawboo/desktop/backend/store"
)

// ReleaseClaim gives a task claimed by hand (an agent over MCP, a person:
// no run holds it) back to todo, clearing the assignee, the runtime and the
// verification, with a system note saying why (none when why is blank).
//
// agentID, when set, must be the assignee: an agent releases only its own
// claim (not_holder otherwise). Only an in-progress task can be released,
// and a task a run holds is released by that run (Finish, Release) or by the
// sweep, never here (both illegal_transition). The check and the change are
// one transaction on the fresh row.
func (b *Board) ReleaseClaim(ctx context.Context, id, agentID, why string) (Task, error) {
	return b.changeTask(ctx, id, func(q store.Querier) error {
		t, err := getTask(ctx, q, id)
		if err != nil {
			return err
		}
		if t.Status != InProgress {
			return rule("illegal_transition", "task '%s' is %s; only an in-progress task can be released", id, t.Status)
		}
		if t.RunID != nil {
			return rule("illegal_transition", "task '%s' is being worked on by run %s; abort the run instead", id, *t.RunID)
		}
		if agentID != "" && (t.AssigneeAgentID == nil || *t.AssigneeAgentID != agentID) {
			return rule("not_holder", "task '%s' is claimed by another agent; only its holder can release it", id)
		}
		now := b.ms()
		if _, err := q.ExecContext(ctx, `UPDATE tasks SET status = 'todo', assignee_agent_id = NULL, assignee_runtime = NULL,
			heartbeat_at = NULL, verification = NULL, updated_at = ? WHERE id = ?`, now, id); err != nil {
			return err
		}
		if why = strings.TrimSpace(why); why != "" {
			return insertComment(ctx, q, Comment{ID: newID(), TaskID: id, AuthorType: "system", Body: why, CreatedAt: now})
		}
		return nil
	})
}
