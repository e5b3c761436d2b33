package approval

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

const columns = `id, kind, title, tool, command, args, folder, agent_id, team_id, task_id, run_id,
	reason, risk, status, created_at, expires_at, COALESCE(resolved_at, 0), resolved_by, note, always, scope`

func (q *Queue) insert(ctx context.Context, r Request) error {
	_, err := q.st.Write().ExecContext(ctx, `INSERT INTO approvals (id, kind, title, tool, command, args, folder,
		agent_id, team_id, task_id, run_id, reason, risk, status, created_at, expires_at, always)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
		r.ID, string(r.Kind), r.Title, r.Tool, r.Command, r.Args, r.Folder,
		r.AgentID, r.TeamID, r.TaskID, r.RunID, r.Reason, r.Risk, r.CreatedAt, r.ExpiresAt, r.Always)
	if err != nil {
		return fmt.Errorf("approval: record request: %w", err)
	}
	return nil
}

// insertDone writes a row already answered (Record's).
func (q *Queue) insertDone(ctx context.Context, r Request) error {
	_, err := q.st.Write().ExecContext(ctx, `INSERT INTO approvals (id, kind, title, status, created_at, expires_at,
		resolved_at, resolved_by, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, string(r.Kind), r.Title, string(r.Status), r.CreatedAt, r.ExpiresAt, r.ResolvedAt, r.ResolvedBy, r.Note)
	if err != nil {
		return fmt.Errorf("approval: record %s: %w", r.Kind, err)
	}
	return nil
}

type scanner interface{ Scan(dest ...any) error }

func scan(s scanner) (Request, error) {
	var r Request
	err := s.Scan(&r.ID, &r.Kind, &r.Title, &r.Tool, &r.Command, &r.Args, &r.Folder, &r.AgentID, &r.TeamID,
		&r.TaskID, &r.RunID, &r.Reason, &r.Risk, &r.Status, &r.CreatedAt, &r.ExpiresAt, &r.ResolvedAt,
		&r.ResolvedBy, &r.Note, &r.Always, &r.Scope)
	return r, err
}

// Get reads one request (ErrNotFound when there is none).
func (q *Queue) Get(ctx context.Context, id string) (Request, error) {
	r, err := scan(q.st.Read().QueryRowContext(ctx, `SELECT `+columns+` FROM approvals WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Request{}, ErrNotFound
	}
	if err != nil {
		return Request{}, fmt.Errorf("approval: read %s: %w", id, err)
	}
	return r, nil
}

// Pending lists the requests still answerable, oldest first.
func (q *Queue) Pending(ctx context.Context) ([]Request, error) {
	rows, err := q.st.Read().QueryContext(ctx, `SELECT `+columns+` FROM approvals
		WHERE status = 'pending' AND expires_at > ? ORDER BY created_at, id`, q.ms())
	if err != nil {
		return nil, fmt.Errorf("approval: list pending: %w", err)
	}
	defer rows.Close()
	out := []Request{}
	for rows.Next() {
		r, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("approval: list pending: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Answered lists the requests that are no longer pending (approved, denied
// or expired, with who answered and where in ResolvedBy) and the entries
// Record wrote (kind device), newest answer
// first, at most limit of them, strictly older than the request id before
// when it is set (the cursor is the last id of the previous page).
func (q *Queue) Answered(ctx context.Context, before string, limit int) ([]Request, error) {
	query := `SELECT ` + columns + ` FROM approvals WHERE status != 'pending'`
	args := []any{}
	if before != "" {
		query += ` AND (COALESCE(resolved_at, expires_at), id) < (SELECT COALESCE(resolved_at, expires_at), id FROM approvals WHERE id = ?)`
		args = append(args, before)
	}
	query += ` ORDER BY COALESCE(resolved_at, expires_at) DESC, id DESC LIMIT ?`
	args = append(args, limit)
	rows, err := q.st.Read().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("approval: list answered: %w", err)
	}
	defer rows.Close()
	out := []Request{}
	for rows.Next() {
		r, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("approval: list answered: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
