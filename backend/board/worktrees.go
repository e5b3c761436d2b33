package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// SetWorktree records (or updates) a task's worktree.
func (b *Board) SetWorktree(ctx context.Context, w Worktree) error {
	now := b.ms()
	_, err := b.st.Write().ExecContext(ctx, `INSERT INTO worktrees(task_id, repo_path, path, branch, base_commit, status, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(task_id) DO UPDATE SET repo_path = excluded.repo_path, path = excluded.path, branch = excluded.branch,
			base_commit = excluded.base_commit, status = excluded.status, updated_at = excluded.updated_at`,
		w.TaskID, w.RepoPath, w.Path, w.Branch, w.BaseCommit, w.Status, now, now)
	if err != nil {
		return fmt.Errorf("record worktree: %w", err)
	}
	return nil
}

// SetWorktreeStatus changes a worktree's status (active, paused, archived).
// A worktree that is no longer active has no folder, so its port lease is
// freed with the change.
func (b *Board) SetWorktreeStatus(ctx context.Context, taskID, status string) error {
	_, err := b.st.Write().ExecContext(ctx, `UPDATE worktrees SET status = ?, updated_at = ? WHERE task_id = ?`, status, b.ms(), taskID)
	if err == nil && status != "active" {
		err = b.ReleasePorts(ctx, taskID)
	}
	return err
}

// Worktree returns a task's worktree record.
func (b *Board) Worktree(ctx context.Context, taskID string) (Worktree, error) {
	var w Worktree
	err := b.st.Read().QueryRowContext(ctx, `SELECT task_id, repo_path, path, branch, base_commit, status, created_at, updated_at
		FROM worktrees WHERE task_id = ?`, taskID).Scan(&w.TaskID, &w.RepoPath, &w.Path, &w.Branch, &w.BaseCommit, &w.Status, &w.CreatedAt, &w.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return Worktree{}, ErrNotFound
	}
	if err != nil {
		return w, err
	}
	w.Ports, err = b.Ports(ctx, taskID)
	if w.Ports == nil {
		w.Ports = []int{}
	}
	return w, err
}

// Protected reports a task whose worktree garbage collection must not
// touch: in progress or in review.
func (b *Board) Protected(ctx context.Context, taskID string) bool {
	var status string
	err := b.st.Read().QueryRowContext(ctx, `SELECT status FROM tasks WHERE id = ?`, taskID).Scan(&status)
	return err == nil && (Status(status) == InProgress || Status(status) == InReview)
}

// RecentRepos lists the repository paths tasks name, most recently touched
// first, at most limit of them.
func (b *Board) RecentRepos(ctx context.Context, limit int) ([]string, error) {
	rows, err := b.st.Read().QueryContext(ctx, `SELECT repo_path FROM tasks WHERE repo_path IS NOT NULL AND repo_path != ''
		GROUP BY repo_path ORDER BY MAX(updated_at) DESC, MAX(id) DESC LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// SetHost records the host a task's run goes to ("" for this computer),
// before the claim that publishes the task.
func (b *Board) SetHost(ctx context.Context, taskID, hostID string) error {
	_, err := b.st.Write().ExecContext(ctx, `UPDATE tasks SET host_id = NULLIF(?, '') WHERE id = ?`, hostID, taskID)
	if err != nil {
		return fmt.Errorf("record the task's host: %w", err)
	}
	return nil
}
