package executor

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func drain(ch <-chan Event) []Event {
	var out []Event
	for ev := range ch {
		out = append(out, ev)
	}
	return out
}

func TestEmitterStampsAndEndsAtDone(t *testing.T) {
	e := NewEmitter("r1", 1)
	ctx := context.Background()
	done := make(chan []Event)
	go func() { done <- drain(e.Events()) }()
	for i := 0; i < 100; i++ {
		if err := e.Emit(ctx, Text("x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Emit(ctx, Done(DoneSuccess, "ok")); err != nil {
		t.Fatal(err)
	}
	if err := e.Emit(ctx, Text("late")); !errors.Is(err, ErrFinished) {
		t.Fatalf("emit after done: %v", err)
	}
	e.Close() // harmless after Done
	evs := <-done
	if len(evs) != 101 {
		t.Fatalf("got %d events", len(evs))
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) || ev.RunID != "r1" || ev.TS == 0 {
			t.Fatalf("event %d badly stamped: %+v", i, ev)
		}
	}
	if evs[100].Kind != KindDone || e.LastSeq() != 101 || !e.Finished() {
		t.Fatal("done not last")
	}
}

func TestEmitterConcurrentProducersKeepOrder(t *testing.T) {
	e := NewEmitter("r", 4)
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				_ = e.Emit(ctx, Text("x"))
			}
		}()
	}
	got := make(chan []Event)
	go func() { got <- drain(e.Events()) }()
	wg.Wait()
	e.Close()
	evs := <-got
	if len(evs) != 4000 {
		t.Fatalf("dropped events: %d", len(evs))
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("seq %d at %d", ev.Seq, i)
		}
	}
}

func TestEmitterSlowConsumerSlowsProducer(t *testing.T) {
	e := NewEmitter("r", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if err := e.Emit(ctx, Text("a")); err != nil { // fills the buffer
		t.Fatal(err)
	}
	if err := e.Emit(ctx, Text("b")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want blocking until deadline, got %v", err)
	}
	// The failed emit used no sequence number: the next event is seq 2.
	<-e.Events()
	if err := e.Emit(context.Background(), Done(DoneSuccess, "")); err != nil {
		t.Fatal(err)
	}
	if ev := <-e.Events(); ev.Seq != 2 || ev.Kind != KindDone {
		t.Fatalf("got %+v", ev)
	}
}

func TestEmitterAbandonUnblocks(t *testing.T) {
	e := NewEmitter("r", 1)
	ctx := context.Background()
	_ = e.Emit(ctx, Text("a"))
	errc := make(chan error)
	go func() { errc <- e.Emit(ctx, Text("b")) }()
	time.Sleep(10 * time.Millisecond)
	e.Abandon()
	if err := <-errc; !errors.Is(err, ErrAbandoned) {
		t.Fatalf("got %v", err)
	}
	if err := e.Emit(ctx, Text("c")); !errors.Is(err, ErrAbandoned) {
		t.Fatalf("got %v", err)
	}
	e.Close()
	if evs := drain(e.Events()); len(evs) != 1 || evs[0].Seq != 1 {
		t.Fatalf("got %+v", evs)
	}
}

func TestEmitterGoRecoversPanic(t *testing.T) {
	e := NewEmitter("r", 0)
	e.Go(func() {
		_ = e.Emit(context.Background(), Text("before"))
		_ = *nilCounter() // a real runtime fault, not an explicit panic()
	})
	evs := drain(e.Events())
	if len(evs) != 3 {
		t.Fatalf("got %+v", evs)
	}
	if evs[1].Kind != KindError || !evs[1].Fatal || evs[1].Code != "panic" {
		t.Fatalf("no fatal error: %+v", evs[1])
	}
	if evs[2].Kind != KindDone || evs[2].Reason != DoneError || !strings.Contains(evs[2].Summary, "runtime crashed") {
		t.Fatalf("no done: %+v", evs[2])
	}
	if !strings.Contains(e.Panicked(), "nil pointer dereference") {
		t.Fatalf("panic not kept: %q", e.Panicked())
	}
}

// nilCounter hides its nil from static analysis, so the test can fault.
func nilCounter() *int { return nil }

func TestEmitterPanicAfterDoneStaysFinished(t *testing.T) {
	e := NewEmitter("r", 0)
	wait := make(chan struct{})
	e.Go(func() {
		defer close(wait)
		_ = e.Emit(context.Background(), Done(DoneSuccess, "ok"))
		panic("late")
	})
	evs := drain(e.Events())
	<-wait
	if len(evs) != 1 || evs[0].Kind != KindDone || evs[0].Reason != DoneSuccess {
		t.Fatalf("got %+v", evs)
	}
}

type slowHealth struct{ Adapter }

func (slowHealth) Health(ctx context.Context) Health {
	<-ctx.Done()
	time.Sleep(10 * time.Millisecond)
	return Health{OK: true}
}

type panicHealth struct{ Adapter }

func (panicHealth) Health(context.Context) Health { panic("x") }

func TestProbeHealthBoundsAndRecovers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if h := ProbeHealth(ctx, slowHealth{}); h.OK || h.Message != "health check timed out" {
		t.Fatalf("got %+v", h)
	}
	if h := ProbeHealth(context.Background(), panicHealth{}); h.OK {
		t.Fatalf("got %+v", h)
	}
	time.Sleep(20 * time.Millisecond) // let the slow probe goroutine return
}

type named struct {
	Adapter
	id ID
}

func (n named) ID() ID { return n.id }

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	if err := r.Register(named{id: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(named{id: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(named{id: "a"}); err == nil {
		t.Fatal("duplicate accepted")
	}
	if _, ok := r.Get("a"); !ok {
		t.Fatal("missing a")
	}
	if _, ok := r.Get("c"); ok {
		t.Fatal("phantom c")
	}
	l := r.List()
	if len(l) != 2 || l[0].ID() != "a" {
		t.Fatal("not sorted")
	}
}
