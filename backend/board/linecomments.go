package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Limits on a line comment.
const (
	MaxLineCommentBody = 8 << 10    // bytes
	MaxLineCommentPath = 4096       // bytes
	MaxLineCommentLine = 10_000_000 // no source file is longer
)

// Sides of a diff a line comment can point at: the new file's line numbers
// (added and context lines) or the old file's (removed lines).
const (
	SideNew = "new"
	SideOld = "old"
)

// LineComment is a reviewer's note on one line of a task's diff. It stays
// on the task once sent; SentRunID names the run that carried it back to
// the agent.
type LineComment struct {
	ID        string  `json:"id"`
	TaskID    string  `json:"taskId"`
	Path      string  `json:"path"`
	Line      int     `json:"line"`
	Side      string  `json:"side"`
	Body      string  `json:"body"`
	CreatedAt int64   `json:"createdAt"`
	SentRunID *string `json:"sentRunId"`
	SentAt    *int64  `json:"sentAt"`
}

// Sent reports whether the comment was carried back to the agent.
func (c LineComment) Sent() bool { return c.SentRunID != nil }

// NewLineComment is a line comment to add. The caller has checked that
// Path is a file of the task's diff (the board does not read diffs).
type NewLineComment struct {
	Path string
	Line int
	Side string // new (default) or old
	Body string
}

func validLineComment(n *NewLineComment) error {
	if n.Side == "" {
		n.Side = SideNew
	}
	if n.Side != SideNew && n.Side != SideOld {
		return rule("invalid", "side must be new or old")
	}
	if n.Path == "" {
		return rule("invalid", "path is required")
	}
	if len(n.Path) > MaxLineCommentPath {
		return rule("invalid", "path is longer than %d bytes", MaxLineCommentPath)
	}
	if strings.IndexFunc(n.Path, unicode.IsControl) >= 0 {
		return rule("invalid", "path has a control character")
	}
	if n.Line <= 0 || n.Line > MaxLineCommentLine {
		return rule("invalid", "line must be a line number from 1 to %d", MaxLineCommentLine)
	}
	n.Body = strings.TrimSpace(n.Body)
	if n.Body == "" {
		return rule("invalid", "body is required")
	}
	if len(n.Body) > MaxLineCommentBody {
		return rule("invalid", "body is longer than %d KiB", MaxLineCommentBody>>10)
	}
	return nil
}

// AddLineComment adds a line comment to a task (ErrNotFound for no task).
func (b *Board) AddLineComment(ctx context.Context, taskID string, n NewLineComment) (LineComment, error) {
	if err := validLineComment(&n); err != nil {
		return LineComment{}, err
	}
	c := LineComment{ID: newID(), TaskID: taskID, Path: n.Path, Line: n.Line, Side: n.Side, Body: n.Body, CreatedAt: b.ms()}
	err := b.st.InTx(ctx, func(tx *sql.Tx) error {
		res, err := b.st.Tx(tx).ExecContext(ctx, `INSERT INTO task_line_comments(id, task_id, path, line, side, body, created_at)
			SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM tasks WHERE id = ?)`,
			c.ID, c.TaskID, c.Path, c.Line, c.Side, c.Body, c.CreatedAt, taskID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(fmt.Errorf("task '%s': %w", taskID, ErrNotFound), err)
		}
		return nil
	})
	if err != nil {
		return LineComment{}, err
	}
	return c, nil
}

const lineCommentColumns = `id, task_id, path, line, side, body, created_at, sent_run_id, sent_at`

func scanLineComment(sc scanner) (LineComment, error) {
	var c LineComment
	err := sc.Scan(&c.ID, &c.TaskID, &c.Path, &c.Line, &c.Side, &c.Body, &c.CreatedAt, &c.SentRunID, &c.SentAt)
	return c, err
}

// LineComments lists a task's line comments, sent and unsent, oldest first.
func (b *Board) LineComments(ctx context.Context, taskID string) ([]LineComment, error) {
	rows, err := b.st.Read().QueryContext(ctx, `SELECT `+lineCommentColumns+` FROM task_line_comments
		WHERE task_id = ? ORDER BY created_at, id`, taskID)
	if err != nil {
		return nil, fmt.Errorf("line comments: %w", err)
	}
	defer rows.Close()
	out := []LineComment{}
	for rows.Next() {
		c, err := scanLineComment(rows)
		if err != nil {
			return nil, fmt.Errorf("line comments: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// DeleteLineComment removes an unsent line comment of the task. A sent one
// is the record of what the agent was told and is refused (already_sent).
func (b *Board) DeleteLineComment(ctx context.Context, taskID, id string) error {
	return b.st.InTx(ctx, func(tx *sql.Tx) error {
		q := b.st.Tx(tx)
		c, err := scanLineComment(q.QueryRowContext(ctx, `SELECT `+lineCommentColumns+` FROM task_line_comments
			WHERE id = ? AND task_id = ?`, id, taskID))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("line comment '%s' on task '%s': %w", id, taskID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if c.Sent() {
			return rule("already_sent", "that comment was already sent to the agent (run %s) and stays on the task", *c.SentRunID)
		}
		_, err = q.ExecContext(ctx, `DELETE FROM task_line_comments WHERE id = ? AND task_id = ? AND sent_run_id IS NULL`, id, taskID)
		return err
	})
}

// MarkLineCommentsSent records that run carried the given comments back
// to the agent; comments already sent (or not the task's) are left alone.
// It returns how many it marked.
func (b *Board) MarkLineCommentsSent(ctx context.Context, taskID, runID string, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	var n int64
	err := b.st.InTx(ctx, func(tx *sql.Tx) error {
		ph := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
		args := []any{runID, b.ms(), taskID}
		for _, id := range ids {
			args = append(args, id)
		}
		res, err := b.st.Tx(tx).ExecContext(ctx, `UPDATE task_line_comments SET sent_run_id = ?, sent_at = ?
			WHERE task_id = ? AND sent_run_id IS NULL AND id IN (`+ph+`)`, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// Unsent keeps the comments not yet sent, in their order.
func Unsent(cs []LineComment) []LineComment {
	out := []LineComment{}
	for _, c := range cs {
		if !c.Sent() {
			out = append(out, c)
		}
	}
	return out
}

// ReviewMessage is the message a send-back run gets: one item per comment,
// "- path:line — text", with a removed line marked (old), and a comment's
// further lines indented under its item. Built by the server from stored
// comments only; the path is the diff's and the line a number.
func ReviewMessage(cs []LineComment) string {
	var sb strings.Builder
	sb.WriteString("Review comments:\n")
	for _, c := range cs {
		loc := c.Path + ":" + strconv.Itoa(c.Line)
		if c.Side == SideOld {
			loc += " (old)"
		}
		body := strings.ReplaceAll(strings.TrimSpace(c.Body), "\r\n", "\n")
		body = strings.ReplaceAll(body, "\r", "\n")
		body = strings.ReplaceAll(body, "\n", "\n  ")
		sb.WriteString("- " + loc + " — " + body + "\n")
	}
	return sb.String()
}
