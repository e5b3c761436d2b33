package codex

import (
	"encoding/json"

	"github.com/clawboo/desktop/backend/executor"
)

// ExecMapper maps `codex exec --json` lines (runtimes-protocols.md section
// 3.4) to events. Prev is the thread's totals before this run (from the
// resume handle): exec reports cumulative usage for a resumed thread, so
// the run's own spend is the difference.
type ExecMapper struct {
	Model string
	Prev  Totals

	Thread   string
	tools    map[string]string
	lastText string
	errMsg   string
}

type execLine struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Item     *item  `json:"item"`
	Message  string `json:"message"`
	Error    *struct {
		Message string `json:"message"`
	} `json:"error"`
	Usage *struct {
		InputTokens       int64 `json:"input_tokens"`
		CachedInputTokens int64 `json:"cached_input_tokens"`
		OutputTokens      int64 `json:"output_tokens"`
	} `json:"usage"`
}

// Line maps one stdout line. done is the terminal event once the turn
// ended (turn.completed or turn.failed).
func (m *ExecMapper) Line(raw []byte) (evs []executor.Event, done *executor.Event) {
	var l execLine
	if json.Unmarshal(raw, &l) != nil {
		return nil, nil
	}
	if m.tools == nil {
		m.tools = map[string]string{}
	}
	switch l.Type {
	case "thread.started":
		m.Thread = l.ThreadID
		return []executor.Event{executor.SessionStarted(Handle{Thread: l.ThreadID, Totals: m.Prev}.Encode(), m.Model)}, nil
	case "turn.started":
		return []executor.Event{executor.Status(executor.PhaseRunning, "")}, nil
	case "item.started":
		if l.Item == nil {
			return nil, nil
		}
		if name := l.Item.toolName(); name != "" {
			m.tools[l.Item.ID] = name
			return []executor.Event{executor.ToolCall(l.Item.ID, name, l.Item.toolInput())}, nil
		}
	case "item.completed":
		if l.Item == nil {
			return nil, nil
		}
		return m.completed(*l.Item), nil
	case "error":
		m.errMsg = l.Message
	case "turn.completed":
		if l.Usage != nil {
			now := Totals{Input: l.Usage.InputTokens, Cached: l.Usage.CachedInputTokens, Output: l.Usage.OutputTokens}
			// A fresh thread, or a handle without totals: the usage
			// is this run's own.
			if now.Input < m.Prev.Input || now.Output < m.Prev.Output {
				m.Prev = Totals{}
			}
			if u := usageDelta(m.Prev, now); u != nil {
				evs = append(evs, costEvent(u, m.Model))
			}
			if m.Thread != "" {
				evs = append(evs, executor.SessionStarted(Handle{Thread: m.Thread, Totals: now}.Encode(), m.Model))
			}
		}
		d := executor.Done(executor.DoneSuccess, cut(m.lastText))
		return evs, &d
	case "turn.failed":
		msg := m.errMsg
		if l.Error != nil && l.Error.Message != "" {
			msg = l.Error.Message
		}
		if msg == "" {
			msg = "codex turn failed"
		}
		d := executor.Done(executor.DoneError, cut(msg))
		return []executor.Event{executor.Error("codex", cut(msg), true)}, &d
	}
	return nil, nil
}

func (m *ExecMapper) completed(it item) []executor.Event {
	switch it.Type {
	case "agent_message":
		m.lastText = it.Text
		if it.Text == "" {
			return nil
		}
		return []executor.Event{executor.Text(it.Text)}
	case "reasoning":
		if r := it.reasoning(); r != "" {
			return []executor.Event{executor.Reasoning(r)}
		}
		return nil
	case "error":
		return []executor.Event{executor.Error("codex_warning", cut(it.ExecMessage), false)}
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
