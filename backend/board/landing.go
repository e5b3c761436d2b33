package board

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/clawboo/desktop/backend/store"
)

// ValidBranchName checks the shape of a task's base branch: "" (none) or a
// local branch name outside clawboo/ (Clawboo's own task branches) that git
// could hold. Whether the branch exists is the caller's check: the board
// knows no repository.
func ValidBranchName(name string) error {
	n := strings.TrimPrefix(name, "refs/heads/")
	if name == "" {
		return nil
	}
	bad := n == "" || len(n) > 250 || strings.HasPrefix(n, "clawboo/") || strings.HasPrefix(n, "-") ||
		strings.HasPrefix(n, "/") || strings.HasSuffix(n, "/") || strings.HasSuffix(n, ".lock") || strings.HasSuffix(n, ".") ||
		strings.Contains(n, "..") || strings.Contains(n, "//") || strings.Contains(n, "@{") || n == "@" ||
		strings.ContainsAny(n, " ~^:?*[\\\x7f")
	for _, r := range n {
		if r < 0x20 {
			bad = true
		}
	}
	if bad {
		return rule("invalid", "baseBranch must be the name of a local branch outside clawboo/")
	}
	return nil
}

// LandCheck says whether a task's work may be merged now and the task
// marked done with it (ov is a person's override of a failed verification):
// a task not merged yet that is done already, or that may move to done.
// The same rules are checked again, on the fresh row, by MarkMerged.
func LandCheck(t Task, ov *Override) error {
	if t.Merged != nil {
		return rule("already_merged", "task '%s' is already merged into %s", t.ID, t.Merged.Base)
	}
	if t.Status == Done {
		return nil
	}
	if t.Status.Terminal() || !CanMove(t.Status, Done) {
		return rule("illegal_transition", "a task cannot move from %s to done, so it is not merged", t.Status)
	}
	if t.RunID != nil {
		return rule("task_running", "a run is working on this task: wait for it to end, or stop it")
	}
	if t.Verification != nil && !t.Verification.Passed && (ov == nil || strings.TrimSpace(ov.By) == "") {
		return rule("verification_required", "the last verification failed; merging it needs an explicit override")
	}
	return nil
}

// MarkMerged records that a task's work is in its base branch and moves it
// to done in the same transaction (a task already done stays done). The
// move is checked as Update checks it; a task merged before is refused
// (already_merged).
func (b *Board) MarkMerged(ctx context.Context, id string, m Merged, ov *Override) (Task, error) {
	return b.changeTask(ctx, id, func(q store.Querier) error {
		t, err := getTask(ctx, q, id)
		if err != nil {
			return err
		}
		if err := LandCheck(t, ov); err != nil {
			return err
		}
		if m.At == 0 {
			m.At = b.ms()
		}
		raw, _ := json.Marshal(m)
		sets := []string{"merged = ?", "updated_at = ?"}
		args := []any{string(raw), b.ms()}
		if t.Status != Done {
			more, margs, err := b.move(t, Done, ov)
			if err != nil {
				return err
			}
			sets, args = append(sets, more...), append(args, margs...)
		}
		args = append(args, id)
		_, err = q.ExecContext(ctx, `UPDATE tasks SET `+strings.Join(sets, ", ")+` WHERE id = ?`, args...)
		return err
	})
}

// RecordBaseBranch sets a task's base branch when it has none yet (the
// first worktree made for it decides; a person's choice stays).
func (b *Board) RecordBaseBranch(ctx context.Context, id, branch string) (Task, error) {
	if err := ValidBranchName(branch); err != nil {
		return Task{}, err
	}
	return b.changeTask(ctx, id, func(q store.Querier) error {
		_, err := q.ExecContext(ctx, `UPDATE tasks SET base_branch = ?, updated_at = ? WHERE id = ? AND base_branch IS NULL`,
			optional(branch), b.ms(), id)
		return err
	})
}
