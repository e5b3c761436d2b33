package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/clawboo/desktop/backend/executor"
)

// MaxToolOutput bounds one tool result as recorded; the rest is dropped
// with a note saying how much.
const MaxToolOutput = 16 << 10

// Result is a `result` line: the end of one turn of the CLI.
type Result struct {
	Subtype        string
	IsError        bool
	APIErrorStatus int
	Text           string
	Errors         []string
	TerminalReason string
	NumTurns       int
	Session        string
	// TotalCostUSD is the CLI's running total for this process (nil when
	// the line had none).
	TotalCostUSD *float64
	Usage        *executor.Usage
}

// NoConversation reports the result of a --resume whose session the CLI
// could not find (its history lives under another working folder, or was
// deleted): no turn ran.
func (r Result) NoConversation() bool {
	if r.NumTurns != 0 {
		return false
	}
	for _, e := range r.Errors {
		if strings.Contains(e, "No conversation found") {
			return true
		}
	}
	return false
}

// Parsed is what one stdout line means to a run.
type Parsed struct {
	Events []executor.Event
	// Result is set for a result line.
	Result *Result
	// Replay is the uuid of a user message the CLI read from stdin and
	// echoed back (--replay-user-messages): proof a steer was read.
	Replay string
	// ControlRequest is the id of a request the CLI asks of the host; it
	// must be answered or the CLI waits for ever.
	ControlRequest string
	// ControlResponse is the id of a host request the CLI answered.
	ControlResponse string
}

// Mapper turns the CLI's stream-json lines into run events. It is pure:
// no I/O, no clock, one Mapper per CLI process (tool names and the running
// cost total are per process).
type Mapper struct {
	session   string
	model     string
	tools     map[string]string // open tool calls: id → name
	textSeen  bool
	lastTotal float64
}

// NewMapper returns a mapper for one CLI process.
func NewMapper() *Mapper { return &Mapper{tools: map[string]string{}} }

// Session is the CLI's session id once an init line named it.
func (m *Mapper) Session() string { return m.session }

// Model is the model the CLI last said it uses.
func (m *Mapper) Model() string { return m.model }

type usageWire struct {
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CacheCreationTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadTokens     int64 `json:"cache_read_input_tokens"`
}

