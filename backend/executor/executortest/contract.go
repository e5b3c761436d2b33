// Package executortest is the one contract suite every runtime adapter
// passes, and the event helpers the adapters' own tests share (Collect,
// CollectWithin, OfKind, Done, Kinds, Describe) so none keeps a copy.
// Adapters add their own tests beside it; this suite checks only what the
// host relies on for every runtime.
//
// Invariant: the suite never depends on a particular adapter's wire format;
// a harness tells it how to make that adapter succeed and how to make it wait
// until aborted.
package executortest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

// Harness adapts one runtime to the contract suite.
type Harness struct {
	// New returns a fresh adapter for one sub-test.
	New func(t *testing.T) executor.Adapter
	// Request returns the start request for a scenario. The suite fills in
	// RunID and Emitter. Scenarios: "success" must end in done:success;
	// "hold" must stay open until aborted.
	Request func(t *testing.T, scenario string) executor.StartRequest
	// Timeout bounds each scenario (default 30 s).
	Timeout time.Duration
	// OwnsChildren says the adapter starts child processes (a CLI, a shell
	// command). Such an adapter must implement executor.Waiter, so a
	// quitting host can wait until they are reaped; the suite checks it
	// does, and that Wait returns once an aborted run has ended.
	OwnsChildren bool
}

var runCounter atomic.Int64

func (h Harness) timeout() time.Duration {
	if h.Timeout > 0 {
		return h.Timeout
	}
	return 30 * time.Second
}

// Start launches scenario on a fresh adapter and returns the run.
func (h Harness) Start(t *testing.T, ctx context.Context, scenario string) (executor.Run, executor.RunID) {
	t.Helper()
	a := h.New(t)
	req := h.Request(t, scenario)
	req.RunID = executor.RunID(fmt.Sprintf("contract-%d", runCounter.Add(1)))
	req.Emitter = executor.NewEmitter(req.RunID, 0)
	run, err := a.Start(ctx, req)
	if err != nil {
		t.Fatalf("start %s: %v", scenario, err)
	}
	return run, req.RunID
}

// CheckStream asserts the stream invariants and returns the Done event.
func CheckStream(t *testing.T, id executor.RunID, evs []executor.Event) executor.Event {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("empty stream: a run must end with done")
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: want strictly increasing from 1", i, ev.Seq)
		}
		if ev.RunID != id {
			t.Fatalf("event %d has run id %q, want %q", i, ev.RunID, id)
		}
		if ev.TS == 0 {
			t.Fatalf("event %d has no timestamp", i)
		}
		switch ev.Kind {
		case executor.KindStatus, executor.KindTextDelta, executor.KindToolCall, executor.KindToolResult,
			executor.KindCost, executor.KindError, executor.KindQuota, executor.KindPlan:
		case executor.KindDone:
			if i != len(evs)-1 {
				t.Fatalf("done at %d of %d: nothing may follow done", i, len(evs))
			}
		default:
			t.Fatalf("event %d has unknown kind %q", i, ev.Kind)
		}
	}
	last := evs[len(evs)-1]
	if last.Kind != executor.KindDone {
		t.Fatalf("stream ended with %q, not done", last.Kind)
	}
	return last
}

var knownIDs = map[executor.ID]bool{
	executor.ClaudeCode: true, executor.Codex: true, executor.Hermes: true,
	executor.Native: true, executor.OpenClaw: true, executor.Mock: true,
}

// knownID: one of the product's runtimes, or an ACP agent's ("acp-"
// and a name), whose ids are made from the catalog and a person's entries.
func knownID(id executor.ID) bool {
	name, acp := strings.CutPrefix(string(id), "acp-")
	return knownIDs[id] || acp && name != ""
}

