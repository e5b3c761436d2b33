package openclaw

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clawboo/desktop/backend/executor"
)

// MaxToolResult is how many characters of a tool result are recorded; the
// rest is replaced by a note saying how many were dropped.
const MaxToolResult = 4000

// Mapped is what one Gateway event means for a run: the run and session
// it belongs to and the runtime events it maps to (seed 000's frame
// table). MapFrame is pure: the same event always maps the same way.
type Mapped struct {
	Frame      string // "chat", "agent", "session.message", or the event name
	RunID      string
	SessionKey string
	// State is a chat frame's state (delta, final, aborted, error, status)
	// or an agent frame's stream/phase ("lifecycle/start", "tool/result").
	State string
	// HasMessage: a chat final that carried the reply. A final without
	// one closes a message the Gateway queued into another run.
	HasMessage bool
	// UserKey is a user session.message's idempotency key
	// ("<runId>:user" for a chat.send): the Gateway recorded that message.
	UserKey string
	Events  []executor.Event
}

// Terminal reports a chat final, aborted or error.
func (m Mapped) Terminal() bool {
	return m.Frame == "chat" && (m.State == "final" || m.State == "aborted" || m.State == "error")
}

type chatPayload struct {
	RunID          string          `json:"runId"`
	SessionKey     string          `json:"sessionKey"`
	State          string          `json:"state"`
	DeltaText      string          `json:"deltaText"`
	DeltaReasoning string          `json:"deltaReasoning"`
	DeltaThinking  string          `json:"deltaThinking"`
	Message        json.RawMessage `json:"message"`
	StopReason     string          `json:"stopReason"`
	ErrorMessage   string          `json:"errorMessage"`
	ErrorKind      string          `json:"errorKind"`
}

type agentPayload struct {
	RunID      string          `json:"runId"`
	SessionKey string          `json:"sessionKey"`
	Stream     string          `json:"stream"`
	Data       json.RawMessage `json:"data"`
}

type agentData struct {
	Phase      string          `json:"phase"`
	Delta      string          `json:"delta"`
	Error      string          `json:"error"`
	Provider   *string         `json:"provider"`
	Model      *string         `json:"model"`
	Name       string          `json:"name"`
	ToolCallID string          `json:"toolCallId"`
	Args       json.RawMessage `json:"args"`
	Result     json.RawMessage `json:"result"`
	IsError    bool            `json:"isError"`
}

type message struct {
	Role           string          `json:"role"`
	IdempotencyKey string          `json:"idempotencyKey"`
	Content        json.RawMessage `json:"content"`
	Text           string          `json:"text"`
	ToolCallID     string          `json:"toolCallId"`
	ToolName       string          `json:"toolName"`
	IsError        bool            `json:"isError"`
}

type part struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// a toolResult part (some providers nest results in the message)
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Content    json.RawMessage `json:"content"`
	IsError    bool            `json:"isError"`
}

// MapFrame maps one Gateway event.
//
//	chat delta       assistant and reasoning text-delta, plus tool calls and results in the message
//	chat final       tool calls and results, then done success
//	chat aborted     done aborted
//	chat error       a fatal error, then done error
//	agent lifecycle  start → status running, end → status turn-complete, error → fatal error
//	                 (model → a status carrying provider/model, so the host can price the run)
//	agent tool       start → tool-call, result → tool-result (cut), update → nothing
//	agent other      text-delta from data.delta (reasoning on a reasoning stream)
//	session.message  tool-call and tool-result only
//	anything else    nothing
func MapFrame(ev Event) Mapped {
	switch ev.Name {
	case "chat":
		return mapChat(ev.Payload)
	case "agent":
		return mapAgent(ev.Payload)
	case "session.message":
		return mapSessionMessage(ev.Payload)
	}
	return Mapped{Frame: ev.Name}
}

func mapChat(raw json.RawMessage) Mapped {
	var p chatPayload
	_ = json.Unmarshal(raw, &p)
	m := Mapped{Frame: "chat", RunID: p.RunID, SessionKey: p.SessionKey, State: p.State}
	msg, hasMsg := decodeMessage(p.Message)
	m.HasMessage = hasMsg
	switch p.State {
	case "delta":
		if p.DeltaText != "" {
			m.Events = append(m.Events, executor.Text(p.DeltaText))
		}
		if r := p.DeltaReasoning + p.DeltaThinking; r != "" {
			m.Events = append(m.Events, executor.Reasoning(r))
		}
		m.Events = append(m.Events, toolEvents(msg)...)
	case "final":
		m.Events = append(m.Events, toolEvents(msg)...)
		m.Events = append(m.Events, executor.Done(executor.DoneSuccess, messageText(msg)))
	case "aborted":
		reason := "aborted"
		if p.StopReason != "" {
			reason = "aborted (" + p.StopReason + ")"
		}
		m.Events = append(m.Events, executor.Done(executor.DoneAborted, reason))
	case "error":
		msgText := p.ErrorMessage
		if msgText == "" {
			msgText = "the OpenClaw run failed"
		}
		code := "openclaw_error"
		if p.ErrorKind != "" {
			code = "openclaw_" + p.ErrorKind
		}
		m.Events = append(m.Events, executor.Error(code, msgText, true), executor.Done(executor.DoneError, msgText))
	}
	return m
}

