package openclaw

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
)

// Question is one exec approval as a person should read it.
type Question struct {
	Title, Command, Folder, Reason, Risk string
	// RunID and AgentID name our run when the command comes from one.
	RunID, AgentID string
}

// Asker puts one question to a person and blocks until it is answered,
// expires or ctx ends (the composition root backs it with the approvals
// queue). Only (true, nil) allows the command.
type Asker func(ctx context.Context, q Question, ttl time.Duration) (allowed bool, err error)

// DefaultApprovalTTL is how long an exec approval stays answerable unless
// the Gateway's own expiry is sooner.
const DefaultApprovalTTL = 10 * time.Minute

// Relay carries the Gateway's exec approvals to our approvals queue and
// the person's answer back: each exec.approval.requested becomes a
// command approval; approved → "allow-once", anything else (denied,
// expired, an error) → "deny", so it fails closed. An answer given in
// OpenClaw's own UI (exec.approval.resolved) withdraws ours.
type Relay struct {
	Client *Client
	Ask    Asker
	// RunFor links a Gateway run id to our run and agent (optional).
	RunFor func(gatewayRunID string) (runID executor.RunID, agentID string, ok bool)
	// TTL caps how long a request stays answerable (default
	// DefaultApprovalTTL); the Gateway's own expiry wins when sooner.
	TTL time.Duration
	Log *slog.Logger

	mu      sync.Mutex
	pending map[string]context.CancelFunc
}

