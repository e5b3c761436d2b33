// Package openclaw drives a live OpenClaw Gateway (protocol 4) over its
// WebSocket: a persistent, self-healing client, the openclaw runtime
// adapter, the pure frame mapper, the activity watcher, the exec
// approvals relay, and the Service that runs them on one connection for
// the backend (settings precedence, the OpenClaw card, MCP registration).
//
// Invariants:
//   - OpenClaw is a connected substrate: the Gateway owns its agents,
//     folders and channels. The adapter sends messages, watches events,
//     steers and aborts; it creates no worktree and attaches no MCP server
//     (Capabilities say so, and the task runner refuses it before claiming).
//   - The device identity is an Ed25519 key kept in one 0600 file under the
//     identity folder; every handshake signs the v3 payload over the
//     Gateway's challenge nonce. The token is sent only in the connect
//     request: never in an event, a log line, an error or State.
//   - A run subscribes to the Gateway's events before chat.send, so no frame
//     of its run can be missed while connected, and ends with exactly one
//     Done: the Gateway's chat final/aborted/error for the bound run, the
//     abort backstop, or a lost connection that did not come back.
//   - Frames of a steer's own run never reach the run's events; a steer is
//     delivered once the Gateway confirms that run, and reported run-ended
//     (and cancelled) when the run ends first.
//   - The Service reaches the settings table, the vault, the approvals
//     queue and the listen address only through ServiceOptions: this
//     package imports no store, vault or approval code.
//   - Every buffer is bounded: incoming frames (32 MiB), subscriber queues
//     (a subscriber that falls behind is evicted and its run fails), tool
//     results (MaxToolResult characters plus a note).
package openclaw

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

// Options configure the adapter.
type Options struct {
	Client *Client
	// AgentFor maps a Clawboo agent to a Gateway agent id; nil or "" uses
	// the Gateway's default agent (agents.list defaultId).
	AgentFor func(ctx context.Context, agentID string) string
	Log      *slog.Logger
	// AbortGrace is how long Abort waits for the Gateway's chat aborted
	// before ending the run itself (default 10 s).
	AbortGrace time.Duration
	// ReconnectGrace is how long a run survives a lost connection
	// (default 60 s).
	ReconnectGrace time.Duration
}

// Adapter is the openclaw runtime.
type Adapter struct {
	o Options

	mu           sync.Mutex
	defaultAgent string
	live         map[string]int  // session key → live runs
	claimed      map[string]*run // Gateway run id → the run bound to it
}

// New makes the adapter.
func New(o Options) *Adapter {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.AbortGrace <= 0 {
		o.AbortGrace = 10 * time.Second
	}
	if o.ReconnectGrace <= 0 {
		o.ReconnectGrace = 60 * time.Second
	}
	return &Adapter{o: o, live: map[string]int{}, claimed: map[string]*run{}}
}

// Client is the Gateway connection the adapter uses.
func (a *Adapter) Client() *Client { return a.o.Client }

// ID implements executor.Adapter.
func (a *Adapter) ID() executor.ID { return executor.OpenClaw }

// Name implements executor.Adapter.
func (a *Adapter) Name() string { return "OpenClaw" }

// Capabilities implements executor.Adapter.
func (a *Adapter) Capabilities() executor.Capabilities {
	return executor.Capabilities{
		Streaming: true, MCP: false, Worktrees: false, Resume: true, ToolApproval: true,
		Steering: true, ModelChange: true, RuntimeClass: executor.ConnectedSubstrate, Models: []string{},
	}
}

// Health is healthy when the Gateway answers agents.list within the bound.
func (a *Adapter) Health(ctx context.Context) executor.Health {
	if a.o.Client == nil {
		return executor.Health{OK: false, Message: "no Gateway client"}
	}
	ctx, cancel := context.WithTimeout(ctx, executor.HealthTimeout)
	defer cancel()
	var out agentsList
	if err := a.o.Client.Request(ctx, "agents.list", nil, &out); err != nil {
		st := a.o.Client.State()
		msg := "the Gateway did not answer: " + err.Error()
		switch st.Status {
		case StatusUnconfigured:
			msg = "no Gateway URL is set (Settings → OpenClaw, or CLAWBOO_OPENCLAW_URL)"
		case StatusStarting:
			msg = "the Gateway is starting"
		}
		return executor.Health{OK: false, Message: msg}
	}
	a.mu.Lock()
	a.defaultAgent = out.DefaultID
	a.mu.Unlock()
	return executor.Health{OK: true, Message: fmt.Sprintf("%d agent(s), default %q", len(out.Agents), out.DefaultID)}
}

type agentsList struct {
	DefaultID string `json:"defaultId"`
	MainKey   string `json:"mainKey"`
	Agents    []struct {
		ID        string `json:"id"`
		Workspace string `json:"workspace"`
		Model     struct {
			Primary string `json:"primary"`
		} `json:"model"`
	} `json:"agents"`
}

