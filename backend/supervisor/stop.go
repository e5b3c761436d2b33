package supervisor

import (
	"context"
	"errors"
	"strings"

	"github.com/clawboo/desktop/backend/store"
)

// Who stopped a run. A person's stop is final: the run ends aborted with
// an error starting StoppedByYou, and nothing automatic (a retry, a
// successor, a quota resume, a follow-up) starts that work again until a
// person asks. Every other stop says its reason in words too.

// StoppedByYou starts the error of a run a person stopped.
const StoppedByYou = "Stopped by you"

// stopShutdown is the reason of a run Clawboo's own shutdown stopped.
const stopShutdown = "Stopped: Clawboo shut down"

// StoppedByPerson reports whether a person stopped run.
func StoppedByPerson(run store.Run) bool {
	return run.Status == store.RunAborted && strings.HasPrefix(run.Error, StoppedByYou)
}

// stopAsk records why a run is being stopped (the first reason wins) and
// asks it to stop.
func (l *liveRun) stopAsk(why string) {
	l.stopWhy.CompareAndSwap(nil, &why)
	l.requestAbort()
}

// stopReason is why the run was asked to stop ("" when nobody asked).
func (l *liveRun) stopReason() string {
	if p := l.stopWhy.Load(); p != nil {
		return *p
	}
	return ""
}

// AbortFor asks a live run to stop for a reason of the host's own (a
// routine's watchdog), said in words: the run's error is "Stopped: why".
// Abort is a person's stop.
func (s *Supervisor) AbortFor(ctx context.Context, id, why string) error {
	return s.abort(ctx, id, "Stopped: "+why)
}

// abort finds a live run and asks it to stop for why.
func (s *Supervisor) abort(ctx context.Context, id, why string) error {
	s.mu.Lock()
	l := s.live[id]
	s.mu.Unlock()
	if l == nil {
		if _, ok := s.unsaved(id); ok {
			return ErrRunFinished
		}
		if _, err := s.opts.Store.GetRun(ctx, id); errors.Is(err, store.ErrNotFound) {
			return ErrUnknownRun
		}
		return ErrRunFinished
	}
	if l.ended.Load() { // its done event is out; finishing is bookkeeping
		return ErrRunFinished
	}
	l.stopAsk(why)
	return nil
}

// stopWords is the error an aborted run ends with: who stopped it and,
// when the runtime was not reached or did not stop, what happened then.
// It is "" for a run nobody asked to stop.
func (l *liveRun) stopWords(o *outcome) string {
	why := l.stopReason()
	if why == "" {
		return ""
	}
	switch {
	case o.notStarted:
		return why + " before the runtime started."
	case o.abandoned:
		return why + "; the runtime did not stop in time and was abandoned."
	}
	return why + "."
}

// Handle is a handle on a live run of this process (false when it is not
// live here: finished, or never started).
func (s *Supervisor) Handle(id string) (*Handle, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.live[id]
	if l == nil {
		return nil, false
	}
	return &Handle{ID: id, live: l}, true
}
