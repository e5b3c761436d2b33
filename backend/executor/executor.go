// Package executor is the runtime contract: what every runtime adapter
// (Claude Code, Codex, Hermes, Clawboo Native, OpenClaw, Mock) implements and
// what the host may rely on.
//
// Invariants every adapter keeps, enforced by the Emitter and checked by the
// executortest contract suite:
//   - A run's id is chosen by the host and passed in StartRequest; there is no
//     late binding.
//   - Events() yields events with strictly increasing Seq starting at 1, ends
//     with exactly one Done event, and is then closed. Nothing follows Done.
//   - No event is dropped: a slow consumer slows the producer.
//   - A failed run is data (Done with reason error), not a Go error. Start
//     returns an error only when the launch itself fails.
//   - Health never errors; the caller bounds it (HealthTimeout) and reads a
//     timeout as unhealthy.
//   - Adapter goroutines are started through Emitter.Go so a panic fails only
//     that run instead of the process.
package executor

import (
	"context"
	"errors"
	"time"
)

// ID names a runtime.
type ID string

// Runtime ids known to the product.
const (
	ClaudeCode ID = "claude-code"
	Codex      ID = "codex"
	Hermes     ID = "hermes"
	Native     ID = "clawboo-native"
	OpenClaw   ID = "openclaw"
	Mock       ID = "clawboo-mock"
)

// RunID names one run; the host assigns it.
type RunID string

// RuntimeClass says how the runtime relates to Clawboo's task runner.
type RuntimeClass string

// Runtime classes.
const (
	WrappedOneShot      RuntimeClass = "wrapped-oneshot"
	ConnectedSubstrate  RuntimeClass = "connected-substrate"
	NativeClass         RuntimeClass = "native"
	EphemeralTestDouble RuntimeClass = "ephemeral"
)

// Capabilities are static facts about a runtime; the host plans around them.
type Capabilities struct {
	Streaming     bool         `json:"streaming"`
	MCP           bool         `json:"mcp"`
	Worktrees     bool         `json:"worktrees"`
	Resume        bool         `json:"resume"`
	ToolApproval  bool         `json:"toolApproval"`
	Steering      bool         `json:"steering"`
	ModelChange   bool         `json:"modelChange"`
	RuntimeClass  RuntimeClass `json:"runtimeClass"`
	ContextWindow int          `json:"contextWindowTokens,omitempty"`
	Models        []string     `json:"models"`
}

// Health is the result of a health probe.
type Health struct {
	OK      bool   `json:"ok"`
	Message string `json:"message,omitempty"`
}

// HealthTimeout bounds every health probe.
const HealthTimeout = 2 * time.Second

// StartRequest is everything an adapter needs to launch one run.
type StartRequest struct {
	RunID   RunID
	AgentID string
	// TeamID is the team of the run's task (empty for none); runtimes
	// with in-process MCP bind their sessions to it.
	TeamID string
	// SessionKey identifies the conversation a run belongs to, for resume.
	SessionKey string
	// Resume is the runtime's own session id for SessionKey, from the
	// conversation's last run on this runtime that reported one (see
	// Event.Session); empty starts a fresh session.
	Resume  string
	Message string
	// Context is placed above the message by adapters that take one prompt.
	Context string
	Model   string
	// WorkDir is the run's working folder; empty when the run has none.
	WorkDir string
	// Env holds extra environment for a runtime child process (provider
	// keys resolved by the host). Never logged.
	Env map[string]string
	// MCPFrom is the MCP attachment a run brings from another computer (a
	// run a desktop placed on this host): that computer's servers, reached
	// through the Unix socket its ssh forwards here, with its run token.
	// nil: the run attaches to this computer's own servers, if any.
	MCPFrom *CarriedMCP
	// Emitter stamps and carries the run's events. The host creates it; the
	// adapter emits through it and returns its channel from Run.Events.
	Emitter *Emitter
	// Delegate is set only for a team leader's turn: the adapter offers
	// delegation (native's delegate tool, the mock's !delegate, the signed
	// team_delegate MCP tool) and hands each signal to it. nil: the run
	// cannot delegate, and adapters offer nothing.
	Delegate DelegateFunc
}

// CarriedMCP is a run's attachment to another computer's MCP servers:
// Socket (a Unix socket on this computer that reaches them), the run's
// token there, and each server's path (mcp.Attach.Paths). Never logged.
type CarriedMCP struct {
	Socket string            `json:"socket"`
	Token  string            `json:"token"`
	Paths  map[string]string `json:"paths"`
}

// Delegation is a leader's typed signal to hand work to a member of its
// team. Kind ("code", "research", "review") and RepoPath are optional.
type Delegation struct {
	Assignee string `json:"assignee"`
	Task     string `json:"task"`
	Kind     string `json:"kind,omitempty"`
	RepoPath string `json:"repoPath,omitempty"`
}

// DelegateFunc acts on one delegation of a live run and returns what the
// leader is told (the task made, or why nothing was).
type DelegateFunc func(ctx context.Context, d Delegation) (string, error)

// SteerMode says how urgently a steer should reach the agent.
type SteerMode string

// Steer modes.
const (
	SteerNext    SteerMode = "next"    // read at the next turn boundary
	SteerPassive SteerMode = "passive" // never interrupts the run
)

// Steer is a message sent into a live run.
type Steer struct {
	Text string    `json:"text"`
	Mode SteerMode `json:"mode"`
}

// SteerResult says what happened to a steer.
type SteerResult string

// Steer results.
const (
	SteerDelivered SteerResult = "delivered"
	SteerQueued    SteerResult = "queued"
	SteerRejected  SteerResult = "rejected"
	SteerRunEnded  SteerResult = "run-ended"
)

// Adapter is one runtime.
type Adapter interface {
	ID() ID
	// Name is the runtime's display name.
	Name() string
	Capabilities() Capabilities
	// Health never errors; see HealthTimeout.
	Health(ctx context.Context) Health
	// Start launches a run. It returns an error only when the launch itself
	// fails; everything after that is reported as events.
	Start(ctx context.Context, req StartRequest) (Run, error)
}

// Run is one live run of an adapter.
type Run interface {
	ID() RunID
	// Events ends with exactly one Done event, then closes.
	Events() <-chan Event
	Abort(ctx context.Context) error
	SetModel(ctx context.Context, model string) error
	WriteContext(ctx context.Context, key, value string) error
	Steer(ctx context.Context, s Steer) (SteerResult, error)
}

// ErrUnsupported is returned by Run methods a runtime does not offer.
var ErrUnsupported = errors.New("not supported by this runtime")

// ProbeHealth calls a.Health bounded by HealthTimeout, turning a timeout or
// a panic into an unhealthy result.
func ProbeHealth(ctx context.Context, a Adapter) (h Health) {
	ctx, cancel := context.WithTimeout(ctx, HealthTimeout)
	defer cancel()
	ch := make(chan Health, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- Health{OK: false, Message: "health check panicked"}
			}
		}()
		ch <- a.Health(ctx)
	}()
	select {
	case h = <-ch:
		return h
	case <-ctx.Done():
		return Health{OK: false, Message: "health check timed out"}
	}
}
