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
//   - Rate-limit headers are the real APIs' names and value formats
//     (limits.go): anthropic-ratelimit-* with RFC 3339 resets,
//     x-ratelimit-* with duration resets, retry-after on a 429.
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
	// Headers are sent with the answer, a stream or an error status alike
	// (not with a dropped connection): rate-limit headers (AnthropicLimits,
	// OpenAILimits, RateLimited) or anything else a test wants.
	Headers http.Header
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

	if resp.Fault != Drop {
		for k, vs := range resp.Headers {
			for _, v := range vs {
				w.Header().Add(k, v)
			}
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