type wire struct {
	Type      string  `json:"type"`
	Subtype   string  `json:"subtype"`
	SessionID string  `json:"session_id"`
	UUID      string  `json:"uuid"`
	IsReplay  bool    `json:"isReplay"`
	Parent    *string `json:"parent_tool_use_id"`
	Model     string  `json:"model"`
	// system/init
	MCPServers []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
	} `json:"mcp_servers"`
	Message *struct {
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	// result
	IsError        bool       `json:"is_error"`
	APIErrorStatus *int       `json:"api_error_status"`
	Result         string     `json:"result"`
	Errors         []string   `json:"errors"`
	TerminalReason string     `json:"terminal_reason"`
	NumTurns       int        `json:"num_turns"`
	TotalCostUSD   *float64   `json:"total_cost_usd"`
	Usage          *usageWire `json:"usage"`
	// system/api_retry
	Attempt     int    `json:"attempt"`
	MaxRetries  int    `json:"max_retries"`
	ErrorStatus *int   `json:"error_status"`
	Error       string `json:"error"`
	// control
	RequestID string `json:"request_id"`
	Response  *struct {
		RequestID string `json:"request_id"`
	} `json:"response"`
	// rate_limit_event
	RateLimitInfo json.RawMessage `json:"rate_limit_info"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// Line maps one stdout line. truncated says the line was cut at the
// reader's bound: its JSON is incomplete, so only a tool call or result is
// salvaged from its start. Lines that are not JSON are ignored.
func (m *Mapper) Line(line []byte, truncated bool) Parsed {
	if truncated {
		return m.salvage(line)
	}
	var w wire
	if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &w) != nil {
		return Parsed{}
	}
	switch w.Type {
	case "system":
		return m.system(w)
	case "assistant":
		return Parsed{Events: m.assistant(w)}
	case "user":
		if w.IsReplay {
			return Parsed{Replay: w.UUID}
		}
		return Parsed{Events: m.user(w)}
	case "result":
		return Parsed{Result: m.result(w)}
	case "rate_limit_event":
		return Parsed{Events: rateLimit(w.RateLimitInfo)}
	case "control_request":
		return Parsed{ControlRequest: w.RequestID}
	case "control_response":
		if w.Response != nil {
			return Parsed{ControlResponse: w.Response.RequestID}
		}
	}
	return Parsed{}
}

func (m *Mapper) system(w wire) Parsed {
	switch w.Subtype {
	case "init":
		// The CLI repeats init at the start of every turn; the session is
		// reported once (it changes only if the CLI forks it).
		if w.Model != "" {
			m.model = w.Model
		}
		if w.SessionID == "" || w.SessionID == m.session {
			return Parsed{}
		}
		m.session = w.SessionID
		evs := []executor.Event{executor.SessionStarted(w.SessionID, w.Model)}
		for _, s := range w.MCPServers {
			// A server that could not be reached leaves the agent without
			// its tools: say so, without failing the run.
			if s.Status == "failed" || s.Status == "needs-auth" {
				evs = append(evs, executor.Error("mcp", fmt.Sprintf("MCP server %s: %s", s.Name, s.Status), false))
			}
		}
		return Parsed{Events: evs}
	case "api_retry":
		status := 0
		if w.ErrorStatus != nil {
			status = *w.ErrorStatus
		}
		return Parsed{Events: []executor.Event{executor.Status(executor.PhaseRunning,
			fmt.Sprintf("model API error %d (%s); retry %d of %d", status, w.Error, w.Attempt, w.MaxRetries))}}
	}
	return Parsed{}
}

func (m *Mapper) assistant(w wire) []executor.Event {
	if w.Message == nil || w.Message.Model == "<synthetic>" {
		// The CLI's own stand-in message for an API error: the result
		// line that follows carries the same text as an error.
		return nil
	}
	if w.Message.Model != "" {
		m.model = w.Message.Model
	}
	sub := w.Parent != nil && *w.Parent != ""
	var out []executor.Event
	for _, b := range blocks(w.Message.Content) {
		switch b.Type {
		case "text":
			if b.Text == "" {
				continue
			}
			if sub {
				// A subagent's words are its working, not the reply.
				out = append(out, executor.Reasoning(b.Text))
				continue
			}
			text := b.Text
			if m.textSeen {
				text = "\n\n" + text
			}
			m.textSeen = true
			out = append(out, executor.Text(text))
		case "thinking":
			if b.Thinking != "" {
				out = append(out, executor.Reasoning(b.Thinking))
			}
		case "tool_use", "server_tool_use", "mcp_tool_use":
			m.tools[b.ID] = b.Name
			out = append(out, executor.ToolCall(b.ID, b.Name, compactJSON(b.Input)))
		}
	}
	return out
}

func (m *Mapper) user(w wire) []executor.Event {
	if w.Message == nil {
		return nil
	}
	var out []executor.Event
	for _, b := range blocks(w.Message.Content) {
		if b.Type != "tool_result" {
			continue // "[Request interrupted by user]" and the like
		}
		name := m.tools[b.ToolUseID]
		delete(m.tools, b.ToolUseID)
		out = append(out, executor.ToolResult(b.ToolUseID, name, capOutput(resultText(b.Content)), b.IsError))
	}
	return out
}

func (m *Mapper) result(w wire) *Result {
	r := &Result{
		Subtype: w.Subtype, IsError: w.IsError, Text: w.Result, Errors: w.Errors,
		TerminalReason: w.TerminalReason, NumTurns: w.NumTurns, Session: w.SessionID, TotalCostUSD: w.TotalCostUSD,
	}
	if w.APIErrorStatus != nil {
		r.APIErrorStatus = *w.APIErrorStatus
	}
	if u := w.Usage; u != nil {
		r.Usage = &executor.Usage{
			InputTokens:       u.InputTokens + u.CacheCreationTokens + u.CacheReadTokens,
			OutputTokens:      u.OutputTokens,
			CachedInputTokens: u.CacheReadTokens,
		}
	}
	return r
}

// Cost is the cost event for a result: this turn's share of the CLI's
// running total (total_cost_usd counts everything since the process
// started), with the turn's tokens. Nil when the CLI reported no cost.
func (m *Mapper) Cost(r Result) *executor.Event {
	if r.TotalCostUSD == nil {
		return nil
	}
	total := *r.TotalCostUSD
	delta := total - m.lastTotal
	if delta < 0 { // the CLI restarted its count; the total is all new
		delta = total
	}
	m.lastTotal = total
	ev := executor.Event{Kind: executor.KindCost, CostUSD: &delta, Usage: r.Usage, Model: m.model}
	return &ev
}

// Outcome is how a final result ends the run: done (with a fatal error
// first when it failed). aborted says the host asked for the stop.
func Outcome(r Result, aborted bool) []executor.Event {
	msg := r.Text
	if msg == "" {
		msg = strings.Join(r.Errors, "; ")
	}
	switch {
	case r.Subtype == "success" && !r.IsError:
		return []executor.Event{executor.Done(executor.DoneSuccess, r.Text)}
	case aborted:
		return []executor.Event{executor.Done(executor.DoneAborted, "aborted")}
	case r.Subtype == "error_max_turns":
		if msg == "" {
			msg = "reached the turn limit"
		}
		return []executor.Event{executor.Done(executor.DoneMaxTurns, msg)}
	case r.Subtype == "success": // is_error: an API error, reported as a success subtype
		if msg == "" {
			msg = fmt.Sprintf("model API error %d", r.APIErrorStatus)
		}
		return []executor.Event{executor.Error("api_error", msg, true), executor.Done(executor.DoneError, msg)}
	default:
		if msg == "" {
			msg = "Claude Code ended the turn with " + r.Subtype
		}
		return []executor.Event{executor.Error(r.Subtype, msg, true), executor.Done(executor.DoneError, msg)}
	}
}

var (
	reToolUseID = regexp.MustCompile(`"tool_use_id"\s*:\s*"([^"]+)"`)
	reID        = regexp.MustCompile(`"id"\s*:\s*"((?:srv)?toolu_[^"]+)"`)
	reName      = regexp.MustCompile(`"name"\s*:\s*"([^"]+)"`)
)

