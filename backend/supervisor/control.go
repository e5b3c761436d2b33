package supervisor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clawboo/desktop/backend/executor"
)

// Live control of a run: a steer (a message read at the next turn
// boundary) and a model change for later turns. Both reach the runtime's
// own Run; a runtime that cannot do either says so with
// executor.ErrUnsupported. A panicking adapter fails only the call.

// ErrNotStarted is a control call on a run whose runtime is still
// launching.
var ErrNotStarted = errors.New("the run is still starting; try again in a moment")

// maxSteer bounds a steer's text (it becomes a user message).
const maxSteer = 64 << 10

// control finds a live, started run.
func (s *Supervisor) control(ctx context.Context, id string) (executor.Run, error) {
	s.mu.Lock()
	l := s.live[id]
	s.mu.Unlock()
	if l == nil {
		if _, ok := s.unsaved(id); ok {
			return nil, ErrRunFinished
		}
		if _, err := s.opts.Store.GetRun(ctx, id); err != nil {
			return nil, ErrUnknownRun
		}
		return nil, ErrRunFinished
	}
	select {
	case <-l.finished:
		return nil, ErrRunFinished
	default:
	}
	l.mu.Lock()
	rt := l.rt
	l.mu.Unlock()
	if rt == nil {
		return nil, ErrNotStarted
	}
	return rt, nil
}

// Steer sends text into a live run. A finished run answers run-ended.
func (s *Supervisor) Steer(ctx context.Context, id string, st executor.Steer) (res executor.SteerResult, err error) {
	if strings.TrimSpace(st.Text) == "" || len(st.Text) > maxSteer {
		return executor.SteerRejected, fmt.Errorf("a steer needs text of at most %d bytes", maxSteer)
	}
	rt, err := s.control(ctx, id)
	if errors.Is(err, ErrRunFinished) {
		return executor.SteerRunEnded, nil
	}
	if err != nil {
		return "", err
	}
	defer func() {
		if p := recover(); p != nil {
			res, err = executor.SteerRejected, fmt.Errorf("runtime error while steering: %v", p)
		}
	}()
	return rt.Steer(ctx, st)
}

// SetModel changes the model a live run uses for its later turns.
func (s *Supervisor) SetModel(ctx context.Context, id, model string) (err error) {
	if strings.TrimSpace(model) == "" || len(model) > 200 {
		return errors.New("model must be a model id")
	}
	rt, err := s.control(ctx, id)
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("runtime error while changing the model: %v", p)
		}
	}()
	return rt.SetModel(ctx, model)
}
