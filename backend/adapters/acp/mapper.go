package acp

import (
	"cmp"
	"encoding/json"
	"strings"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/redact"
)

// maxTools bounds the tool titles remembered per run (for naming results).
const maxTools = 4096

// mapper turns session/update notifications into events. It remembers
// each tool call's title (a result names its tool), the turn's answer (the
// run's summary) and the session's cost as the agent reported it.
type mapper struct {
	mu    sync.Mutex
	tools map[string]string
	// answer is the agent's message since the turn's last tool call (its
	// last words), bounded; before is the message a tool call ended, the
	// summary when nothing follows it.
	answer strings.Builder
	before string
	// cost is the session's cost as last reported (nil: never); base is
	// what it was before this run's first prompt (a resumed session's).
	cost, base *float64
	started    bool
}

func newMapper() *mapper { return &mapper{tools: map[string]string{}} }

// update maps one update; most map to one event, some to none.
func (m *mapper) update(u acpsdk.SessionUpdate) []executor.Event {
	switch {
	case u.AgentMessageChunk != nil:
		t := blockText(u.AgentMessageChunk.Content)
		m.said(t)
		return texts(executor.Text(t))
	case u.AgentThoughtChunk != nil:
		return texts(executor.Reasoning(blockText(u.AgentThoughtChunk.Content)))
	case u.ToolCall != nil:
		return m.toolCall(u.ToolCall)
	case u.ToolCallUpdate != nil:
		return m.toolUpdate(u.ToolCallUpdate)
	case u.Plan != nil:
		steps := make([]executor.PlanStep, 0, min(len(u.Plan.Entries), 100))
		for _, e := range u.Plan.Entries[:min(len(u.Plan.Entries), 100)] {
			steps = append(steps, executor.PlanStep{Content: cut(e.Content, 500), Status: string(e.Status), Priority: string(e.Priority)})
		}
		return []executor.Event{executor.Plan(steps)}
	case u.UsageUpdate != nil:
		m.usage(u.UsageUpdate)
	}
	return nil
}

// texts drops an empty delta.
func texts(ev executor.Event) []executor.Event {
	if ev.Text == "" {
		return nil
	}
	return []executor.Event{ev}
}

func (m *mapper) said(t string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.answer.Len() < maxSummary {
		m.answer.WriteString(t[:min(len(t), maxSummary-m.answer.Len())])
	}
}

// turnStarted clears the answer for a new turn.
func (m *mapper) turnStarted() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.answer.Reset()
	m.before = ""
	if !m.started {
		m.started, m.base = true, m.cost
	}
}

// summary is the last turn's last words.
func (m *mapper) summary() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := strings.TrimSpace(m.answer.String()); s != "" {
		return s
	}
	return strings.TrimSpace(m.before)
}

func (m *mapper) toolCall(t *acpsdk.SessionUpdateToolCall) []executor.Event {
	id, name := string(t.ToolCallId), cmp.Or(strings.TrimSpace(t.Title), string(t.Kind), "tool")
	m.mu.Lock()
	if len(m.tools) < maxTools {
		m.tools[id] = cut(name, 200)
	}
	if m.answer.Len() > 0 {
		m.before = m.answer.String()
		m.answer.Reset()
	}
	m.mu.Unlock()
	evs := []executor.Event{executor.ToolCall(id, cut(name, 200), rawJSON(t.RawInput))}
	if t.Status == acpsdk.ToolCallStatusCompleted || t.Status == acpsdk.ToolCallStatusFailed {
		evs = append(evs, executor.ToolResult(id, cut(name, 200), toolOutput(t.Content, t.RawOutput), t.Status == acpsdk.ToolCallStatusFailed))
	}
	return evs
}

// toolUpdate reports a result when the call completed or failed; progress
// updates map to nothing.
func (m *mapper) toolUpdate(t *acpsdk.SessionToolCallUpdate) []executor.Event {
	if t.Status == nil || (*t.Status != acpsdk.ToolCallStatusCompleted && *t.Status != acpsdk.ToolCallStatusFailed) {
		return nil
	}
	id := string(t.ToolCallId)
	m.mu.Lock()
	name := m.tools[id]
	delete(m.tools, id)
	m.mu.Unlock()
	if name == "" && t.Title != nil {
		name = cut(*t.Title, 200)
	}
	return []executor.Event{executor.ToolResult(id, cmp.Or(name, "tool"), toolOutput(t.Content, t.RawOutput), *t.Status == acpsdk.ToolCallStatusFailed)}
}

func (m *mapper) usage(u *acpsdk.SessionUsageUpdate) {
	if u.Cost == nil || !strings.EqualFold(u.Cost.Currency, "USD") || u.Cost.Amount < 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v := u.Cost.Amount
	m.cost = &v
}

// runCost is what this run cost by the agent's own account: the session's
// cost now less what it was before the run began (nil: not reported).
func (m *mapper) runCost() *float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cost == nil {
		return nil
	}
	v := *m.cost
	if m.base != nil {
		v -= *m.base
	}
	v = max(v, 0)
	return &v
}

// blockText is a content block's text (other kinds are named).
func blockText(b acpsdk.ContentBlock) string {
	switch {
	case b.Text != nil:
		return b.Text.Text
	case b.ResourceLink != nil:
		return "[" + b.ResourceLink.Name + "](" + b.ResourceLink.Uri + ")"
	case b.Image != nil:
		return "[image]"
	}
	return ""
}

// toolOutput is a result's text: its content blocks, else its raw output,
// scrubbed and cut at MaxToolText.
func toolOutput(content []acpsdk.ToolCallContent, raw any) string {
	var b strings.Builder
	for _, c := range content {
		if b.Len() > MaxToolText {
			break
		}
		switch {
		case c.Content != nil:
			b.WriteString(blockText(c.Content.Content))
		case c.Diff != nil:
			b.WriteString("edited " + c.Diff.Path)
		case c.Terminal != nil:
			b.WriteString("[terminal " + c.Terminal.TerminalId + "]")
		}
		b.WriteString("\n")
	}
	out := strings.TrimSpace(b.String())
	if out == "" && raw != nil {
		out = string(rawJSON(raw))
	}
	return cut(redact.Secrets(out), MaxToolText)
}

// rawJSON is a tool's raw input as bounded JSON (a cut input becomes a
// JSON string holding its first MaxToolText characters).
func rawJSON(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	s := redact.Secrets(string(b))
	if len(s) <= MaxToolText && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	q, _ := json.Marshal(cut(s, MaxToolText))
	return q
}