// salvage keeps what matters of a line too long to read whole: a huge
// tool result still closes its call, a huge tool input still shows the
// call.
func (m *Mapper) salvage(line []byte) Parsed {
	switch {
	case bytes.HasPrefix(line, []byte(`{"type":"user"`)):
		if sm := reToolUseID.FindSubmatch(line); sm != nil {
			id := string(sm[1])
			name := m.tools[id]
			delete(m.tools, id)
			return Parsed{Events: []executor.Event{executor.ToolResult(id, name, "[tool output too large to record]", false)}}
		}
	case bytes.HasPrefix(line, []byte(`{"type":"assistant"`)):
		// The block's keys come in the API's order (type, id, name,
		// input), but a name after the cut is not guessed.
		if id := reID.FindSubmatch(line); id != nil {
			name := "unknown"
			if n := reName.FindSubmatch(line); n != nil {
				name = string(n[1])
			}
			m.tools[string(id[1])] = name
			return Parsed{Events: []executor.Event{executor.ToolCall(string(id[1]), name,
				json.RawMessage(`{"note":"input too large to record"}`))}}
		}
	}
	return Parsed{}
}

// blocks reads message content: a string or a list of blocks.
func blocks(raw json.RawMessage) []block {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var out []block
	_ = json.Unmarshal(raw, &out)
	return out
}

// resultText is a tool result's content as text: a string, or its text
// blocks joined (other blocks, images, shown by type).
func resultText(raw json.RawMessage) string {
	var parts []string
	for _, b := range blocks(raw) {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		} else if b.Type != "" {
			parts = append(parts, "["+b.Type+"]")
		}
	}
	return strings.Join(parts, "\n")
}

func capOutput(s string) string {
	if len(s) <= MaxToolOutput {
		return s
	}
	cut := MaxToolOutput
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… (%d more characters not recorded)", len(s)-cut)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// compactJSON is a tool input as compact JSON ({} when absent or broken).
func compactJSON(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if len(raw) == 0 || json.Compact(&buf, raw) != nil {
		return json.RawMessage(`{}`)
	}
	return buf.Bytes()
}
