// Package fakeprovider is a scripted stand-in for the model APIs the
// native runtime calls, speaking their real streaming wire formats: the
// Anthropic Messages API (POST …/messages, SSE message_start,
// content_block_start/delta/stop for text, thinking with signature_delta
// and tool_use with input_json_delta, message_delta with usage,
// message_stop) and OpenAI Chat Completions (POST …/chat/completions,
// chunks with choices[].delta.content and delta.tool_calls fragments by
// index, finish_reason, a usage chunk when stream_options.include_usage,
// then data: [DONE]), which also serves Ollama's /v1 endpoint and the
// OpenAI-compatible providers.
//
// Invariants:
//   - Each request path has its own queue of scripted responses, served in
//     order; an unscripted request is answered 500 so a test sees it.
//   - Every request is recorded (path, key header, raw body) before it is
//     answered, errors included.
//   - Faults are real transport faults: a dropped connection before any
//     byte, or a stream cut after a number of SSE events.
package fakeprovider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ToolCall is a scripted tool call. Args is the JSON arguments string;
// Chunks, when set, are the fragments it streams in (their concatenation
// is what the client should assemble).
type ToolCall struct {
	ID     string
	Name   string
	Args   string
	Chunks []string
}

// Usage is a scripted response's token counts.
type Usage struct {
	Input, Output, CacheRead, CacheWrite int
}

// Fault is a transport failure.
type Fault int

// Faults.
const (
	NoFault Fault = iota
	// Drop closes the connection before any byte of a response.
	Drop
	// Cut closes the connection after CutAfter SSE events, mid-message.
	Cut
	// ErrorEvent sends the dialect's in-stream error after CutAfter SSE
	// events (Anthropic `event: error`, OpenAI a data line with "error")
	// of type ErrorType, then ends the body.
	ErrorEvent
)

// Response scripts one answer. Status (non-zero, not 200) answers with that
// status and the dialect's error body (Message, or a default per status);
// Overflow answers the dialect's context-window 400.
type Response struct {
	Text      []string // text deltas
	Thinking  []string // thinking deltas (Anthropic only)
	Signature string   // thinking signature (Anthropic only)
	Tools     []ToolCall
	Usage     Usage
	Stop      string // stop/finish reason; derived when empty

	Status   int
	Message  string
	Overflow bool

	Fault     Fault
	CutAfter  int
	ErrorType string // for ErrorEvent; overloaded_error / server_error when empty
	// Interleave streams the OpenAI tool-call fragments round-robin across
	// calls, as parallel tool calls arrive.
	Interleave bool
	// Delay holds the answer back this long (a slow model), ending early if
	// the client goes away.
	Delay time.Duration
}

// Text is a reply streamed as the given deltas.
func Text(deltas ...string) Response {
	return Response{Text: deltas, Usage: Usage{Input: 10, Output: 5}}
}

// Tools is a reply of tool calls.
func Tools(calls ...ToolCall) Response {
	return Response{Tools: calls, Usage: Usage{Input: 10, Output: 5}}
}

// Status is an HTTP error reply.
func Status(code int) Response { return Response{Status: code} }

// Overflow is the context-window 400.
func Overflow() Response { return Response{Overflow: true} }

// Dropped is a connection closed before any byte.
func Dropped() Response { return Response{Fault: Drop} }

// CutAfter is r cut after n SSE events.
func CutAfter(n int, r Response) Response { r.Fault, r.CutAfter = Cut, n; return r }

// StreamErrorAfter is r interrupted by an in-stream error after n SSE
// events.
func StreamErrorAfter(n int, r Response) Response { r.Fault, r.CutAfter = ErrorEvent, n; return r }

// Request is what the fake saw of one call.
type Request struct {
	Path string
	// Key is the credential presented (x-api-key, else the bearer token).
	Key  string
	Body []byte
}

// JSON decodes the body into v.
func (r Request) JSON(v any) error { return json.Unmarshal(r.Body, v) }

// Server is the fake; mount it on an httptest.Server.
type Server struct {
	mu     sync.Mutex
	queues map[string][]Response
	routes []route // PushWhen's queues, tried before the path's own
	log    []Request
}

// route is a queue served to requests whose body contains match.
type route struct {
	path, match string
	q           []Response
}

// New returns an empty fake.
func New() *Server { return &Server{queues: map[string][]Response{}} }

// Push queues responses for a request path such as "/v1/messages" or
// "/v1/chat/completions".
func (s *Server) Push(path string, rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queues[path] = append(s.queues[path], rs...)
}

