package supervisor

import (
	"context"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

// startWorking starts a mock run that works (silently) until stopped and
// waits until it is running.
func startWorking(t *testing.T, e *env, p StartParams) *Handle {
	t.Helper()
	if p.RuntimeID == "" {
		p.RuntimeID = executor.Mock
	}
	h, err := e.sup.Start(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 20*time.Second, "the run to be running", func() bool {
		r, ok := e.sup.Live(h.ID)
		return ok && r.Status == store.RunRunning
	})
	return h
}

func waitRun(t *testing.T, h *Handle) store.Run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A person's stop ends the run aborted with "Stopped by you" (before this,
// the error was empty and nothing told it from a watchdog's); a host's
// stop says its own reason; every aborted run says why.
func TestStopSaysWhoStopped(t *testing.T) {
	e := setup(t, Options{})
	h := startWorking(t, e, StartParams{Message: "!ok working\n!silent 600000"})
	if err := e.sup.Abort(context.Background(), h.ID); err != nil {
		t.Fatal(err)
	}
	r := waitRun(t, h)
	if r.Status != store.RunAborted || r.Error != "Stopped by you." || !StoppedByPerson(r) {
		t.Fatalf("a person's stop: %s %q", r.Status, r.Error)
	}
	if got, _ := e.st.GetRun(context.Background(), h.ID); got.Error != "Stopped by you." {
		t.Fatalf("the ledger says %q", got.Error)
	}

	h = startWorking(t, e, StartParams{Message: "!silent 600000"})
	if err := e.sup.AbortFor(context.Background(), h.ID, "the routine's watchdog ended the run"); err != nil {
		t.Fatal(err)
	}
	if r := waitRun(t, h); r.Status != store.RunAborted || r.Error != "Stopped: the routine's watchdog ended the run." || StoppedByPerson(r) {
		t.Fatalf("a host's stop: %s %q", r.Status, r.Error)
	}

	h, err := e.sup.Start(context.Background(), StartParams{RuntimeID: executor.Mock, Message: "!slowstart 5000\n!ok late"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.sup.Abort(context.Background(), h.ID); err != nil {
		t.Fatal(err)
	}
	if r := waitRun(t, h); r.Status != store.RunAborted || r.Error != "Stopped by you before the runtime started." {
		t.Fatalf("a stop before the start: %s %q", r.Status, r.Error)
	}
}

// Clawboo's shutdown is not a person's stop.
func TestShutdownStopSaysSo(t *testing.T) {
	e := setup(t, Options{})
	h := startWorking(t, e, StartParams{Message: "!silent 600000"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := e.sup.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if r := waitRun(t, h); r.Status != store.RunAborted || r.Error != "Stopped: Clawboo shut down." || StoppedByPerson(r) {
		t.Fatalf("%s %q", r.Status, r.Error)
	}
}

// A task whose run a person stopped goes back to todo with "Stopped by
// you." (not "did not finish"), its work kept.
func TestStoppedTaskSaysStoppedByYou(t *testing.T) {
	e := setupTasks(t, Options{})
	task := e.task(t, board.NewTask{Title: "long", Kind: board.Research})
	h := startWorking(t, e.env, StartParams{TaskID: task.ID, Message: "!ok working\n!silent 600000"})
	if err := e.sup.Abort(context.Background(), h.ID); err != nil {
		t.Fatal(err)
	}
	waitRun(t, h)
	got := h.Task()
	if got == nil || got.Status != board.Todo {
		t.Fatalf("task after the stop: %+v", got)
	}
	// The card still says whose it is, so Run again needs no choosing.
	if got.AssigneeRuntime == nil || *got.AssigneeRuntime == "" {
		t.Fatalf("a person's stop dropped the assignee: %+v", got)
	}
	cs, err := e.board.Comments(context.Background(), task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 || cs[len(cs)-1].Body != "Stopped by you." {
		t.Fatalf("comments: %+v", cs)
	}
}
