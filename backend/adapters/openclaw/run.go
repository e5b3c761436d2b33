package openclaw

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
)

// run is one live run: it observes its session and binds the latest run
// id the Gateway uses for it (a message sent while the session is busy is
// acknowledged under its own id, closed at once, and answered by a later
// run of the session).
type run struct {
	a   *Adapter
	id  executor.RunID
	em  *executor.Emitter
	key string
	req executor.StartRequest

	sub       *bus.Subscription[Event]
	stopWatch func()
	abortC    chan struct{}

	mu    sync.Mutex
	ack   string // the run id chat.send acknowledged
	bound string
	// handedOff: the ack's run closed without a reply (the Gateway took
	// the message into another run of the session); recorded: the
	// Gateway wrote the message into the session; followed: bound to the
	// run that took it.
	handedOff, recorded, followed bool
	// ownFrom is where this run's own reply starts in text when it
	// follows another run: at the first model call after following.
	ownFrom  int
	started  map[string]bool // run ids whose lifecycle started
	gone     map[string]bool // run ids that closed without being our reply
	steers   map[string]*pendingSteer
	seen     map[string]bool // tool calls/results already emitted
	fatal    map[string]bool // fatal error messages already emitted
	text     strings.Builder // reply text, for the summary (capped)
	ended    bool
	aborting bool
}

type pendingSteer struct {
	done   chan struct{}
	result executor.SteerResult
}

func newRun(a *Adapter, req executor.StartRequest, key string) *run {
	return &run{
		a: a, id: req.RunID, em: req.Emitter, key: key, req: req, abortC: make(chan struct{}),
		ownFrom: -1, started: map[string]bool{}, gone: map[string]bool{}, steers: map[string]*pendingSteer{},
		seen: map[string]bool{}, fatal: map[string]bool{},
	}
}

// subscribe starts listening before anything is sent.
func (r *run) subscribe(ctx context.Context) error {
	r.sub = r.a.o.Client.Subscribe(1024)
	stop, err := r.a.o.Client.WatchSession(ctx, r.key)
	if err != nil {
		r.sub.Close()
		return fmt.Errorf("openclaw: %w", err)
	}
	r.stopWatch = stop
	r.a.track(r.key, r, true)
	return nil
}

// release undoes subscribe.
func (r *run) release() {
	r.sub.Close()
	if r.stopWatch != nil {
		r.stopWatch()
	}
	r.a.track(r.key, r, false)
}

// begin binds the acknowledged run id and starts observing.
func (r *run) begin(runID string) {
	r.mu.Lock()
	r.ack, r.bound = runID, runID
	r.mu.Unlock()
	r.a.claim(runID, r)
	r.em.Go(r.loop)
}

func (r *run) ID() executor.RunID            { return r.id }
func (r *run) Events() <-chan executor.Event { return r.em.Events() }

func (r *run) emit(ev executor.Event) bool {
	return r.em.Emit(context.Background(), ev) == nil
}

func (r *run) loop() {
	defer r.release()
	if !r.emit(executor.SessionStarted(r.key, r.req.Model)) {
		r.end(nil)
		return
	}
	var lost, backstop <-chan time.Time
	abortC := r.abortC
	for {
		select {
		case ev, ok := <-r.sub.C():
			if !ok {
				msg := "the Gateway client closed"
				if r.sub.Evicted() {
					msg = "fell behind the Gateway's events; the run's output is incomplete"
				}
				r.end([]executor.Event{executor.Error("openclaw_events_lost", msg, true), executor.Done(executor.DoneError, msg)})
				return
			}
			switch ev.Name {
			case EventDisconnected:
				lost = time.After(r.a.o.ReconnectGrace)
				r.emit(executor.Error("openclaw_disconnected", "lost the Gateway connection; reconnecting", false))
				continue
			case EventConnected:
				lost = nil
				continue
			}
			if r.handle(ev) {
				return
			}
		case <-abortC:
			abortC = nil
			backstop = time.After(r.a.o.AbortGrace)
		case <-backstop:
			r.end([]executor.Event{executor.Done(executor.DoneAborted, "aborted (the Gateway did not confirm the abort)")})
			return
		case <-lost:
			msg := "lost the Gateway connection and it did not come back"
			r.end([]executor.Event{executor.Error("openclaw_disconnected", msg, true), executor.Done(executor.DoneError, msg)})
			return
		case <-r.em.Abandoned():
			r.end(nil)
			return
		}
	}
}