// PushWhen queues responses for requests on path whose raw body contains
// match (a system prompt's words, say), so concurrent conversations each
// get their own script. Routed queues are tried in the order first pushed;
// a request no route matches takes the path's Push queue.
func (s *Server) PushWhen(path, match string, rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.routes {
		if s.routes[i].path == path && s.routes[i].match == match {
			s.routes[i].q = append(s.routes[i].q, rs...)
			return
		}
	}
	s.routes = append(s.routes, route{path: path, match: match, q: rs})
}

// take pops the response for one request (under s.mu).
func (s *Server) take(path string, body []byte) (Response, bool) {
	for i := range s.routes {
		rt := &s.routes[i]
		if rt.path == path && len(rt.q) > 0 && bytes.Contains(body, []byte(rt.match)) {
			r := rt.q[0]
			rt.q = rt.q[1:]
			return r, true
		}
	}
	q := s.queues[path]
	if len(q) == 0 {
		return Response{}, false
	}
	s.queues[path] = q[1:]
	return q[0], true
}

// Requests returns every request seen so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// RequestsTo returns the requests seen on one path.
func (s *Server) RequestsTo(path string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// Pending is how many scripted responses are still queued on path.
func (s *Server) Pending(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.queues[path])
	for _, rt := range s.routes {
		if rt.path == path {
			n += len(rt.q)
		}
	}
	return n
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(http.MaxBytesReader(w, r.Body, 32<<20))
	key := r.Header.Get("X-Api-Key")
	if key == "" {
		key = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	anthropic := strings.HasSuffix(r.URL.Path, "/messages")
	s.mu.Lock()
	s.log = append(s.log, Request{Path: r.URL.Path, Key: key, Body: body})
	resp, ok := s.take(r.URL.Path, body)
	s.mu.Unlock()
	if ok && resp.Delay > 0 {
		select {
		case <-time.After(resp.Delay):
		case <-r.Context().Done():
			return
		}
	}

	switch {
	case r.Method != http.MethodPost:
		writeError(w, anthropic, http.StatusMethodNotAllowed, "POST only", "")
		return
	case !ok:
		writeError(w, anthropic, http.StatusInternalServerError, "fakeprovider: nothing scripted for "+r.URL.Path, "")
		return
	case resp.Fault == Drop:
		drop(w)
		return
	case resp.Overflow:
		if anthropic {
			writeError(w, true, 400, "prompt is too long: 215000 tokens > 200000 maximum", "")
		} else {
			writeError(w, false, 400, "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.", "context_length_exceeded")
		}
		return
	case resp.Status != 0 && resp.Status != http.StatusOK:
		msg := resp.Message
		if msg == "" && resp.Status == 401 && !anthropic {
			// OpenAI names the key it was given; clients must not repeat it.
			msg = "Incorrect API key provided: " + key + "."
		}
		writeError(w, anthropic, resp.Status, msg, "")
		return
	}

	var in struct {
		Model         string `json:"model"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	_ = json.Unmarshal(body, &in)
	var events []string
	if anthropic {
		events = anthropicEvents(in.Model, resp)
	} else {
		events = openaiEvents(in.Model, resp, in.StreamOptions.IncludeUsage)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	if resp.Fault == ErrorEvent && resp.CutAfter < len(events) {
		events = append(events[:resp.CutAfter:resp.CutAfter], streamError(anthropic, resp.ErrorType))
	}
	for i, ev := range events {
		if resp.Fault == Cut && i >= resp.CutAfter {
			if f != nil {
				f.Flush()
			}
			panic(http.ErrAbortHandler) // closes the connection mid-body
		}
		_, _ = io.WriteString(w, ev)
		if f != nil {
			f.Flush()
		}
	}
}

// drop closes the connection without writing a status line.
func drop(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		conn.Close()
	}
}

// errorTypes are the Anthropic error types by status.
var errorTypes = map[int]string{
	400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
	404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
	500: "api_error", 529: "overloaded_error",
}

func writeError(w http.ResponseWriter, anthropic bool, status int, msg, code string) {
	if msg == "" {
		msg = http.StatusText(status)
		if status == 529 {
			msg = "Overloaded"
		}
	}
	var b []byte
	if anthropic {
		typ := errorTypes[status]
		if typ == "" {
			typ = "api_error"
		}
		b, _ = json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
	} else {
		typ := "invalid_request_error"
		switch {
		case status == 429:
			typ = "rate_limit_exceeded"
		case status >= 500:
			typ = "server_error"
		}
		var c any
		if code != "" {
			c = code
		}
		b, _ = json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": c}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// streamError is the in-stream error event of a dialect.
func streamError(anthropic bool, typ string) string {
	if anthropic {
		if typ == "" {
			typ = "overloaded_error"
		}
		return sse("error", map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": "Overloaded"}})
	}
	if typ == "" {
		typ = "server_error"
	}
	return sse("", map[string]any{"error": map[string]any{"message": "The server had an error while processing your request.", "type": typ, "param": nil, "code": nil}})
}

func sse(event string, v any) string {
	b, _ := json.Marshal(v)
	if event == "" {
		return "data: " + string(b) + "\n\n"
	}
	return "event: " + event + "\ndata: " + string(b) + "\n\n"
}

// chunks are a call's argument fragments.
func (c ToolCall) chunks() []string {
	if len(c.Chunks) > 0 {
		return c.Chunks
	}
	if c.Args == "" {
		return nil
	}
	return []string{c.Args}
}

func anthropicEvents(model string, r Response) []string {
	stop := r.Stop
	if stop == "" {
		stop = "end_turn"
		if len(r.Tools) > 0 {
			stop = "tool_use"
		}
	}
	ev := []string{sse("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": r.Usage.Input, "output_tokens": 1,
			"cache_read_input_tokens": r.Usage.CacheRead, "cache_creation_input_tokens": r.Usage.CacheWrite},
	}})}
	ev = append(ev, "event: ping\ndata: {\"type\": \"ping\"}\n\n")
	idx := 0
	block := func(start map[string]any, deltas []map[string]any) {
		ev = append(ev, sse("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": start}))
		for _, d := range deltas {
			ev = append(ev, sse("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": d}))
		}
		ev = append(ev, sse("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx}))
		idx++
	}
	if len(r.Thinking) > 0 {
		var ds []map[string]any
		for _, t := range r.Thinking {
			ds = append(ds, map[string]any{"type": "thinking_delta", "thinking": t})
		}
		sig := r.Signature
		if sig == "" {
			sig = "sig-fake"
		}
		ds = append(ds, map[string]any{"type": "signature_delta", "signature": sig})
		block(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, ds)
	}
	if len(r.Text) > 0 {
		var ds []map[string]any
		for _, t := range r.Text {
			ds = append(ds, map[string]any{"type": "text_delta", "text": t})
		}
		block(map[string]any{"type": "text", "text": ""}, ds)
	}
	for _, c := range r.Tools {
		var ds []map[string]any
		for _, p := range c.chunks() {
			ds = append(ds, map[string]any{"type": "input_json_delta", "partial_json": p})
		}
		block(map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}, ds)
	}
	ev = append(ev,
		sse("message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": r.Usage.Output}}),
		sse("message_stop", map[string]any{"type": "message_stop"}))
	return ev
}

func openaiEvents(model string, r Response, includeUsage bool) []string {
	stop := r.Stop
	if stop == "" {
		stop = "stop"
		if len(r.Tools) > 0 {
			stop = "tool_calls"
		}
	}
	chunk := func(choices []any) string {
		return sse("", map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": model, "choices": choices})
	}
	delta := func(d map[string]any, finish any) string {
		return chunk([]any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}})
	}
	ev := []string{delta(map[string]any{"role": "assistant", "content": ""}, nil)}
	for _, t := range r.Text {
		ev = append(ev, delta(map[string]any{"content": t}, nil))
	}
	for i, c := range r.Tools {
		ev = append(ev, delta(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil))
		if !r.Interleave {
			for _, p := range c.chunks() {
				ev = append(ev, toolFragment(delta, i, p))
			}
		}
	}
	if r.Interleave {
		for k := 0; ; k++ {
			more := false
			for i, c := range r.Tools {
				if ch := c.chunks(); k < len(ch) {
					ev = append(ev, toolFragment(delta, i, ch[k]))
					more = true
				}
			}
			if !more {
				break
			}
		}
	}
	ev = append(ev, delta(map[string]any{}, stop))
	if includeUsage {
		ev = append(ev, sse("", map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": model, "choices": []any{},
			"usage": map[string]any{"prompt_tokens": r.Usage.Input, "completion_tokens": r.Usage.Output, "total_tokens": r.Usage.Input + r.Usage.Output,
				"prompt_tokens_details": map[string]any{"cached_tokens": r.Usage.CacheRead}}}))
	}
	return append(ev, "data: [DONE]\n\n")
}

func toolFragment(delta func(map[string]any, any) string, i int, p string) string {
	return delta(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil)
}

// String summarises the queues, for failure messages.
func (s *Server) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b bytes.Buffer
	for p, q := range s.queues {
		fmt.Fprintf(&b, "%s: %d pending\n", p, len(q))
	}
	return b.String()
}
