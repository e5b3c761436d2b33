package supervisor

import (
	"context"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
)

// Handle lets a caller wait for a run it started.
type Handle struct {
	ID   string
	live *liveRun
}

// Wait blocks until the run has finished and its result is saved, then
// returns the final ledger row. ctx only bounds the wait, never the run.
// When the result could not be saved it returns the run as the host now
// shows it (failed) with an error wrapping ErrNotSaved: a result is never
// reported before it is durable.
func (h *Handle) Wait(ctx context.Context) (store.Run, error) {
	select {
	case <-h.live.finished:
		return h.live.final, h.live.saveErr
	case <-ctx.Done():
		return store.Run{}, ctx.Err()
	}
}

// Successor is the run that continues this task in a fresh session after
// this one reached its turn limit ("" when none), once Wait has returned.
func (h *Handle) Successor() string {
	h.live.mu.Lock()
	defer h.live.mu.Unlock()
	return h.live.successor
}

// Task is the board task as the run left it, once Wait has returned (nil
// for an ad-hoc run).
func (h *Handle) Task() *board.Task {
	h.live.mu.Lock()
	defer h.live.mu.Unlock()
	return h.live.taskFinal
}

// RoutedFrom is the runtime the work was first asked of when the governor
// routed it to a fallback ("" when it was not), and why.
func (h *Handle) RoutedFrom() (executor.ID, string) {
	return h.live.params.routedFrom, h.live.params.routedWhy
}

// Runtime is the runtime the run runs on (after any routing).
func (h *Handle) Runtime() executor.ID { return h.live.params.RuntimeID }