// handle processes one event; true when the run has ended.
func (r *run) handle(ev Event) bool {
	m := MapFrame(ev)
	if m.SessionKey != r.key {
		return false
	}
	r.mu.Lock()
	if st := r.steers[m.RunID]; st != nil && m.RunID != "" {
		// A steer's own run: confirmation only, never output.
		if m.Terminal() {
			res := executor.SteerDelivered
			switch m.State {
			case "error":
				res = executor.SteerRejected
			case "aborted":
				res = executor.SteerRunEnded
			}
			r.settleSteerLocked(m.RunID, res)
		}
		r.mu.Unlock()
		return false
	}
	if m.Frame == "session.message" {
		if m.UserKey != "" && m.UserKey == r.ack+":user" {
			r.recorded = true
		}
		// Tool calls it carries belong to whatever run is active in the
		// session: ours only once our run has started (or was followed).
		ours := r.followed || (!r.handedOff && r.started[r.bound])
		r.mu.Unlock()
		if ours {
			r.emitAll(m)
		}
		return false
	}
	if (m.Frame != "chat" && m.Frame != "agent") || m.RunID == "" || r.gone[m.RunID] {
		r.mu.Unlock()
		return false
	}
	if m.RunID != r.bound {
		switch {
		case r.handedOff && !r.followed:
			if !r.recorded {
				r.mu.Unlock()
				return false // not picked up yet: an earlier run's frames
			}
			// The first run to move after the Gateway recorded our
			// message is the one answering it: the session's active
			// run (the message was injected) or the next one (queued).
			// It may be another of our runs' too; both follow it.
			r.followed = true
			r.a.claim(m.RunID, r)
		case !r.a.claim(m.RunID, r):
			r.mu.Unlock()
			return false // another of our runs in this session
		}
		r.bound = m.RunID // the latest run of the session wins
	}
	if m.State == "lifecycle/start" {
		r.started[m.RunID] = true
	}
	if r.followed && r.ownFrom < 0 && m.State == "lifecycle/model" && len(m.Events) > 0 {
		r.ownFrom = r.text.Len()
	}
	if m.Terminal() && m.State == "final" && !m.HasMessage && !r.started[m.RunID] {
		// The Gateway took the message into another run of the session.
		r.gone[m.RunID] = true
		if m.RunID == r.ack {
			r.handedOff = true
		}
		r.mu.Unlock()
		return false
	}
	followed := r.followed
	r.mu.Unlock()
	if m.Terminal() {
		r.end(r.finalEvents(m, followed))
		return true
	}
	r.emitAll(m)
	return false
}

// finalEvents are a terminal frame's events, the done's summary being this
// run's own reply: a followed run's reply may hold the earlier turn's text
// too, and this run's own is what streamed since it was followed.
func (r *run) finalEvents(m Mapped, followed bool) []executor.Event {
	evs := r.filter(m)
	last := evs[len(evs)-1]
	if last.Kind != executor.KindDone || (last.Summary != "" && !followed) {
		return evs
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	own := r.text.String()
	if followed && r.ownFrom >= 0 && r.ownFrom <= len(own) {
		own = own[r.ownFrom:]
	}
	if own != "" || last.Summary == "" {
		evs[len(evs)-1].Summary = strings.TrimSpace(own)
	}
	return evs
}

func (r *run) emitAll(m Mapped) {
	for _, ev := range r.filter(m) {
		r.emit(ev)
	}
}

// filter drops duplicates: assistant text comes from chat deltas (the
// agent assistant stream repeats it), each tool call and result once
// (agent tool stream, session.message and chat messages all carry them),
// and each fatal error message once.
func (r *run) filter(m Mapped) []executor.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]executor.Event, 0, len(m.Events))
	for _, ev := range m.Events {
		switch ev.Kind {
		case executor.KindTextDelta:
			if m.Frame == "agent" && ev.Channel == executor.ChannelAssistant {
				continue
			}
			if ev.Channel == executor.ChannelAssistant && r.text.Len() < 8<<10 {
				r.text.WriteString(ev.Text)
			}
		case executor.KindToolCall:
			if k := "call:" + ev.ToolCallID; ev.ToolCallID != "" {
				if r.seen[k] {
					continue
				}
				r.seen[k] = true
			}
		case executor.KindToolResult:
			if k := "result:" + ev.ToolCallID; ev.ToolCallID != "" {
				if r.seen[k] {
					continue
				}
				r.seen[k] = true
			}
		case executor.KindError:
			if ev.Fatal {
				if r.fatal[ev.Message] {
					continue
				}
				r.fatal[ev.Message] = true
			}
		}
		out = append(out, ev)
	}
	return out
}

// end emits the final events (Done last), cancels unread steers as
// run-ended and closes the stream.
func (r *run) end(evs []executor.Event) {
	r.mu.Lock()
	r.ended = true
	var cancel []string
	for id := range r.steers {
		cancel = append(cancel, id)
		r.settleSteerLocked(id, executor.SteerRunEnded)
	}
	r.mu.Unlock()
	for _, ev := range evs {
		r.emit(ev)
	}
	r.em.Close()
	if len(cancel) > 0 {
		go func() {
			ctx, c := context.WithTimeout(context.Background(), 10*time.Second)
			defer c()
			for _, id := range cancel {
				_ = r.a.o.Client.Request(ctx, "chat.abort", map[string]any{"sessionKey": r.key, "runId": id}, nil)
			}
		}()
	}
}