func mapAgent(raw json.RawMessage) Mapped {
	var p agentPayload
	_ = json.Unmarshal(raw, &p)
	var d agentData
	_ = json.Unmarshal(p.Data, &d)
	m := Mapped{Frame: "agent", RunID: p.RunID, SessionKey: p.SessionKey, State: p.Stream + "/" + d.Phase}
	switch p.Stream {
	case "lifecycle":
		switch d.Phase {
		case "start":
			m.Events = append(m.Events, executor.Status(executor.PhaseRunning, ""))
		case "end":
			m.Events = append(m.Events, executor.Status(executor.PhaseTurnComplete, ""))
		case "error":
			msg := d.Error
			if msg == "" {
				msg = "the OpenClaw run failed"
			}
			m.Events = append(m.Events, executor.Error("openclaw_error", msg, true))
		case "model":
			if d.Model != nil && *d.Model != "" {
				model := *d.Model
				if d.Provider != nil && *d.Provider != "" && !strings.Contains(model, "/") {
					model = *d.Provider + "/" + model
				}
				ev := executor.Status(executor.PhaseRunning, "model")
				ev.Model = model
				m.Events = append(m.Events, ev)
			}
		}
	case "tool":
		switch d.Phase {
		case "start":
			m.Events = append(m.Events, executor.ToolCall(d.ToolCallID, d.Name, jsonOrNil(d.Args)))
		case "result":
			m.Events = append(m.Events, executor.ToolResult(d.ToolCallID, d.Name, CutResult(resultText(d.Result)), d.IsError))
		}
	default:
		if d.Delta != "" {
			if isReasoningStream(p.Stream) {
				m.Events = append(m.Events, executor.Reasoning(d.Delta))
			} else {
				m.Events = append(m.Events, executor.Text(d.Delta))
			}
		}
	}
	return m
}

func isReasoningStream(s string) bool {
	switch s {
	case "reasoning", "thinking", "reasoning_summary", "thought":
		return true
	}
	return false
}

func mapSessionMessage(raw json.RawMessage) Mapped {
	var p struct {
		SessionKey string          `json:"sessionKey"`
		RunID      string          `json:"runId"`
		Message    json.RawMessage `json:"message"`
	}
	_ = json.Unmarshal(raw, &p)
	msg, _ := decodeMessage(p.Message)
	m := Mapped{Frame: "session.message", SessionKey: p.SessionKey, RunID: p.RunID, State: msg.Role}
	if msg.Role == "user" {
		m.UserKey = msg.IdempotencyKey
	}
	m.Events = toolEvents(msg)
	return m
}

func decodeMessage(raw json.RawMessage) (message, bool) {
	var msg message
	if len(raw) == 0 || string(raw) == "null" || json.Unmarshal(raw, &msg) != nil {
		return message{}, false
	}
	return msg, true
}

func parts(msg message) []part {
	var ps []part
	_ = json.Unmarshal(msg.Content, &ps)
	return ps
}

// toolEvents are the tool calls and results a message carries. Results in
// chat messages are cut like every other result.
func toolEvents(msg message) []executor.Event {
	var out []executor.Event
	if msg.Role == "toolResult" || msg.Role == "tool" {
		out = append(out, executor.ToolResult(msg.ToolCallID, msg.ToolName, CutResult(resultText(msg.Content)), msg.IsError))
		return out
	}
	for _, p := range parts(msg) {
		switch p.Type {
		case "toolCall", "tool_use", "toolUse":
			out = append(out, executor.ToolCall(p.ID, p.Name, jsonOrNil(p.Arguments)))
		case "toolResult", "tool_result":
			id := p.ToolCallID
			if id == "" {
				id = p.ID
			}
			out = append(out, executor.ToolResult(id, p.ToolName, CutResult(resultText(p.Content)), p.IsError))
		}
	}
	return out
}

// messageText joins a message's text parts (its "text" field when set).
func messageText(msg message) string {
	if msg.Text != "" {
		return msg.Text
	}
	var s string
	if json.Unmarshal(msg.Content, &s) == nil {
		return s
	}
	var b strings.Builder
	for _, p := range parts(msg) {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// resultText reads a tool result: a string, a list of {type,text} parts,
// or an object with such a "content" list; anything else as JSON.
func resultText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var ps []part
	if json.Unmarshal(raw, &ps) == nil {
		return joinParts(ps)
	}
	var obj struct {
		Content []part `json:"content"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Content != nil {
		return joinParts(obj.Content)
	}
	return string(raw)
}

func joinParts(ps []part) string {
	var out []string
	for _, p := range ps {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// CutResult keeps the first MaxToolResult characters of s and notes how
// many were dropped.
func CutResult(s string) string {
	r := []rune(s)
	if len(r) <= MaxToolResult {
		return s
	}
	return string(r[:MaxToolResult]) + fmt.Sprintf("\n… [%d more characters not recorded]", len(r)-MaxToolResult)
}

func jsonOrNil(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" || !json.Valid(raw) {
		return nil
	}
	return raw
}
