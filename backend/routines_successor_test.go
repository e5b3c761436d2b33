package backend

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/routines"
	"github.com/clawboo/desktop/backend/supervisor"
)

// turnsAdapter ends its first `limited` runs at the turn limit, the rest
// with success after a longer while (longer than the fire's poll).
type turnsAdapter struct {
	limited int32
	n       atomic.Int32
}

const turnsRuntime = executor.ID("routine-turns")

func (a *turnsAdapter) ID() executor.ID { return turnsRuntime }
func (a *turnsAdapter) Name() string    { return "turns" }
func (a *turnsAdapter) Capabilities() executor.Capabilities {
	return executor.Capabilities{Models: []string{}}
}
func (a *turnsAdapter) Health(context.Context) executor.Health { return executor.Health{OK: true} }
func (a *turnsAdapter) Start(_ context.Context, req executor.StartRequest) (executor.Run, error) {
	reason, took := executor.DoneSuccess, 3*time.Second
	if a.n.Add(1) <= a.limited {
		reason, took = executor.DoneMaxTurns, 200*time.Millisecond
	}
	em := req.Emitter
	em.Go(func() {
		time.Sleep(took)
		_ = em.Emit(context.Background(), executor.Done(reason, "session "+string(reason)))
	})
	return turnsRun{em: em}, nil
}

type turnsRun struct{ em *executor.Emitter }

func (r turnsRun) ID() executor.RunID                                 { return r.em.RunID() }
func (r turnsRun) Events() <-chan executor.Event                      { return r.em.Events() }
func (r turnsRun) Abort(context.Context) error                        { return nil }
func (r turnsRun) SetModel(context.Context, string) error             { return nil }
func (r turnsRun) WriteContext(context.Context, string, string) error { return nil }
func (r turnsRun) Steer(context.Context, executor.Steer) (executor.SteerResult, error) {
	return executor.SteerRejected, nil
}

// A fire whose task reaches its turn limit twice ends when the task's
// last session does: success, not a failure while a successor still runs.
func TestRoutineFireWaitsForEverySuccessor(t *testing.T) {
	if supervisor.MaxSuccessors < 2 {
		t.Skip("fewer successors than this test needs")
	}
	rg := newRoutineRig(t, map[string]string{})
	a := &turnsAdapter{limited: 2}
	if err := rg.b.Registry.Register(a); err != nil {
		t.Fatal(err)
	}
	if err := rg.b.Store.InsertAgent(context.Background(), "long-bot", "Long", string(turnsRuntime), time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
	sc := rg.create(t, "long-bot", map[string]any{"title": "Long research", "kind": "research"})
	f := rg.runNow(t, sc.ID, time.Minute)
	if got := a.n.Load(); got != 3 {
		t.Fatalf("%d sessions, want 3", got)
	}
	if f.Outcome != routines.OutcomeSuccess || f.TaskID == nil || f.Reason != "task done" {
		t.Fatalf("fire %+v", f)
	}
	task, err := rg.b.Board.Get(context.Background(), *f.TaskID)
	if err != nil || task.Status != board.Done || task.RunID != nil {
		t.Fatalf("task %+v %v", task, err)
	}
	if got := rg.get(t, sc.ID); got.Failures != 0 || *got.LastOutcome != routines.OutcomeSuccess {
		t.Fatalf("schedule %+v", got)
	}
}
