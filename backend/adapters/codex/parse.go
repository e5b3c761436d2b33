package codex

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clawboo/desktop/backend/executor"
)

// Pure parsers: one app-server message or one `codex exec --json` line in,
// events out. They keep only the state a mapping needs (which items were
// streamed, tool names by id, token totals) and never block or do I/O, so
// they are tested line by line against recorded transcripts.

// maxOutput bounds a tool result or summary carried in an event.
const maxOutput = 4000

// cut shortens s to maxOutput bytes (on a rune boundary), noting the rest.
func cut(s string) string {
	if len(s) <= maxOutput {
		return s
	}
	n := maxOutput
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf("\n… [%d more bytes not recorded]", len(s)-n)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// Totals are a thread's cumulative token counts.
type Totals struct {
	Input  int64 `json:"in"`
	Cached int64 `json:"cached,omitempty"`
	Output int64 `json:"out"`
}

// Handle is the resume handle reported with executor.SessionStarted: the
// thread id and the thread's token totals so far (codex exec reports
// cumulative usage, so the next run needs them to find its own share).
type Handle struct {
	V      int    `json:"v"`
	Thread string `json:"thread"`
	Totals Totals `json:"tokens"`
}

// Encode is the handle as the host stores it.
func (h Handle) Encode() string {
	h.V = 1
	b, _ := json.Marshal(h)
	return string(b)
}

// DecodeHandle reads a stored handle; a bare thread id (not JSON) is
// accepted as a handle with no totals.
func DecodeHandle(s string) Handle {
	s = strings.TrimSpace(s)
	var h Handle
	if strings.HasPrefix(s, "{") && json.Unmarshal([]byte(s), &h) == nil {
		return h
	}
	return Handle{Thread: s}
}

// usageDelta is the usage between two totals, nil when nothing was spent
// (or the counter went backwards).
func usageDelta(prev, now Totals) *executor.Usage {
	u := executor.Usage{
		InputTokens: now.Input - prev.Input, OutputTokens: now.Output - prev.Output,
		CachedInputTokens: now.Cached - prev.Cached,
	}
	if u.InputTokens < 0 || u.OutputTokens < 0 || (u.InputTokens == 0 && u.OutputTokens == 0) {
		return nil
	}
	if u.CachedInputTokens < 0 {
		u.CachedInputTokens = 0
	}
	return &u
}

// costEvent reports tokens with an unknown price: the host estimates.
func costEvent(u *executor.Usage, model string) executor.Event {
	return executor.Event{Kind: executor.KindCost, Usage: u, Model: model}
}

// item is the union of the item fields the mappers read, in both the
// app-server's camelCase and exec's snake_case.
type item struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Text      string          `json:"text"`
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Status    string          `json:"status"`
	Arguments json.RawMessage `json:"arguments"`
	Result    *struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	Command     string          `json:"command"`
	Cwd         string          `json:"cwd"`
	AggOut      *string         `json:"aggregatedOutput"`
	AggOutExec  *string         `json:"aggregated_output"`
	ExitCode    *int            `json:"exitCode"`
	ExitCodeEx  *int            `json:"exit_code"`
	Changes     json.RawMessage `json:"changes"`
	Summary     []string        `json:"summary"`
	Content     json.RawMessage `json:"content"`
	ReasonText  string          `json:"reasoning_text"`
	ExecMessage string          `json:"message"`
}

// toolName is the name a tool item is reported under ("" = not a tool).
func (it item) toolName() string {
	switch it.Type {
	case "mcpToolCall", "mcp_tool_call":
		return "mcp__" + it.Server + "__" + it.Tool
	case "commandExecution", "command_execution":
		return "shell"
	case "fileChange", "file_change":
		return "apply_patch"
	case "webSearch", "web_search":
		return "web_search"
	case "dynamicToolCall":
		return it.Tool
	case "collabAgentToolCall":
		return "agent"
	}
	return ""
}

// toolInput is a tool item's input as JSON.
func (it item) toolInput() json.RawMessage {
	switch it.Type {
	case "commandExecution", "command_execution":
		b, _ := json.Marshal(map[string]string{"command": it.Command, "cwd": it.Cwd})
		return b
	case "fileChange", "file_change":
		if len(it.Changes) > 0 {
			b, _ := json.Marshal(map[string]json.RawMessage{"changes": it.Changes})
			return b
		}
	}
	if len(it.Arguments) > 0 && json.Valid(it.Arguments) && it.Arguments[0] == '{' {
		return it.Arguments
	}
	return nil
}

// toolResult is a finished tool item's output and whether it failed.
func (it item) toolResult() (string, bool) {
	failed := it.Status == "failed" || it.Status == "declined"
	switch it.Type {
	case "commandExecution", "command_execution":
		out := it.AggOut
		if out == nil {
			out = it.AggOutExec
		}
		code := it.ExitCode
		if code == nil {
			code = it.ExitCodeEx
		}
		s := ""
		if out != nil {
			s = *out
		}
		return cut(s), failed || (code != nil && *code != 0)
	case "fileChange", "file_change":
		return it.Status, failed
	}
	if it.Error != nil && it.Error.Message != "" {
		return cut(it.Error.Message), true
	}
	var parts []string
	if it.Result != nil {
		for _, c := range it.Result.Content {
			if c.Type == "text" {
				parts = append(parts, c.Text)
			}
		}
	}
	return cut(strings.Join(parts, "\n")), failed
}

// reasoning is a reasoning item's text (summary lines, else content).
func (it item) reasoning() string {
	if len(it.Summary) > 0 {
		return strings.Join(it.Summary, "\n")
	}
	if it.ReasonText != "" {
		return it.ReasonText
	}
	if it.Type == "reasoning" && it.Text != "" {
		return it.Text
	}
	var c []string
	_ = json.Unmarshal(it.Content, &c)
	return strings.Join(c, "\n")
}
