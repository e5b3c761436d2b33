package openclaw

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
)

// Activity is one tool event from an OpenClaw run Clawboo did not start
// (a cron job, a chat channel, the Gateway's own UI), mapped by MapFrame.
type Activity struct {
	TS         int64  `json:"ts"`
	SessionKey string `json:"sessionKey"`
	// Agent is the Gateway agent ("main"), from the session key.
	Agent string `json:"agent"`
	RunID string `json:"runId,omitempty"` // the Gateway's run id
	// Event is a tool-call or tool-result (RunID/Seq unset).
	Event executor.Event `json:"event"`
}

// Watcher keeps a bounded feed of tool activity from runs this adapter did
// not start.
type Watcher struct {
	Client *Client
	// Ours reports sessions our own runs are live in (their activity is
	// in the runs' events already).
	Ours func() map[string]bool
	// Keep is how many recent entries Recent returns (default 200).
	Keep int
	// OnActivity, when set, is also given each new entry, synchronously.
	OnActivity func(Activity)

	feed *bus.Broker[Activity]
	once sync.Once

	mu     sync.Mutex
	recent []Activity
	seen   map[string]bool
}

func (w *Watcher) init() {
	w.once.Do(func() {
		if w.Keep <= 0 {
			w.Keep = 200
		}
		w.feed = bus.New[Activity](time.Second)
		w.seen = map[string]bool{}
	})
}

// Subscribe receives new activity (lossy for a slow reader; re-read
// Recent).
func (w *Watcher) Subscribe(buf int) *bus.Subscription[Activity] {
	w.init()
	return w.feed.Subscribe(buf)
}

// Recent is the latest activity, oldest first.
func (w *Watcher) Recent() []Activity {
	w.init()
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Activity(nil), w.recent...)
}

// Start subscribes at once and watches in the background until ctx ends
// or the client closes; wait blocks until it has stopped.
func (w *Watcher) Start(ctx context.Context) (wait func()) {
	w.init()
	sub := w.Client.Subscribe(1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.run(ctx, sub)
	}()
	return func() { <-done }
}

func (w *Watcher) run(ctx context.Context, sub *bus.Subscription[Event]) {
	defer w.feed.Close()
	defer func() { sub.Close() }()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-sub.C():
			if !ok {
				if sub.Evicted() {
					sub = w.Client.Subscribe(1024)
					continue
				}
				return
			}
			w.Observe(ev)
		}
	}
}

// Observe maps one Gateway event into the feed.
//
// Tool events of runs this connection did not start arrive as
// "session.tool" (the Gateway's copy of the agent tool stream for session
// subscribers); they are mapped as the agent frames they carry.
func (w *Watcher) Observe(ev Event) {
	w.init()
	if ev.Name == "session.tool" {
		ev.Name = "agent"
	}
	m := MapFrame(ev)
	if m.SessionKey == "" || len(m.Events) == 0 {
		return
	}
	if w.Ours != nil && w.Ours()[m.SessionKey] {
		return
	}
	for _, e := range m.Events {
		if e.Kind != executor.KindToolCall && e.Kind != executor.KindToolResult {
			continue
		}
		k := string(e.Kind) + ":" + m.SessionKey + ":" + e.ToolCallID
		w.mu.Lock()
		if e.ToolCallID != "" && w.seen[k] {
			w.mu.Unlock()
			continue
		}
		if len(w.seen) > 4096 {
			w.seen = map[string]bool{}
		}
		w.seen[k] = true
		a := Activity{TS: time.Now().UnixMilli(), SessionKey: m.SessionKey, Agent: agentOf(m.SessionKey), RunID: m.RunID, Event: e}
		w.recent = append(w.recent, a)
		if len(w.recent) > w.Keep {
			w.recent = append(w.recent[:0:0], w.recent[len(w.recent)-w.Keep:]...)
		}
		w.mu.Unlock()
		w.feed.Publish(a)
		if w.OnActivity != nil {
			w.OnActivity(a)
		}
	}
}

// agentOf reads the agent id out of "agent:<id>:<name>".
func agentOf(key string) string {
	if rest, ok := strings.CutPrefix(key, "agent:"); ok {
		return strings.SplitN(rest, ":", 2)[0]
	}
	return ""
}