func (r *run) settleSteerLocked(id string, res executor.SteerResult) {
	st := r.steers[id]
	if st == nil {
		return
	}
	for k, p := range r.steers {
		if p == st {
			delete(r.steers, k)
		}
	}
	st.result = res
	close(st.done)
}

// Abort sends chat.abort for the bound run and always sessions.abort as
// a backstop; the run ends on the Gateway's chat aborted, or after
// AbortGrace without it.
func (r *run) Abort(ctx context.Context) error {
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		return nil
	}
	bound, first := r.bound, !r.aborting
	r.aborting = true
	r.mu.Unlock()
	if first {
		close(r.abortC)
	}
	c := r.a.o.Client
	err1 := c.Request(ctx, "chat.abort", map[string]any{"sessionKey": r.key, "runId": bound}, nil)
	err2 := c.Request(ctx, "sessions.abort", map[string]any{"key": r.key}, nil)
	if err1 != nil && err2 != nil {
		return fmt.Errorf("openclaw: abort: %w", errors.Join(err1, err2))
	}
	return nil
}

// SetModel switches the session's model (sessions.patch); later turns of
// the session use it.
func (r *run) SetModel(ctx context.Context, model string) error {
	if strings.TrimSpace(model) == "" {
		return errors.New("openclaw: empty model")
	}
	if err := r.a.o.Client.Request(ctx, "sessions.patch", map[string]any{"key": r.key, "model": model}, nil); err != nil {
		return fmt.Errorf("openclaw: set model: %w", err)
	}
	return nil
}

// Compiled on first use: a counted repetition compiles to a state per
// count, which cost start-up time as a package-level var.
var agentFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z0-9_-]{0,63}\.md$`) })

// WriteContext sets one of the agent's files (AGENTS.md, SOUL.md, …);
// a running session does not re-read it. Other keys are unsupported.
func (r *run) WriteContext(ctx context.Context, key, value string) error {
	if !agentFile().MatchString(key) {
		return fmt.Errorf("%w: OpenClaw context is an agent file such as AGENTS.md, not %q", executor.ErrUnsupported, key)
	}
	agent := strings.SplitN(strings.TrimPrefix(r.key, "agent:"), ":", 2)[0]
	if err := r.a.o.Client.Request(ctx, "agents.files.set", map[string]any{"agentId": agent, "name": key, "content": value}, nil); err != nil {
		return fmt.Errorf("openclaw: write %s: %w", key, err)
	}
	return nil
}

// Steer injects text into the live run (chat.send, queueMode "steer") and
// waits until the Gateway confirms the steer's own run (delivered) or the
// run ends first (run-ended; the steer is cancelled).
func (r *run) Steer(ctx context.Context, s executor.Steer) (executor.SteerResult, error) {
	if strings.TrimSpace(s.Text) == "" {
		return executor.SteerRejected, errors.New("openclaw: empty steer")
	}
	idem := newIdempotencyKey()
	st := &pendingSteer{done: make(chan struct{})}
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		return executor.SteerRunEnded, nil
	}
	// The steer's run id is its idempotency key; registered before the
	// send so none of its frames can reach the run's events.
	r.steers[idem] = st
	r.mu.Unlock()
	var ack sendAck
	err := r.a.o.Client.Request(ctx, "chat.send", map[string]any{
		"sessionKey": r.key, "message": s.Text, "idempotencyKey": idem, "deliver": false, "queueMode": "steer",
	}, &ack)
	if err == nil && ack.RunID != "" && ack.RunID != idem {
		r.mu.Lock()
		if _, pending := r.steers[idem]; pending {
			r.steers[ack.RunID] = st
		}
		r.mu.Unlock()
	}
	if err != nil {
		r.mu.Lock()
		if _, pending := r.steers[idem]; pending {
			delete(r.steers, idem)
			r.mu.Unlock()
			return executor.SteerRejected, fmt.Errorf("openclaw: steer: %w", err)
		}
		r.mu.Unlock()
	}
	wait := time.NewTimer(steerWait)
	defer wait.Stop()
	select {
	case <-st.done:
		return st.result, nil
	case <-wait.C:
		// Accepted but not confirmed yet: still cancelled as run-ended
		// if the run ends first.
		return executor.SteerQueued, nil
	case <-ctx.Done():
		return executor.SteerQueued, ctx.Err()
	}
}

// steerWait bounds how long Steer waits for the Gateway's confirmation.
var steerWait = 30 * time.Second
