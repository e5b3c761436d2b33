package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/quota"
	"github.com/clawboo/desktop/backend/store"
)

// streamEvent is one named event of the lifecycle stream; the zero value
// says a subscription was dropped, which ends the stream.
type streamEvent struct {
	name string
	data []byte
}

// forward relays sub's values to out as the events encode names (an
// empty name skips a value) until ctx ends, closing sub then. A dropped
// subscription (too slow to keep up) sends the zero streamEvent: the
// stream ends and its client re-reads what it shows when it reconnects.
func forward[T any](ctx context.Context, sub *bus.Subscription[T], out chan<- streamEvent, encode func(T) (string, []byte)) {
	go func() {
		defer sub.Close()
		for {
			var ev streamEvent
			select {
			case v, ok := <-sub.C():
				if ok {
					if ev.name, ev.data = encode(v); ev.name == "" {
						continue
					}
				}
			case <-ctx.Done():
				return
			}
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
			if ev.name == "" {
				return
			}
		}
	}()
}

// named encodes every value as JSON under one event name.
func named[T any](name string) func(T) (string, []byte) {
	return func(v T) (string, []byte) {
		b, err := json.Marshal(v)
		if err != nil {
			return "", nil
		}
		return name, b
	}
}

// liveUpdates streams what list pages show: "run" events carrying a run as
// GET /api/runs/{id} returns it, whenever a run is created, starts or ends;
// "runtimes" events carrying GET /api/runtimes' body whenever it changed;
// "task" and "comment" events from the board; "budget" events; "approval"
// events carrying {kind: requested|resolved, approval}; "schedule" events
// carrying {schedule} or {deleted: id} and "schedule-fire" events {fire}
// (docs/routines.md); "quota" events; "devices" events (a phone paired,
// renamed or removed: the list is read again). Every subscription is made before
// the first byte is written, so a client that re-reads on open misses
// nothing; a client too slow to keep up is disconnected and re-reads what
// it shows when it reconnects.
func (a *API) liveUpdates(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	out := make(chan streamEvent)
	a.followLive(ctx, out)
	pump(ctx, w, out, nil)
}

// pump writes out's events to w as Server-Sent Events, with keep-alive
// comments, until ctx ends, end closes (nil: never), the client goes, or a
// subscription was dropped (an event with no name): the client re-reads
// what it shows when it reconnects.
func pump(ctx context.Context, w http.ResponseWriter, out <-chan streamEvent, end <-chan struct{}) {
	sse := newSSE(w)
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	for {
		select {
		case ev := <-out:
			if ev.name == "" {
				return
			}
			sse.event(0, ev.name, ev.data)
		case <-ping.C:
			sse.comment("ping")
		case <-end:
			return
		case <-ctx.Done():
			return
		}
		if sse.flush() != nil {
			return
		}
	}
}

// followLive subscribes to every source of the lifecycle stream (before
// anything is written) and forwards them all to out.
func (a *API) followLive(ctx context.Context, out chan<- streamEvent) {
	forward(ctx, a.opts.Supervisor.Updates.Subscribe(256), out, named[store.Run]("run"))
	if a.opts.RuntimesChanged != nil {
		var last []byte
		forward(ctx, a.opts.RuntimesChanged.Subscribe(1), out, func(struct{}) (string, []byte) {
			b, err := json.Marshal(a.opts.Catalog.List(ctx))
			if err != nil || bytes.Equal(b, last) {
				return "", nil
			}
			last = b
			return "runtimes", b
		})
	}
	if a.opts.BoardEvents != nil {
		forward(ctx, a.opts.BoardEvents.Subscribe(256), out, func(ev board.Event) (string, []byte) {
			b, _ := json.Marshal(ev)
			return ev.Kind, b // "task" or "comment"
		})
	}
	if a.opts.BudgetEvents != nil {
		forward(ctx, a.opts.BudgetEvents.Subscribe(64), out, named[budget.Event]("budget"))
	}
	if a.opts.Approvals != nil {
		forward(ctx, a.opts.Approvals.Subscribe(64), out, named[approval.Event]("approval"))
	}
	if a.opts.Routines != nil {
		forward(ctx, a.opts.Routines.Events.Subscribe(64), out, scheduleEvent)
	}
	if a.opts.QuotaEvents != nil {
		forward(ctx, a.opts.QuotaEvents.Subscribe(64), out, named[quota.Event]("quota"))
	}
	if a.opts.Devices != nil {
		forward(ctx, a.opts.Devices.Changed.Subscribe(4), out, named[struct{}]("devices"))
	}
}