// gatewayAgent is the Gateway agent a run of agentID talks to.
func (a *Adapter) gatewayAgent(ctx context.Context, agentID string) string {
	if a.o.AgentFor != nil {
		if id := a.o.AgentFor(ctx, agentID); id != "" {
			return id
		}
	}
	a.mu.Lock()
	def := a.defaultAgent
	a.mu.Unlock()
	if def != "" {
		return def
	}
	var out agentsList
	if err := a.o.Client.Request(ctx, "agents.list", nil, &out); err == nil && out.DefaultID != "" {
		a.mu.Lock()
		a.defaultAgent = out.DefaultID
		a.mu.Unlock()
		return out.DefaultID
	}
	return "main"
}

var unsafeKey = regexp.MustCompile(`[^a-z0-9_-]+`)

// SessionKeyFor is the Gateway session a conversation uses:
// "agent:<gatewayAgent>:clawboo-<conversation>", so Clawboo's sessions
// never collide with the Gateway's own (its main session, channels).
func SessionKeyFor(gatewayAgent, conversation string, run executor.RunID) string {
	c := strings.ToLower(conversation)
	if c == "" {
		c = "run-" + strings.ToLower(string(run))
	}
	slug := strings.Trim(unsafeKey.ReplaceAllString(c, "-"), "-")
	if len(slug) > 60 || slug != c {
		sum := sha256.Sum256([]byte(conversation))
		if len(slug) > 60 {
			slug = slug[:60]
		}
		slug += "-" + hex.EncodeToString(sum[:4])
	}
	return "agent:" + gatewayAgent + ":clawboo-" + slug
}

// Start sends the message (context above it) and returns the live run.
// The run's events are subscribed before the send; an acknowledgement
// that did not start a run is an error, so the caller can release work.
func (a *Adapter) Start(ctx context.Context, req executor.StartRequest) (executor.Run, error) {
	if a.o.Client == nil {
		return nil, fmt.Errorf("openclaw: no Gateway client")
	}
	if req.Emitter == nil {
		return nil, fmt.Errorf("openclaw: start request has no emitter")
	}
	key := req.Resume
	if !strings.HasPrefix(key, "agent:") {
		key = SessionKeyFor(a.gatewayAgent(ctx, req.AgentID), req.SessionKey, req.RunID)
	}
	r := newRun(a, req, key)
	if err := r.subscribe(ctx); err != nil {
		return nil, err
	}
	if req.Model != "" {
		if err := a.o.Client.Request(ctx, "sessions.patch", map[string]any{"key": key, "model": req.Model}, nil); err != nil {
			// sessions.patch also creates a fresh session; if the Gateway
			// refuses the model, its agent's own model applies.
			a.o.Log.Warn("openclaw: set the session's model before sending", "key", key, "model", req.Model, "err", err)
		}
	}
	text := req.Message
	if strings.TrimSpace(req.Context) != "" {
		text = req.Context + "\n\n" + req.Message
	}
	var ack sendAck
	err := a.o.Client.Request(ctx, "chat.send", map[string]any{
		"sessionKey": key, "message": text, "idempotencyKey": newIdempotencyKey(), "deliver": false,
	}, &ack)
	if err == nil {
		err = ack.check()
	}
	if err != nil {
		r.release()
		return nil, fmt.Errorf("openclaw: %w", err)
	}
	r.begin(ack.RunID)
	return r, nil
}

// sendAck is chat.send's acknowledgement.
type sendAck struct {
	RunID    string `json:"runId"`
	Status   string `json:"status"`
	Accepted *bool  `json:"accepted"`
}

// check refuses an acknowledgement that did not start a run: a cached
// "in_flight"/"ok" (a replayed idempotency key), an explicit refusal, or no
// run id.
func (k sendAck) check() error {
	if k.Accepted != nil && !*k.Accepted {
		return fmt.Errorf("chat.send was acknowledged but did not start a run (accepted: false)")
	}
	if k.RunID == "" || k.Status != "started" {
		return fmt.Errorf("chat.send was acknowledged but did not start a run (status: %q)", k.Status)
	}
	return nil
}

func newIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// claim binds a Gateway run id to r unless another live run holds it.
func (a *Adapter) claim(runID string, r *run) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if o, ok := a.claimed[runID]; ok && o != r {
		return false
	}
	a.claimed[runID] = r
	return true
}

func (a *Adapter) track(key string, r *run, on bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if on {
		a.live[key]++
		return
	}
	if a.live[key]--; a.live[key] <= 0 {
		delete(a.live, key)
	}
	for id, o := range a.claimed {
		if o == r {
			delete(a.claimed, id)
		}
	}
}

// LiveSessions lists the Gateway sessions this adapter runs in now (the
// activity watcher leaves those to their runs).
func (a *Adapter) LiveSessions() map[string]bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]bool, len(a.live))
	for k := range a.live {
		out[k] = true
	}
	return out
}

// RunFor names the Clawboo run and agent bound to a Gateway run id, if
// one of this adapter's live runs holds it.
func (a *Adapter) RunFor(gatewayRunID string) (executor.RunID, string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, ok := a.claimed[gatewayRunID]
	if !ok {
		return "", "", false
	}
	return r.id, r.req.AgentID, true
}

// The host reads OpenClaw's readiness from the live connection.
var _ executor.Readier = (*Adapter)(nil)

// Ready reports a live Gateway connection without a round trip (for
// listings that must not wait on the Gateway; Health asks it).
func (a *Adapter) Ready() bool {
	return a.o.Client != nil && a.o.Client.State().Status == StatusConnected
}
