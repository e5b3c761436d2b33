package executor

import "encoding/json"

// Kind is the type of an Event.
type Kind string

// Event kinds.
const (
	KindStatus     Kind = "status"
	KindTextDelta  Kind = "text-delta"
	KindToolCall   Kind = "tool-call"
	KindToolResult Kind = "tool-result"
	KindCost       Kind = "cost"
	KindError      Kind = "error"
	KindDone       Kind = "done"
	// KindQuota reports a subscription or rate-limit window the runtime
	// (or its provider) told us about; the host keeps the latest per
	// runtime, account and window in its quota ledger.
	KindQuota Kind = "quota"
	// KindPlan is the agent's plan for the turn as it stands now (ACP's
	// plan update): every step each time, so the latest plan event is the
	// whole plan.
	KindPlan Kind = "plan"
)

// Phase is a status event's phase.
type Phase string

// Status phases.
const (
	PhaseInit         Phase = "init"
	PhaseThinking     Phase = "thinking"
	PhaseRunning      Phase = "running"
	PhaseTurnComplete Phase = "turn-complete"
)

// DoneReason is why a run ended.
type DoneReason string

// Done reasons.
const (
	DoneSuccess  DoneReason = "success"
	DoneMaxTurns DoneReason = "max_turns"
	DoneAborted  DoneReason = "aborted"
	DoneError    DoneReason = "error"
)

// Channel distinguishes assistant text from reasoning text.
type Channel string

// Text channels.
const (
	ChannelAssistant Channel = "assistant"
	ChannelReasoning Channel = "reasoning"
)

// Usage counts tokens.
type Usage struct {
	InputTokens       int64 `json:"inputTokens"`
	OutputTokens      int64 `json:"outputTokens"`
	CachedInputTokens int64 `json:"cachedInputTokens,omitempty"`
}

// Event is one thing a run reports. It is one flat struct so it crosses to
// TypeScript unchanged; which fields are set depends on Kind:
//
//	status       Phase, Model?, Detail?, Session?
//	text-delta   Text, Channel?
//	tool-call    ToolCallID, Name, Input
//	tool-result  ToolCallID, Name, Output, IsError
//	cost         CostUSD (nil = unknown), Usage?, Model?, Local, Estimated
//	error        Code, Message, Fatal
//	done         Reason, Summary, Usage?, CostUSD?
//	quota        Quota
//	plan         Plan
type Event struct {
	RunID RunID `json:"runId"`
	Seq   int64 `json:"seq"`
	// TS is Unix milliseconds.
	TS   int64 `json:"ts"`
	Kind Kind  `json:"kind"`

	Text    string  `json:"text,omitempty"`
	Channel Channel `json:"channel,omitempty"`

	ToolCallID string          `json:"toolCallId,omitempty"`
	Name       string          `json:"name,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	Output     string          `json:"output,omitempty"`
	IsError    bool            `json:"isError,omitempty"`

	Phase  Phase  `json:"phase,omitempty"`
	Model  string `json:"model,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Session is the runtime's own session id, reported on a status event
	// once known; the host stores the last one as the run's resume handle
	// and hands it back as StartRequest.Resume.
	Session string `json:"session,omitempty"`

	CostUSD   *float64 `json:"costUsd,omitempty"`
	Usage     *Usage   `json:"usage,omitempty"`
	Local     bool     `json:"local,omitempty"`
	Estimated bool     `json:"estimated,omitempty"`

	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	Fatal   bool   `json:"fatal,omitempty"`

	Reason  DoneReason `json:"reason,omitempty"`
	Summary string     `json:"summary,omitempty"`

	Quota *QuotaWindow `json:"quota,omitempty"`

	Plan []PlanStep `json:"plan,omitempty"`
}

// PlanStep is one step of an agent's plan. Status is "pending",
// "in_progress" or "completed"; Priority "high", "medium" or "low" (ACP's
// words, kept as the agent sent them).
type PlanStep struct {
	Content  string `json:"content"`
	Status   string `json:"status"`
	Priority string `json:"priority,omitempty"`
}

// Quota window statuses, as Claude Code's rate_limit_event spells them.
const (
	QuotaAllowed        = "allowed"
	QuotaAllowedWarning = "allowed_warning"
	QuotaRejected       = "rejected"
)

// QuotaWindow is one usage window as a runtime reported it. Window is a
// snake_case name ("five_hour", "seven_day", "seven_day_opus", "requests",
// "tokens", "input_tokens", "output_tokens", or the runtime's own
// name lower-cased); Utilization is a fraction (0.97 = 97 %), nil when not
// reported; ResetsAt is Unix milliseconds, 0 when not reported; Account
// names the account or plan when the runtime says which (never a key).
type QuotaWindow struct {
	Window      string   `json:"window"`
	Status      string   `json:"status"`
	Utilization *float64 `json:"utilization,omitempty"`
	ResetsAt    int64    `json:"resetsAt,omitempty"`
	Account     string   `json:"account,omitempty"`
	// Source says where it was read ("rate_limit_event",
	// "account/rateLimits/updated", "anthropic-ratelimit headers", ...).
	Source string `json:"source,omitempty"`
}

// Constructors for the common events, so adapters read as what they report.

// Status is a status event.
func Status(p Phase, detail string) Event { return Event{Kind: KindStatus, Phase: p, Detail: detail} }

// SessionStarted is the init status event reporting the runtime's own
// session id (the resume handle).
func SessionStarted(session, model string) Event {
	return Event{Kind: KindStatus, Phase: PhaseInit, Session: session, Model: model}
}

// Text is an assistant text delta.
func Text(s string) Event { return Event{Kind: KindTextDelta, Text: s, Channel: ChannelAssistant} }

// Reasoning is a reasoning text delta.
func Reasoning(s string) Event { return Event{Kind: KindTextDelta, Text: s, Channel: ChannelReasoning} }

// ToolCall is a tool call; input must be JSON (nil means {}).
func ToolCall(id, name string, input json.RawMessage) Event {
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	return Event{Kind: KindToolCall, ToolCallID: id, Name: name, Input: input}
}

// ToolResult is the result of a tool call.
func ToolResult(id, name, output string, isError bool) Event {
	return Event{Kind: KindToolResult, ToolCallID: id, Name: name, Output: output, IsError: isError}
}

// Error is an error event.
func Error(code, msg string, fatal bool) Event {
	return Event{Kind: KindError, Code: code, Message: msg, Fatal: fatal}
}

// Quota is a quota event reporting one window.
func Quota(w QuotaWindow) Event { return Event{Kind: KindQuota, Quota: &w} }

// Plan is a plan event: the whole plan as it stands.
func Plan(steps []PlanStep) Event { return Event{Kind: KindPlan, Plan: steps} }

// Done is the terminal event.
func Done(reason DoneReason, summary string) Event {
	return Event{Kind: KindDone, Reason: reason, Summary: summary}
}
