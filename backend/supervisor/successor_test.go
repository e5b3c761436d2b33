package supervisor

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
)

// turnLimited ends its first `limited` runs at the turn limit, the rest with
// success, and records each run's session key and message.
func turnLimited(limited int) (*fake, func() []executor.StartRequest) {
	var mu sync.Mutex
	var seen []executor.StartRequest
	f := &fake{}
	f.start = func(ctx context.Context, req executor.StartRequest) (executor.Run, error) {
		mu.Lock()
		seen = append(seen, req)
		n := len(seen)
		mu.Unlock()
		reason := executor.DoneSuccess
		if n <= limited {
			reason = executor.DoneMaxTurns
		}
		go func() {
			_ = req.Emitter.Emit(context.Background(), executor.Done(reason, "step "+string(rune('0'+n))))
		}()
		return &fakeRun{f: f, em: req.Emitter}, nil
	}
	return f, func() []executor.StartRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]executor.StartRequest(nil), seen...)
	}
}

func waitTask(t *testing.T, e *taskEnv, id string, want board.Status) board.Task {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := e.board.Get(context.Background(), id)
		if err == nil && got.Status == want && got.RunID == nil {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("task stayed %+v (want %s)", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTurnLimitContinuesInASuccessor(t *testing.T) {
	f, seen := turnLimited(1)
	e := setupTasks(t, Options{}, f)
	task := e.task(t, board.NewTask{Title: "long research", Kind: board.Research})
	h, err := e.sup.Start(context.Background(), StartParams{RuntimeID: f.ID(), TaskID: task.ID, Message: "dig"})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := h.Wait(context.Background())
	if r.Status != store.RunSucceeded || *r.DoneReason != "max_turns" || h.Successor() == "" {
		t.Fatalf("%+v successor %q", r, h.Successor())
	}
	waitTask(t, e, task.ID, board.Done)
	reqs := seen()
	if len(reqs) != 2 || reqs[0].SessionKey != "task:"+task.ID || reqs[1].SessionKey != reqs[0].SessionKey ||
		!strings.Contains(reqs[1].Message, "handoff note") {
		t.Fatalf("%+v", reqs)
	}
	cs, _ := e.board.Comments(context.Background(), task.ID)
	var noted bool
	for _, c := range cs {
		noted = noted || strings.Contains(c.Body, "turn limit")
	}
	if !noted {
		t.Fatalf("no turn-limit comment: %+v", cs)
	}
}

func TestSuccessorsAreBounded(t *testing.T) {
	f, seen := turnLimited(100)
	e := setupTasks(t, Options{}, f)
	task := e.task(t, board.NewTask{Title: "never converges", Kind: board.Research})
	if _, err := e.sup.Start(context.Background(), StartParams{RuntimeID: f.ID(), TaskID: task.ID}); err != nil {
		t.Fatal(err)
	}
	// The last allowed successor also stops at its turn limit; the task
	// then ends as a success without changes would (done, no worktree).
	waitTask(t, e, task.ID, board.Done)
	if n := len(seen()); n != 1+MaxSuccessors {
		t.Fatalf("%d runs, want %d", n, 1+MaxSuccessors)
	}
}
