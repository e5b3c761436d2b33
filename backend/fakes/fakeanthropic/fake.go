// Package fakeanthropic is a scripted stand-in for the Anthropic Messages
// API, for tests that drive the real `claude` CLI offline. It follows the
// wire format runtimes-protocols.md records (section 2.3): POST
// /v1/messages (any query string) answered as text/event-stream with
// message_start, ping, content blocks (text and tool_use with
// input_json_delta), message_delta and message_stop; HEAD / answers 200
// for the CLI's connectivity preflight.
//
// Invariants:
//   - A request is matched on the last real user text (system-reminder
//     blocks and role "system" messages skipped) or, when it carries a
//     tool_result, answered by the rule that made the tool call: its Then
//     rule, another call of the same tool (Loop), or its AfterTool text.
//   - A rule with Error answers with that HTTP error in the API's JSON
//     shape; a rule with DelayMS waits first (or until the client goes).
//   - Unified rate-limit headers (a rule's Unified, else SetUnified's) go
//     on an answer only when set; status rejected turns it into the API's
//     429. Unset, nothing about an answer changes.
//   - Every request is logged for assertions; nothing here touches the
//     network beyond the listener the test gives it.
package fakeanthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Rule scripts one reply. Match is a regular expression on the last user
// text. With Tool set, the reply is a tool_use of the first request tool
// whose name matches Tool, with Input; the request that carries its result
// is answered with AfterTool ("{result}" replaced by the tool's text).
// Without Tool, the reply is Text. Then, when set, answers the tool's
// result instead of AfterTool (a scripted multi-step turn); Loop answers
// every result with the same tool call again (a turn that never ends on
// its own, for turn limits). Thinking puts a thinking block (with a
// signature) before the reply. Error makes the reply an API error; DelayMS
// delays the reply. Unified puts subscription rate-limit headers on the
// reply and its follow-ups (see Unified).
type Rule struct {
	Match      string         `json:"match"`
	Tool       string         `json:"tool,omitempty"`
	Input      map[string]any `json:"input,omitempty"`
	TextBefore string         `json:"text_before,omitempty"`
	AfterTool  string         `json:"after_tool,omitempty"`
	Text       string         `json:"text,omitempty"`
	Thinking   string         `json:"thinking,omitempty"`
	Then       *Rule          `json:"then,omitempty"`
	Loop       bool           `json:"loop,omitempty"`
	Error      *Failure       `json:"error,omitempty"`
	DelayMS    int            `json:"delay_ms,omitempty"`
	Unified    *Unified       `json:"unified,omitempty"`
}

// Failure is an API error reply: an HTTP status and the error's type and
// message, as the Messages API sends them.
type Failure struct {
	Status  int    `json:"status"`
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Server is the fake.
type Server struct {
	mu    sync.Mutex
	rules []Rule
	log   []Request
	seq   atomic.Int64
	// pending maps a tool_use id to the rule that made it.
	pending map[string]Rule
	unified *Unified
}

// Request is what the fake saw of one model call.
type Request struct {
	Model    string   `json:"model"`
	Tools    []string `json:"tools"`
	UserText string   `json:"userText"`
	Result   string   `json:"toolResult,omitempty"`
	APIKey   string   `json:"-"`
	// Bearer is the Authorization bearer token (a claude.ai login's).
	Bearer string `json:"-"`
	// UserTexts are all real user texts of the conversation, oldest
	// first; System the texts of mid-conversation role "system" messages.
	UserTexts []string `json:"userTexts,omitempty"`
	System    []string `json:"system,omitempty"`
	Messages  int      `json:"messages"`
}

// New returns a fake answering with rules, in order.
func New(rules ...Rule) *Server { return &Server{rules: rules, pending: map[string]Rule{}} }

// SetRules replaces the rules (for a test that learns ids, such as a
// task's, after the fake is serving).
func (s *Server) SetRules(rules ...Rule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = rules
}

// Requests returns the model calls seen so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

type content struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type body struct {
	Model    string    `json:"model"`
	Messages []message `json:"messages"`
	Tools    []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// blocks reads a message's content, which is a string or a list of blocks.
func blocks(raw json.RawMessage) []content {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []content{{Type: "text", Text: s}}
	}
	var out []content
	_ = json.Unmarshal(raw, &out)
	return out
}

// text of a tool_result's content (a string or text blocks).
func resultText(raw json.RawMessage) string {
	var b strings.Builder
	for _, c := range blocks(raw) {
		b.WriteString(c.Text)
	}
	return b.String()
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodHead || (r.Method == http.MethodGet && r.URL.Path == "/") {
		w.WriteHeader(http.StatusOK)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		apiError(w, http.StatusNotFound, "not_found_error", "no route "+r.URL.Path)
		return
	}
	var b body
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8<<20)).Decode(&b); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	req := Request{
		Model: b.Model, APIKey: r.Header.Get("x-api-key"), Messages: len(b.Messages),
		Bearer: strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "),
	}
	for _, t := range b.Tools {
		req.Tools = append(req.Tools, t.Name)
	}
	var toolUseID string
	if n := len(b.Messages); n > 0 && b.Messages[n-1].Role == "user" {
		for _, c := range blocks(b.Messages[n-1].Content) {
			if c.Type == "tool_result" {
				toolUseID, req.Result = c.ToolUseID, resultText(c.Content)
			}
		}
	}
	for _, m := range b.Messages {
		if m.Role == "system" {
			for _, c := range blocks(m.Content) {
				req.System = append(req.System, c.Text)
			}
			continue
		}
		if m.Role != "user" {
			continue
		}
		for _, c := range blocks(m.Content) {
			if c.Type == "text" && !strings.HasPrefix(strings.TrimSpace(c.Text), "<system-reminder>") {
				req.UserTexts = append(req.UserTexts, c.Text)
			}
		}
	}
	if n := len(req.UserTexts); n > 0 {
		req.UserText = req.UserTexts[n-1]
	}
	s.mu.Lock()
	s.log = append(s.log, req)
	rule, afterTool := s.pending[toolUseID]
	if afterTool {
		delete(s.pending, toolUseID)
	}
	rules := s.rules
	s.mu.Unlock()

	if afterTool {
		switch {
		case rule.Loop:
			s.reply(w, r, b.Model, rule, req.Tools)
		case rule.Then != nil:
			s.reply(w, r, b.Model, *rule.Then, req.Tools)
		default:
			s.reply(w, r, b.Model, Rule{Text: strings.ReplaceAll(rule.AfterTool, "{result}", req.Result), Unified: rule.Unified}, req.Tools)
		}
		return
	}
	for _, ru := range rules {
		if ok, _ := regexp.MatchString(ru.Match, req.UserText); ok {
			s.reply(w, r, b.Model, ru, req.Tools)
			return
		}
	}
	s.reply(w, r, b.Model, Rule{Text: "Hello from fake anthropic."}, req.Tools)
}

