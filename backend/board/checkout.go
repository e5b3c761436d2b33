package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/clawboo/desktop/backend/store"
)

// CheckoutLock is the hold a work-in-place task's run has on its
// repository's own checkout.
type CheckoutLock struct {
	RepoPath string `json:"repoPath"`
	TaskID   string `json:"taskId"`
	RunID    string `json:"runId"`
	LockedAt int64  `json:"lockedAt"`
}

// CheckoutBusyError refuses a work-in-place run whose repository's checkout
// another task's live run holds.
type CheckoutBusyError struct{ Holder CheckoutLock }

func (e *CheckoutBusyError) Error() string {
	return fmt.Sprintf("the checkout at %s is in use by task '%s' (run %s), which works in place: wait for it to finish",
		e.Holder.RepoPath, e.Holder.TaskID, e.Holder.RunID)
}

// LockCheckout takes repo's checkout for taskID's run, in one IMMEDIATE
// write transaction so two processes on one home cannot both win. The
// checkout is busy while another task's run holds it and that run is live
// here or still holds its task's claim (a run of another process on this
// home); a lock whose run is neither is taken over. A lock held by the same
// task passes to the new run (a successor session continues the task). A
// busy checkout refuses with *CheckoutBusyError.
func (b *Board) LockCheckout(ctx context.Context, repo, taskID, runID string, isLive func(runID string) bool) error {
	return b.st.InTx(ctx, func(tx *sql.Tx) error {
		q := b.st.Tx(tx)
		var h CheckoutLock
		err := q.QueryRowContext(ctx, `SELECT repo_path, task_id, run_id, locked_at FROM checkout_locks WHERE repo_path = ?`, repo).
			Scan(&h.RepoPath, &h.TaskID, &h.RunID, &h.LockedAt)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("read checkout lock: %w", err)
		case h.TaskID != taskID && h.RunID != runID:
			held, err := holdsClaim(ctx, q, h)
			if err != nil {
				return err
			}
			if held || isLive(h.RunID) {
				return &CheckoutBusyError{Holder: h}
			}
		}
		_, err = q.ExecContext(ctx, `INSERT INTO checkout_locks(repo_path, task_id, run_id, locked_at) VALUES (?, ?, ?, ?)
			ON CONFLICT(repo_path) DO UPDATE SET task_id = excluded.task_id, run_id = excluded.run_id, locked_at = excluded.locked_at`,
			repo, taskID, runID, b.ms())
		return err
	})
}

// holdsClaim reports whether h's run still holds its task's claim.
func holdsClaim(ctx context.Context, q store.Querier, h CheckoutLock) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM tasks WHERE id = ? AND status = 'in_progress' AND run_id = ?`, h.TaskID, h.RunID).Scan(&n)
	return n > 0, err
}

// UnlockCheckout frees whatever checkout runID holds; a lock that has
// passed to another run is left alone.
func (b *Board) UnlockCheckout(ctx context.Context, runID string) error {
	_, err := b.st.Write().ExecContext(ctx, `DELETE FROM checkout_locks WHERE run_id = ?`, runID)
	return err
}

// CheckoutLocks lists the held checkouts.
func (b *Board) CheckoutLocks(ctx context.Context) ([]CheckoutLock, error) {
	rows, err := b.st.Read().QueryContext(ctx, `SELECT repo_path, task_id, run_id, locked_at FROM checkout_locks ORDER BY repo_path`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []CheckoutLock{}
	for rows.Next() {
		var h CheckoutLock
		if err := rows.Scan(&h.RepoPath, &h.TaskID, &h.RunID, &h.LockedAt); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// releaseDeadCheckouts frees the checkouts held by runs that are not live
// here and no longer hold their task's claim: the last step of ReleaseDead,
// after the dead claims are released.
func (b *Board) releaseDeadCheckouts(ctx context.Context, isLive func(runID string) bool) error {
	locks, err := b.CheckoutLocks(ctx)
	if err != nil {
		return fmt.Errorf("sweep checkout locks: %w", err)
	}
	for _, h := range locks {
		if isLive(h.RunID) {
			continue
		}
		if held, err := holdsClaim(ctx, b.st.Read(), h); err != nil || held {
			continue
		}
		if _, err := b.st.Write().ExecContext(ctx, `DELETE FROM checkout_locks WHERE repo_path = ? AND run_id = ?`, h.RepoPath, h.RunID); err != nil {
			return err
		}
		if b.log != nil {
			b.log.Warn("released the checkout lock of a run that stopped", "repo", h.RepoPath, "task", h.TaskID, "run", h.RunID)
		}
	}
	return nil
}