// RunContract runs the suite.
func RunContract(t *testing.T, h Harness) {
	t.Run("identity", func(t *testing.T) {
		a := h.New(t)
		if !knownID(a.ID()) || a.ID() != h.New(t).ID() {
			t.Fatalf("id %q is not a stable known runtime id", a.ID())
		}
		if a.Name() == "" {
			t.Fatal("empty display name")
		}
	})
	t.Run("capabilities", func(t *testing.T) {
		c := h.New(t).Capabilities()
		switch c.RuntimeClass {
		case executor.WrappedOneShot, executor.ConnectedSubstrate, executor.NativeClass, executor.EphemeralTestDouble:
		default:
			t.Fatalf("runtime class %q", c.RuntimeClass)
		}
		if c.Models == nil {
			t.Fatal("models must be a list, not nil")
		}
		if c.ContextWindow < 0 {
			t.Fatal("negative context window")
		}
	})
	t.Run("health is bounded", func(t *testing.T) {
		start := time.Now()
		executor.ProbeHealth(context.Background(), h.New(t))
		if el := time.Since(start); el > executor.HealthTimeout+500*time.Millisecond {
			t.Fatalf("health took %v", el)
		}
	})
	t.Run("run id is the host's", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), h.timeout())
		defer cancel()
		run, id := h.Start(t, ctx, "success")
		if run.ID() != id {
			t.Fatalf("run id %q, want %q", run.ID(), id)
		}
		Collect(t, ctx, run)
	})
	t.Run("success ends in one done", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), h.timeout())
		defer cancel()
		run, id := h.Start(t, ctx, "success")
		done := CheckStream(t, id, Collect(t, ctx, run))
		if done.Reason != executor.DoneSuccess {
			t.Fatalf("done reason %q: %s", done.Reason, done.Summary)
		}
	})
	t.Run("slow consumer loses nothing", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), h.timeout())
		defer cancel()
		run, id := h.Start(t, ctx, "success")
		var evs []executor.Event
		for ev := range run.Events() {
			time.Sleep(2 * time.Millisecond)
			evs = append(evs, ev)
		}
		CheckStream(t, id, evs)
	})
	t.Run("abort ends in done aborted", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), h.timeout())
		defer cancel()
		run, id := h.Start(t, ctx, "hold")
		go func() {
			time.Sleep(50 * time.Millisecond)
			_ = run.Abort(ctx)
		}()
		done := CheckStream(t, id, Collect(t, ctx, run))
		if done.Reason != executor.DoneAborted {
			t.Fatalf("done reason %q after abort", done.Reason)
		}
		// Abort after the end is harmless.
		_ = run.Abort(ctx)
	})
	t.Run("children are waited for", func(t *testing.T) { h.checkWaiter(t) })
	t.Run("optional abilities answer honestly", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), h.timeout())
		defer cancel()
		a := h.New(t)
		caps := a.Capabilities()
		run, _ := h.Start(t, ctx, "hold")
		if err := run.SetModel(ctx, "some-model"); !caps.ModelChange && err != nil && !errors.Is(err, executor.ErrUnsupported) {
			t.Fatalf("set model: %v", err)
		}
		if err := run.WriteContext(ctx, "note", "value"); err != nil && !errors.Is(err, executor.ErrUnsupported) {
			t.Fatalf("write context: %v", err)
		}
		res, err := run.Steer(ctx, executor.Steer{Text: "hi", Mode: executor.SteerNext})
		if !caps.Steering && err == nil && res != executor.SteerRejected {
			t.Fatalf("steer on a runtime without steering: %q", res)
		}
		_ = run.Abort(ctx)
		Collect(t, ctx, run)
	})
}

// checkWaiter: an adapter that owns children is an executor.Waiter, and
// its Wait returns once its only run was aborted and ended (the host's
// shutdown order), within the scenario's timeout.
func (h Harness) checkWaiter(t *testing.T) {
	if !h.OwnsChildren {
		return
	}
	a := h.New(t)
	w, ok := a.(executor.Waiter)
	if !ok {
		t.Fatalf("%s starts child processes but is not an executor.Waiter: a quitting host could not wait for them", a.ID())
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout())
	defer cancel()
	req := h.Request(t, "hold")
	req.RunID = executor.RunID(fmt.Sprintf("contract-%d", runCounter.Add(1)))
	req.Emitter = executor.NewEmitter(req.RunID, 0)
	run, err := a.Start(ctx, req)
	if err != nil {
		t.Fatalf("start hold: %v", err)
	}
	// While the run lives, Wait must wait: a Wait that returns at once
	// (a run never counted) would let the host quit over live children.
	early, cancelEarly := context.WithTimeout(ctx, 200*time.Millisecond)
	err = w.Wait(early)
	cancelEarly()
	if err == nil {
		t.Fatalf("%s: Wait returned while a run was live", a.ID())
	}
	_ = run.Abort(ctx)
	CheckStream(t, req.RunID, Collect(t, ctx, run))
	if err := w.Wait(ctx); err != nil {
		t.Fatalf("wait after the run ended: %v", err)
	}
}
