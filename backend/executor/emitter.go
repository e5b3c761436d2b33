package executor

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"
)

// ErrFinished is returned by Emit after the run's Done event (or Close):
// nothing may follow the end of a stream.
var ErrFinished = errors.New("run already finished")

// ErrAbandoned is returned by Emit after the host stopped reading the run.
var ErrAbandoned = errors.New("run abandoned by host")

// DefaultEmitterBuffer is the channel depth between an adapter and the host.
// It smooths bursts; beyond it the producer waits (no drops).
const DefaultEmitterBuffer = 16

// Emitter stamps and carries one run's events. It is the single place that
// enforces the stream invariants for every adapter: RunID and a strictly
// increasing Seq on every event, exactly one Done, nothing after it, and no
// silent drops.
type Emitter struct {
	runID RunID
	ch    chan Event
	now   func() time.Time

	mu       sync.Mutex // held across a send, so Seq order is channel order
	seq      int64
	finished bool

	abandoned   chan struct{}
	abandonOnce sync.Once

	panicMu  sync.Mutex
	panicMsg string
}

// NewEmitter makes the emitter for one run. buffer <= 0 means
// DefaultEmitterBuffer.
func NewEmitter(id RunID, buffer int) *Emitter {
	if buffer <= 0 {
		buffer = DefaultEmitterBuffer
	}
	return &Emitter{runID: id, ch: make(chan Event, buffer), now: time.Now, abandoned: make(chan struct{})}
}

// RunID is the run this emitter belongs to.
func (e *Emitter) RunID() RunID { return e.runID }

// Events is the run's event stream.
func (e *Emitter) Events() <-chan Event { return e.ch }

// Emit stamps ev and delivers it, waiting while the consumer is behind. It
// returns ErrFinished once the stream has ended, ErrAbandoned once the host
// stopped reading, or ctx's error; in those cases the event was not
// delivered and no sequence number was used.
func (e *Emitter) Emit(ctx context.Context, ev Event) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.finished {
		return ErrFinished
	}
	select {
	case <-e.abandoned:
		return ErrAbandoned
	default:
	}
	ev.RunID = e.runID
	ev.Seq = e.seq + 1
	if ev.TS == 0 {
		ev.TS = e.now().UnixMilli()
	}
	select {
	case e.ch <- ev:
	case <-ctx.Done():
		return ctx.Err()
	case <-e.abandoned:
		return ErrAbandoned
	}
	e.seq = ev.Seq
	if ev.Kind == KindDone {
		e.finished = true
		close(e.ch)
	}
	return nil
}

// Close ends the stream. Called before a Done was emitted, the host sees a
// stream that ended without a result and fails the run. Safe to call more
// than once and after Done.
func (e *Emitter) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.finished {
		e.finished = true
		close(e.ch)
	}
}

// Abandon tells blocked and future Emit calls that nobody is reading. The
// host calls it when it gives up on a run (after an abort grace period or at
// shutdown) so an adapter goroutine can never block forever.
func (e *Emitter) Abandon() { e.abandonOnce.Do(func() { close(e.abandoned) }) }

// Abandoned is closed once the host stopped reading.
func (e *Emitter) Abandoned() <-chan struct{} { return e.abandoned }

// Finished reports whether the stream has ended.
func (e *Emitter) Finished() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.finished
}

// LastSeq is the Seq of the last delivered event (0 before the first).
func (e *Emitter) LastSeq() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.seq
}

// Panicked returns the recovered panic of an adapter goroutine, if any.
func (e *Emitter) Panicked() string {
	e.panicMu.Lock()
	defer e.panicMu.Unlock()
	return e.panicMsg
}

// Go runs fn on a new goroutine owned by this run. A panic in fn is
// recovered: the run ends with a fatal error and Done{error}, and the rest
// of the process carries on. Adapters start every goroutine through Go.
func (e *Emitter) Go(fn func()) {
	go func() {
		defer e.Recover()
		fn()
	}()
}

// Recover is the deferred half of Go, for adapter code that must run on a
// goroutine it did not start (call as `defer em.Recover()`).
func (e *Emitter) Recover() {
	p := recover()
	if p == nil {
		return
	}
	msg := fmt.Sprint(p)
	e.panicMu.Lock()
	if e.panicMsg == "" {
		e.panicMsg = msg + "\n" + string(debug.Stack())
	}
	e.panicMu.Unlock()
	// Bounded: if the host has stopped reading, give up rather than hang.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if e.Emit(ctx, Error("panic", "runtime crashed: "+msg, true)) == nil {
		_ = e.Emit(ctx, Done(DoneError, "runtime crashed: "+msg))
	}
	e.Close()
}