// reply answers with one rule: after its delay, an error, text, or a call
// of the first offered tool its Tool pattern matches.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, model string, ru Rule, tools []string) {
	if ru.DelayMS > 0 {
		t := time.NewTimer(time.Duration(ru.DelayMS) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		}
	}
	if u := s.unifiedFor(ru); u != nil {
		u.header(w.Header())
		if u.Status == "rejected" {
			u.rejected(w)
			return
		}
	}
	if ru.Error != nil {
		apiError(w, ru.Error.Status, ru.Error.Type, ru.Error.Message)
		return
	}
	if ru.Tool == "" {
		s.stream(w, model, ru.Thinking, ru.Text, "", nil)
		return
	}
	re, err := regexp.Compile(ru.Tool)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "api_error", "bad tool pattern")
		return
	}
	for _, name := range tools {
		if re.MatchString(name) {
			id := fmt.Sprintf("toolu_fake_%d", s.seq.Add(1))
			s.mu.Lock()
			s.pending[id] = ru
			s.mu.Unlock()
			s.stream(w, model, ru.Thinking, ru.TextBefore, id, &toolUse{name: name, input: ru.Input})
			return
		}
	}
	s.stream(w, model, "", "no tool matches "+ru.Tool, "", nil)
}

type toolUse struct {
	name  string
	input map[string]any
}

// stream writes one assistant message as the Messages API's SSE events.
func (s *Server) stream(w http.ResponseWriter, model, thinking, text, toolID string, tu *toolUse) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	n := s.seq.Add(1)
	ev := func(typ string, v map[string]any) {
		v["type"] = typ
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	}
	ev("message_start", map[string]any{"message": map[string]any{
		"id": fmt.Sprintf("msg_fake_%d", n), "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	ev("ping", map[string]any{})
	idx := 0
	if thinking != "" {
		ev("content_block_start", map[string]any{"index": idx, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
		ev("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "thinking_delta", "thinking": thinking}})
		ev("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "signature_delta", "signature": fmt.Sprintf("sig_fake_%d", n)}})
		ev("content_block_stop", map[string]any{"index": idx})
		idx++
	}
	if text != "" {
		ev("content_block_start", map[string]any{"index": idx, "content_block": map[string]any{"type": "text", "text": ""}})
		ev("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "text_delta", "text": text}})
		ev("content_block_stop", map[string]any{"index": idx})
		idx++
	}
	stop := "end_turn"
	if tu != nil {
		stop = "tool_use"
		input, _ := json.Marshal(tu.input)
		ev("content_block_start", map[string]any{"index": idx, "content_block": map[string]any{"type": "tool_use", "id": toolID, "name": tu.name, "input": map[string]any{}}})
		ev("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		ev("content_block_stop", map[string]any{"index": idx})
	}
	ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	ev("message_stop", map[string]any{})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func apiError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}