type execRequested struct {
	ID      string `json:"id"`
	Request struct {
		Command     string   `json:"command"`
		CommandArgv []string `json:"commandArgv"`
		Cwd         *string  `json:"cwd"`
		AgentID     *string  `json:"agentId"`
		SessionKey  *string  `json:"sessionKey"`
		RunID       *string  `json:"runId"`
		Host        *string  `json:"host"`
		WarningText *string  `json:"warningText"`
		Security    *string  `json:"security"`
		Ask         *string  `json:"ask"`
		SystemRun   *struct {
			CommandText string `json:"commandText"`
		} `json:"systemRunPlan"`
	} `json:"request"`
	CreatedAtMs int64 `json:"createdAtMs"`
	ExpiresAtMs int64 `json:"expiresAtMs"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Start subscribes at once and relays in the background until ctx ends
// or the client closes; wait blocks until the relay has stopped.
func (rl *Relay) Start(ctx context.Context) (wait func()) {
	if rl.Log == nil {
		rl.Log = slog.New(slog.DiscardHandler)
	}
	rl.mu.Lock()
	rl.pending = map[string]context.CancelFunc{}
	rl.mu.Unlock()
	sub := rl.Client.Subscribe(256)
	done := make(chan struct{})
	go func() {
		defer close(done)
		rl.run(ctx, sub)
	}()
	return func() { <-done }
}

func (rl *Relay) run(ctx context.Context, sub *bus.Subscription[Event]) {
	defer func() { sub.Close() }()
	var wg sync.WaitGroup
	defer wg.Wait()
	// A client connected before the relay subscribed said so to nobody:
	// read what waits now (a connect seen as well asks nothing twice).
	if rl.Client.State().Status == StatusConnected {
		rl.catchUp(ctx, &wg)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-sub.C():
			if !ok {
				if sub.Evicted() {
					// Events were lost with the eviction: read the Gateway's
					// list again, as after a reconnect.
					sub = rl.Client.Subscribe(256)
					rl.catchUp(ctx, &wg)
					continue
				}
				return
			}
			switch ev.Name {
			case EventConnected:
				// Requests made while we were away are replayed.
				rl.catchUp(ctx, &wg)
			case "exec.approval.requested":
				var p execRequested
				if json.Unmarshal(ev.Payload, &p) != nil || p.ID == "" {
					continue
				}
				rl.ask(ctx, &wg, p)
			case "exec.approval.resolved":
				var p struct {
					ID string `json:"id"`
				}
				if json.Unmarshal(ev.Payload, &p) == nil && p.ID != "" {
					rl.withdraw(p.ID)
				}
			}
		}
	}
}

// catchUp reads the Gateway's pending exec approvals after a gap (a
// reconnect, or events lost to an eviction): new ones are asked, and ours
// that the list no longer holds were settled in OpenClaw meanwhile and are
// withdrawn. Only questions already asked when the list was requested are
// withdrawn, so one that arrives while it is read is never taken back.
func (rl *Relay) catchUp(ctx context.Context, wg *sync.WaitGroup) {
	rl.mu.Lock()
	before := make([]string, 0, len(rl.pending))
	for id := range rl.pending {
		before = append(before, id)
	}
	rl.mu.Unlock()
	wg.Add(1)
	go func() {
		defer wg.Done()
		var list []execRequested
		lctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		if err := rl.Client.Request(lctx, "exec.approval.list", map[string]any{}, &list); err != nil {
			rl.Log.Debug("exec.approval.list", "err", err)
			return
		}
		still := make(map[string]bool, len(list))
		for _, p := range list {
			still[p.ID] = true
			rl.ask(ctx, wg, p)
		}
		for _, id := range before {
			if !still[id] {
				rl.withdraw(id)
			}
		}
	}()
}

// ask relays one request unless it is already being asked.
func (rl *Relay) ask(ctx context.Context, wg *sync.WaitGroup, p execRequested) {
	if p.ID == "" {
		return
	}
	actx, cancel := context.WithCancel(ctx)
	rl.mu.Lock()
	if _, dup := rl.pending[p.ID]; dup {
		rl.mu.Unlock()
		cancel()
		return
	}
	rl.pending[p.ID] = cancel
	rl.mu.Unlock()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer cancel()
		rl.relay(ctx, actx, p)
	}()
}

// withdraw cancels our question when the Gateway settled it elsewhere.
func (rl *Relay) withdraw(id string) {
	rl.mu.Lock()
	cancel := rl.pending[id]
	delete(rl.pending, id)
	rl.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Pending counts questions waiting for a person.
func (rl *Relay) Pending() int {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return len(rl.pending)
}

func (rl *Relay) relay(ctx, actx context.Context, p execRequested) {
	ttl := rl.TTL
	if ttl <= 0 {
		ttl = DefaultApprovalTTL
	}
	if p.ExpiresAtMs > 0 {
		if left := time.Until(time.UnixMilli(p.ExpiresAtMs)); left < ttl {
			ttl = max(left, time.Second)
		}
	}
	cmd := p.Request.Command
	if cmd == "" && p.Request.SystemRun != nil {
		cmd = p.Request.SystemRun.CommandText
	}
	if cmd == "" {
		cmd = strings.Join(p.Request.CommandArgv, " ")
	}
	req := Question{
		Title: "OpenClaw asks to run a command", Command: cmd,
		Folder: str(p.Request.Cwd), Reason: str(p.Request.WarningText),
		Risk: "OpenClaw exec policy: security=" + str(p.Request.Security) + " ask=" + str(p.Request.Ask),
	}
	if ag := str(p.Request.AgentID); ag != "" {
		req.Title = "OpenClaw agent " + ag + " asks to run a command"
	}
	if rl.RunFor != nil {
		if runID, agentID, ok := rl.RunFor(str(p.Request.RunID)); ok {
			req.RunID, req.AgentID = string(runID), agentID
		}
	}
	allowed, err := rl.Ask(actx, req, ttl)
	rl.mu.Lock()
	_, mine := rl.pending[p.ID]
	delete(rl.pending, p.ID)
	rl.mu.Unlock()
	if !mine {
		return // answered in OpenClaw's own UI: ours was withdrawn
	}
	decision := "deny"
	if err == nil && allowed {
		decision = "allow-once"
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if err := rl.Client.Request(rctx, "exec.approval.resolve", map[string]any{"id": p.ID, "decision": decision}, nil); err != nil {
		rl.Log.Warn("relay an exec approval to the Gateway", "id", p.ID, "decision", decision, "err", err)
	}
}
