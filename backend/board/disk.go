package board

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/clawboo/desktop/backend/store"
)

// Settings keys of the worktree janitor.
const (
	worktreeBudgetKey = "worktree.budget_bytes_per_repo"
	janitorReportKey  = "worktree.janitor_last"
)

// DefaultWorktreeBudget is the disk a repository's finished worktrees may
// take (10 GiB) until a person sets another.
const DefaultWorktreeBudget int64 = 10 << 30

// WorktreeBudget is the per-repository disk budget of finished worktrees,
// in bytes (0: none).
func (b *Board) WorktreeBudget(ctx context.Context) (int64, error) {
	v, err := b.st.GetSetting(ctx, worktreeBudgetKey)
	if errors.Is(err, store.ErrNotFound) {
		return DefaultWorktreeBudget, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		b.log.Warn("worktree budget setting unreadable; using the default", "value", v)
		return DefaultWorktreeBudget, nil
	}
	return n, nil
}

// SetWorktreeBudget changes the per-repository budget; 0 turns it off.
func (b *Board) SetWorktreeBudget(ctx context.Context, bytesPerRepo int64) error {
	if bytesPerRepo < 0 {
		return rule("invalid", "bytesPerRepo must be 0 (no budget) or more")
	}
	return b.st.PutSetting(ctx, worktreeBudgetKey, strconv.FormatInt(bytesPerRepo, 10), b.ms())
}

// Finished reports a task whose worktree no run works in (any status but
// in progress): the janitor may prune it and count it against the budget.
// An unknown task is not finished: its folder is not the janitor's to judge.
func (b *Board) Finished(ctx context.Context, taskID string) bool {
	var status string
	var run *string
	err := b.st.Read().QueryRowContext(ctx, `SELECT status, run_id FROM tasks WHERE id = ?`, taskID).Scan(&status, &run)
	return err == nil && Status(status) != InProgress && run == nil
}

// SetJanitorReport keeps the janitor's last pass that reclaimed anything
// (what, per task, and when), for GET /api/worktrees.
func (b *Board) SetJanitorReport(ctx context.Context, report any) error {
	v, err := json.Marshal(map[string]any{"at": b.ms(), "report": report})
	if err != nil {
		return err
	}
	return b.st.PutSetting(ctx, janitorReportKey, string(v), b.ms())
}

// JanitorReport is the last report kept, {at, report}, or nil.
func (b *Board) JanitorReport(ctx context.Context) (json.RawMessage, error) {
	v, err := b.st.GetSetting(ctx, janitorReportKey)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return json.RawMessage(v), nil
}
