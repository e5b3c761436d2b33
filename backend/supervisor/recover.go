package supervisor

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
)

// msgOrphaned is recorded on runs a previous process left live.
const msgOrphaned = "orphaned: clawboo stopped while the run was live"

// recoverOrphans fails every run a previous process left starting or
// running, appending the done event its log is missing, so no run stays
// live forever and every stored log ends with done.
func (s *Supervisor) recoverOrphans(ctx context.Context) error {
	runs, err := s.opts.Store.LiveRuns(ctx)
	if err != nil {
		return fmt.Errorf("recover runs: %w", err)
	}
	for _, r := range runs {
		last, err := s.opts.Store.MaxEventSeq(ctx, r.ID)
		if err != nil {
			return fmt.Errorf("recover run %s: %w", r.ID, err)
		}
		now := s.opts.Now().UnixMilli()
		done := executor.Done(executor.DoneError, msgOrphaned)
		done.RunID, done.Seq, done.TS = executor.RunID(r.ID), last+1, now
		data, err := json.Marshal(done)
		if err != nil {
			return err
		}
		err = s.opts.Store.WriteBatch(ctx, func(b *store.Batch) error {
			if err := b.AppendEvent(r.ID, done.Seq, string(done.Kind), data); err != nil {
				return err
			}
			return b.FinishRun(store.RunFinish{
				ID: r.ID, Status: store.RunFailed, DoneReason: string(executor.DoneError),
				Summary: msgOrphaned, Error: msgOrphaned, LastSeq: done.Seq, EndedAt: now,
			})
		})
		if err != nil {
			return fmt.Errorf("recover run %s: %w", r.ID, err)
		}
		s.opts.Log.Warn("marked orphaned run failed", "run", r.ID)
	}
	return nil
}
