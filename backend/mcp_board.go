package backend

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/mcp"
)

// mcpBoard adapts the board to the Tasks server's mcp.TaskBoard: board
// tasks become mcp.TaskRecords (with the board's own JSON as the view) and
// board refusals become *mcp.BoardError with the same codes, so mcp never
// imports the board.
type mcpBoard struct{ b *board.Board }

// newMCPBoard returns nil for a nil board, so the Tasks server answers
// "the board is not available" rather than panicking.
func newMCPBoard(b *board.Board) mcp.TaskBoard {
	if b == nil {
		return nil
	}
	return mcpBoard{b: b}
}

func taskRecord(t board.Task) mcp.TaskRecord {
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return mcp.TaskRecord{
		ID: t.ID, TeamID: deref(t.TeamID), ParentID: deref(t.ParentID), Status: string(t.Status),
		AssigneeAgentID: deref(t.AssigneeAgentID), View: t,
	}
}

// boardErr translates a board refusal; other errors pass through.
func boardErr(err error) error {
	var re *board.RuleError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, board.ErrNotFound):
		return &mcp.BoardError{Code: mcp.CodeNotFound, Msg: err.Error()}
	case errors.Is(err, board.ErrConflict):
		return &mcp.BoardError{Code: mcp.CodeConflict, Msg: err.Error()}
	case errors.Is(err, board.ErrCycle):
		return &mcp.BoardError{Code: mcp.CodeCycle, Msg: err.Error()}
	case errors.As(err, &re):
		return &mcp.BoardError{Code: re.Code, Msg: re.Msg}
	}
	return err
}

func (m mcpBoard) record(t board.Task, err error) (mcp.TaskRecord, error) {
	if err != nil {
		return mcp.TaskRecord{}, boardErr(err)
	}
	return taskRecord(t), nil
}

func (m mcpBoard) List(ctx context.Context, f mcp.TaskFilter) ([]mcp.TaskRecord, string, error) {
	bf := board.Filter{TeamID: f.TeamID, Ready: f.Ready, Limit: f.Limit, Cursor: f.Cursor}
	for _, s := range f.Statuses {
		bf.Statuses = append(bf.Statuses, board.Status(s))
	}
	page, err := m.b.Page(ctx, bf)
	if err != nil {
		return nil, "", boardErr(err)
	}
	out := make([]mcp.TaskRecord, len(page.Tasks))
	for i, t := range page.Tasks {
		out[i] = taskRecord(t)
	}
	return out, page.NextCursor, nil
}

func (m mcpBoard) Get(ctx context.Context, id string) (mcp.TaskRecord, error) {
	return m.record(m.b.Get(ctx, id))
}

func (m mcpBoard) Comments(ctx context.Context, id string) (any, error) {
	cs, err := m.b.Comments(ctx, id)
	return cs, boardErr(err)
}

func (m mcpBoard) Create(ctx context.Context, n mcp.NewTask) (mcp.TaskRecord, error) {
	return m.record(m.b.Create(ctx, board.NewTask{
		Title: n.Title, Description: n.Description, Status: board.Status(n.Status),
		Priority: n.Priority, TeamID: n.TeamID, ParentID: n.ParentID, AssigneeRuntime: n.AssigneeRuntime,
	}))
}

// Claim claims by hand: no run holds the task, so the agent moves it on
// (update_task_status) or gives it back (release_task) itself.
func (m mcpBoard) Claim(ctx context.Context, id string, c mcp.TaskClaim) (mcp.TaskRecord, error) {
	return m.record(m.b.Claim(ctx, id, board.ClaimSpec{AgentID: c.AgentID, Runtime: c.Runtime}))
}

func (m mcpBoard) Release(ctx context.Context, id, agentID, why string) (mcp.TaskRecord, error) {
	return m.record(m.b.ReleaseClaim(ctx, id, agentID, why))
}

// SetStatus moves a task; an illegal move's refusal lists the legal ones.
//
// An agent cannot call its own change done: a code task whose branch still
// holds work waiting to be merged (its worktree not archived) is done only
// when a person merges it or closes it (done means landed), so done is
// refused here with the move that is open (in_review).
func (m mcpBoard) SetStatus(ctx context.Context, id, status string) (mcp.TaskRecord, error) {
	s := board.Status(status)
	if s == board.Done {
		if w, err := m.b.Worktree(ctx, id); err == nil && w.Status != "archived" {
			return mcp.TaskRecord{}, &mcp.BoardError{
				Code: "needs_merge",
				Msg:  fmt.Sprintf("task '%s' has changes on branch %s waiting to be merged: a person merges them or closes the task", id, w.Branch),
				Hint: "move it to in_review for the person to review and merge",
			}
		}
	}
	t, err := m.b.Update(ctx, id, board.Patch{Status: &s})
	if err == nil {
		return taskRecord(t), nil
	}
	err = boardErr(err)
	var be *mcp.BoardError
	if errors.As(err, &be) && be.Code == "illegal_transition" {
		if cur, gerr := m.b.Get(ctx, id); gerr == nil && cur.RunID == nil {
			be.Hint = movesHint(cur.Status)
		}
	}
	return mcp.TaskRecord{}, err
}

func movesHint(from board.Status) string {
	moves := board.Moves(from)
	if len(moves) == 0 {
		return fmt.Sprintf("a %s task is final: it cannot move", from)
	}
	names := make([]string, len(moves))
	for i, s := range moves {
		names[i] = string(s)
	}
	return fmt.Sprintf("from %s a task can move to: %s", from, strings.Join(names, ", "))
}

func (m mcpBoard) AddComment(ctx context.Context, id string, c mcp.TaskComment) (any, error) {
	cm, err := m.b.AddComment(ctx, id, board.NewComment{AuthorType: c.AuthorType, AuthorID: c.AuthorID, Body: c.Body})
	if err != nil {
		return nil, boardErr(err)
	}
	return cm, nil
}

func (m mcpBoard) Link(ctx context.Context, id, dependsOn string) (mcp.TaskRecord, error) {
	return m.record(m.b.Link(ctx, id, dependsOn))
}
