package codex

import (
	"encoding/json"

	"github.com/clawboo/desktop/backend/executor"
)

// AppMapper maps the app-server notifications of one thread and turn to
// events (runtimes-protocols.md section 3.5). Set Thread once thread/start
// or thread/resume answered and Turn once turn/start answered; Totals
// starts at the thread's totals before the run (from the resume handle).
// Usage windows (account/rateLimits/updated, a usageLimitExceeded error)
// become quota events (quota.go).
type AppMapper struct {
	Thread, Turn, Model string
	Totals              Totals

	streamed map[string]bool   // message and reasoning items that sent deltas
	said     map[string]bool   // agent messages already emitted
	tools    map[string]string // open tool calls: item id → name
	lastText string
	errMsg   string
	q        quotaState // usage windows (quota.go)
}

type usageBreakdown struct {
	InputTokens       int64 `json:"inputTokens"`
	CachedInputTokens int64 `json:"cachedInputTokens"`
	OutputTokens      int64 `json:"outputTokens"`
}

type appParams struct {
	ThreadID string          `json:"threadId"`
	TurnID   string          `json:"turnId"`
	ItemID   string          `json:"itemId"`
	Delta    string          `json:"delta"`
	Item     json.RawMessage `json:"item"`
	Turn     *struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Error  *struct {
			Message        string          `json:"message"`
			CodexErrorInfo json.RawMessage `json:"codexErrorInfo"`
		} `json:"error"`
		Items []item `json:"items"`
	} `json:"turn"`
	TokenUsage *struct {
		Total usageBreakdown `json:"total"`
	} `json:"tokenUsage"`
	Error *struct {
		Message        string          `json:"message"`
		CodexErrorInfo json.RawMessage `json:"codexErrorInfo"`
	} `json:"error"`
	WillRetry bool `json:"willRetry"`
}

// LastText is the last complete agent message (the run's summary).
func (m *AppMapper) LastText() string { return m.lastText }

func (m *AppMapper) init() {
	if m.streamed == nil {
		m.streamed, m.said, m.tools = map[string]bool{}, map[string]bool{}, map[string]string{}
	}
}

// Notify maps one notification. done is the run's terminal event when the
// notification ended our turn.
func (m *AppMapper) Notify(method string, raw json.RawMessage) (evs []executor.Event, done *executor.Event) {
	m.init()
	var p appParams
	if json.Unmarshal(raw, &p) != nil {
		return nil, nil
	}
	if p.ThreadID != "" && m.Thread != "" && p.ThreadID != m.Thread {
		return nil, nil // another thread (a sub-agent's)
	}
	switch method {
	case "turn/started":
		return []executor.Event{executor.Status(executor.PhaseRunning, "")}, nil
	case "item/agentMessage/delta":
		if p.Delta == "" {
			return nil, nil
		}
		m.streamed[p.ItemID] = true
		return []executor.Event{executor.Text(p.Delta)}, nil
	case "item/reasoning/summaryTextDelta", "item/reasoning/textDelta":
		if p.Delta == "" {
			return nil, nil
		}
		m.streamed[p.ItemID] = true
		return []executor.Event{executor.Reasoning(p.Delta)}, nil
	case "item/started":
		var it item
		if json.Unmarshal(p.Item, &it) != nil {
			return nil, nil
		}
		if name := it.toolName(); name != "" {
			m.tools[it.ID] = name
			return []executor.Event{executor.ToolCall(it.ID, name, it.toolInput())}, nil
		}
	case "item/completed":
		var it item
		if json.Unmarshal(p.Item, &it) != nil {
			return nil, nil
		}
		return m.completed(it), nil
	case "thread/tokenUsage/updated":
		return m.tokenUsage(p), nil
	case "account/rateLimits/updated":
		return m.rateLimits(raw), nil
	case "error":
		if p.Error == nil {
			return nil, nil
		}
		if p.WillRetry {
			return []executor.Event{executor.Status(executor.PhaseRunning, "retrying: "+cut(p.Error.Message))}, nil
		}
		m.errMsg = p.Error.Message
		if isUsageLimit(p.Error.CodexErrorInfo) {
			return m.usageLimit(), nil
		}
	case "turn/completed":
		return m.turnCompleted(p)
	}
	return nil, nil
}

// completed maps a finished item.
func (m *AppMapper) completed(it item) []executor.Event {
	switch it.Type {
	case "agentMessage":
		m.said[it.ID] = true
		m.lastText = it.Text
		if !m.streamed[it.ID] && it.Text != "" {
			return []executor.Event{executor.Text(it.Text)}
		}
		return nil
	case "reasoning":
		if r := it.reasoning(); !m.streamed[it.ID] && r != "" {
			return []executor.Event{executor.Reasoning(r)}
		}
		return nil
	}
	name := it.toolName()
	if name == "" {
		return nil
	}
	var evs []executor.Event
	if _, open := m.tools[it.ID]; !open {
		evs = append(evs, executor.ToolCall(it.ID, name, it.toolInput()))
	}
	delete(m.tools, it.ID)
	out, failed := it.toolResult()
	return append(evs, executor.ToolResult(it.ID, name, out, failed))
}

// tokenUsage is the cost of a thread's token totals since the last ones:
// restored totals of an earlier turn (thread/resume sends them) are the
// baseline, not this run's spend.
func (m *AppMapper) tokenUsage(p appParams) []executor.Event {
	if p.TokenUsage == nil {
		return nil
	}
	t := p.TokenUsage.Total
	now := Totals{Input: t.InputTokens, Cached: t.CachedInputTokens, Output: t.OutputTokens}
	prev := m.Totals
	m.Totals = now
	if m.Turn == "" || p.TurnID != m.Turn {
		return nil
	}
	if u := usageDelta(prev, now); u != nil {
		return []executor.Event{costEvent(u, m.Model)}
	}
	return nil
}

// turnCompleted is the end of our turn: its unsaid messages, an error in
// words when it failed, and the done.
func (m *AppMapper) turnCompleted(p appParams) (evs []executor.Event, done *executor.Event) {
	if p.Turn == nil || (m.Turn != "" && p.Turn.ID != m.Turn) {
		return nil, nil
	}
	for _, it := range p.Turn.Items {
		if it.Type == "agentMessage" && !m.said[it.ID] {
			evs = append(evs, m.completed(it)...)
		}
	}
	var d executor.Event
	switch p.Turn.Status {
	case "completed":
		d = executor.Done(executor.DoneSuccess, cut(m.lastText))
	case "interrupted":
		d = executor.Done(executor.DoneAborted, "aborted")
	default:
		msg := m.errMsg
		if p.Turn.Error != nil && p.Turn.Error.Message != "" {
			msg = p.Turn.Error.Message
		}
		if p.Turn.Error != nil && isUsageLimit(p.Turn.Error.CodexErrorInfo) {
			evs = append(evs, m.usageLimit()...)
		}
		if msg == "" {
			msg = "codex turn " + p.Turn.Status
		}
		evs = append(evs, executor.Error("codex", cut(msg), true))
		d = executor.Done(executor.DoneError, cut(msg))
	}
	return evs, &d
}
