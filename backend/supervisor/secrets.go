package supervisor

import (
	"context"
	"errors"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/redact"
)

// taskSecrets reads the values of the vault secrets the task names, for
// its runtime's environment; the Hider hides them in what the run
// records. A task naming none gets (nil, nil, nil).
func (l *liveRun) taskSecrets(ctx context.Context) (map[string]string, *redact.Hider, error) {
	names := l.task.task.Secrets
	if len(names) == 0 {
		return nil, nil, nil
	}
	if l.s.opts.TaskSecrets == nil {
		return nil, nil, errors.New("this task names secrets, but no vault is available")
	}
	vals, err := l.s.opts.TaskSecrets(ctx, names)
	if err != nil {
		return nil, nil, err
	}
	return vals, redact.Values(vals), nil
}

// take hides the task's secret values in an event, then observes and
// records it: every event a run stores or streams passes through here.
func (l *liveRun) take(o *outcome, ev executor.Event) {
	if h := l.hider; h != nil {
		ev = hideEvent(h, ev)
	}
	ev = scrubNames(ev)
	o.observe(ev)
	l.record(ev)
}

// hideEvent replaces secret values in every text field of an event. A
// value split across two text deltas is not seen; a runtime that prints
// its environment prints whole lines, which arrive in one event.
func hideEvent(h *redact.Hider, ev executor.Event) executor.Event {
	ev.Text = h.Hide(ev.Text)
	ev.Output = h.Hide(ev.Output)
	ev.Message = h.Hide(ev.Message)
	ev.Summary = h.Hide(ev.Summary)
	ev.Detail = h.Hide(ev.Detail)
	if len(ev.Input) > 0 {
		ev.Input = h.HideJSON(ev.Input)
	}
	return eachName(ev, h.Hide)
}

// scrubNames passes the short fields a runtime fills (tool and call names,
// model, code, session, a quota window's strings) through the key-shape
// redactor, as the adapters do for text: a runtime that puts a key there
// (a tool named after it, a session id made of it) stores it nowhere.
func scrubNames(ev executor.Event) executor.Event { return eachName(ev, redact.Secrets) }

// eachName applies f to every short string field of ev (only those set).
func eachName(ev executor.Event, f func(string) string) executor.Event {
	for _, p := range []*string{&ev.ToolCallID, &ev.Name, &ev.Model, &ev.Code, &ev.Session} {
		if *p != "" {
			*p = f(*p)
		}
	}
	if q := ev.Quota; q != nil {
		c := *q
		for _, p := range []*string{&c.Account, &c.Window, &c.Source, &c.Status} {
			if *p != "" {
				*p = f(*p)
			}
		}
		ev.Quota = &c
	}
	return ev
}
