// Package fakeresponses is a scripted stand-in for the OpenAI Responses API,
// for tests that drive the real `codex` CLI offline. It speaks the wire
// format runtimes-protocols.md records (sections 3.2 and 3.3): POST
// {base}/responses answered as text/event-stream, each event written as
// `event: <type>` plus a `data:` line whose JSON carries "type" and
// "sequence_number": response.created, response.in_progress, then per
// output item response.output_item.added, (for a message)
// response.content_part.added, response.output_text.delta…,
// response.output_text.done, response.content_part.done, (for a function
// call) response.function_call_arguments.delta/.done,
// response.output_item.done, and finally response.completed with usage.
// Failures are an HTTP status with an OpenAI error body (or a scripted
// one), or a response.failed event mid-stream. A step may add response
// headers, such as Codex's x-codex-* usage windows (ratelimits.go).
//
// Invariants:
//   - A request is matched on its last real user text (user messages that
//     open with "<", such as <environment_context>, are skipped). A rule
//     is a list of steps; the step served is the number of
//     function_call_output items after that user message, so a tool
//     call's result is answered by the rule's next step.
//   - Every request is logged (key, user text, tool names, raw body)
//     before it is answered.
//   - A slow step stops streaming as soon as the client goes away.
package fakeresponses

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

// Step is one model response. With Call set it is a function call of the
// first request tool whose "namespace/name" (or bare name) matches
// Call.Tool; otherwise it is assistant Text, streamed in Chunks (split on
// spaces when Chunks is empty and Delay is set) with Delay between them.
// Status answers an HTTP error; Fail streams Text, then response.failed.
type Step struct {
	Text   string
	Chunks []string
	Delay  time.Duration
	Call   *Call
	Status int
	Fail   string
	// Input and Output tokens reported in response.completed (defaults:
	// the request body's length / 4, and the words streamed + 5).
	Input, Output int
	// Headers are extra response headers on this step's answer, the
	// stream or the error (RateLimitHeaders builds Codex's x-codex-*).
	Headers map[string]string
	// ErrorBody replaces the JSON body of a Status answer (UsageLimit
	// builds the real service's usage_limit_reached one).
	ErrorBody string
}

// Call is a scripted function call. Args is its JSON arguments string;
// "{result}" in a later step's Text is replaced by this call's output.
type Call struct {
	Tool string
	Args string
}

// Rule scripts a conversation: Match is a regular expression on the last
// real user text; Steps answer it in order.
type Rule struct {
	Match string
	Steps []Step
}

// Text is a one-step rule answering with text.
func Text(match, text string) Rule { return Rule{Match: match, Steps: []Step{{Text: text}}} }

// Request is what the fake saw of one model call.
type Request struct {
	Model    string
	APIKey   string // the bearer token
	UserText string
	// Outputs are the function_call_output texts after the user message.
	Outputs []string
	Tools   []string // "namespace/name" for namespaced tools
	Body    []byte
}

// Server is the fake. Its zero value is not usable; call New.
type Server struct {
	mu    sync.Mutex
	rules []Rule
	log   []Request
	seq   atomic.Int64
}

// New returns a fake answering with rules, first match wins; an unmatched
// request gets "Hello from fake openai.".
func New(rules ...Rule) *Server { return &Server{rules: rules} }

// SetRules replaces the script.
func (s *Server) SetRules(rules ...Rule) {
	s.mu.Lock()
	s.rules = rules
	s.mu.Unlock()
}

// Requests returns the model calls seen so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

type inputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Output  json.RawMessage `json:"output"`
}

type tool struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Tools []tool `json:"tools"`
}

type body struct {
	Model string      `json:"model"`
	Input []inputItem `json:"input"`
	Tools []tool      `json:"tools"`
}

// text joins the text parts of a content or output value, which is a
// string or a list of {type, text} parts.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return strings.Join(out, "\n")
}

func parse(raw []byte) (Request, error) {
	var b body
	if err := json.Unmarshal(raw, &b); err != nil {
		return Request{}, err
	}
	req := Request{Model: b.Model, Body: raw}
	for _, t := range b.Tools {
		if t.Type == "namespace" {
			for _, sub := range t.Tools {
				req.Tools = append(req.Tools, t.Name+"/"+sub.Name)
			}
			continue
		}
		req.Tools = append(req.Tools, t.Name)
	}
	last := -1
	for i, it := range b.Input {
		if it.Role == "user" && (it.Type == "" || it.Type == "message") {
			if t := text(it.Content); !strings.HasPrefix(strings.TrimSpace(t), "<") && !strings.HasPrefix(t, "# AGENTS.md") {
				last, req.UserText = i, t
			}
		}
	}
	for _, it := range b.Input[last+1:] {
		if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
			req.Outputs = append(req.Outputs, text(it.Output))
		}
	}
	return req, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		apiError(w, http.StatusNotFound, "no route "+r.URL.Path)
		return
	}
	raw := make([]byte, 0, 64<<10)
	buf := make([]byte, 32<<10)
	lr := http.MaxBytesReader(w, r.Body, 16<<20)
	for {
		n, err := lr.Read(buf)
		raw = append(raw, buf[:n]...)
		if err != nil {
			break
		}
	}
	req, err := parse(raw)
	if err != nil {
		apiError(w, http.StatusBadRequest, "bad body: "+err.Error())
		return
	}
	req.APIKey = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	s.log = append(s.log, req)
	rules := s.rules
	s.mu.Unlock()

	step := Step{Text: "Hello from fake openai."}
	for _, ru := range rules {
		if ok, _ := regexp.MatchString(ru.Match, req.UserText); !ok || len(ru.Steps) == 0 {
			continue
		}
		i := len(req.Outputs)
		if i >= len(ru.Steps) {
			i = len(ru.Steps) - 1
		}
		step = ru.Steps[i]
		break
	}
	for k, v := range step.Headers {
		w.Header().Set(k, v)
	}
	if step.Status != 0 {
		if step.ErrorBody != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(step.Status)
			_, _ = w.Write([]byte(step.ErrorBody))
			return
		}
		apiError(w, step.Status, "fake: scripted failure")
		return
	}
	s.stream(w, r, req, step)
}

// stream writes one response as the Responses API's SSE events.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req Request, st Step) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	n := s.seq.Add(1)
	seq := 0
	ev := func(typ string, v map[string]any) {
		v["type"], v["sequence_number"] = typ, seq
		seq++
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		if fl != nil {
			fl.Flush()
		}
	}
	resp := map[string]any{
		"id": fmt.Sprintf("resp_fake_%d", n), "object": "response", "status": "in_progress",
		"model": req.Model, "output": []any{},
	}
	ev("response.created", map[string]any{"response": resp})
	ev("response.in_progress", map[string]any{"response": resp})

	var output []any
	words := 0
	txt := st.Text
	if len(req.Outputs) > 0 {
		txt = strings.ReplaceAll(txt, "{result}", req.Outputs[len(req.Outputs)-1])
	}
	if txt != "" {
		chunks := st.Chunks
		if len(chunks) == 0 && st.Delay > 0 {
			chunks = append(chunks, strings.SplitAfter(txt, " ")...)
		}
		if len(chunks) == 0 {
			chunks = []string{txt}
		}
		id := fmt.Sprintf("msg_fake_%d", n)
		item := map[string]any{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}
		ev("response.output_item.added", map[string]any{"output_index": 0, "item": item})
		ev("response.content_part.added", map[string]any{
			"item_id": id, "output_index": 0, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}},
		})
		for i, c := range chunks {
			if i > 0 && st.Delay > 0 {
				select {
				case <-time.After(st.Delay):
				case <-r.Context().Done():
					return
				}
			}
			ev("response.output_text.delta", map[string]any{"item_id": id, "output_index": 0, "content_index": 0, "delta": c})
			words += len(strings.Fields(c))
		}
		full := strings.Join(chunks, "")
		if st.Fail != "" {
			ev("response.failed", map[string]any{"response": map[string]any{
				"id": resp["id"], "object": "response", "status": "failed",
				"error": map[string]any{"code": "server_error", "message": st.Fail},
			}})
			return
		}
		part := map[string]any{"type": "output_text", "text": full, "annotations": []any{}}
		ev("response.output_text.done", map[string]any{"item_id": id, "output_index": 0, "content_index": 0, "text": full})
		ev("response.content_part.done", map[string]any{"item_id": id, "output_index": 0, "content_index": 0, "part": part})
		done := map[string]any{"id": id, "type": "message", "status": "completed", "role": "assistant", "content": []any{part}}
		ev("response.output_item.done", map[string]any{"output_index": 0, "item": done})
		output = append(output, done)
	} else if st.Fail != "" {
		ev("response.failed", map[string]any{"response": map[string]any{
			"id": resp["id"], "object": "response", "status": "failed",
			"error": map[string]any{"code": "server_error", "message": st.Fail},
		}})
		return
	}
	if st.Call != nil {
		if fc := s.call(req, st.Call, n, len(output)); fc != nil {
			idx := len(output)
			added := map[string]any{}
			for k, v := range fc {
				added[k] = v
			}
			added["arguments"], added["status"] = "", "in_progress"
			ev("response.output_item.added", map[string]any{"output_index": idx, "item": added})
			ev("response.function_call_arguments.delta", map[string]any{"item_id": fc["id"], "output_index": idx, "delta": fc["arguments"]})
			ev("response.function_call_arguments.done", map[string]any{"item_id": fc["id"], "output_index": idx, "arguments": fc["arguments"]})
			ev("response.output_item.done", map[string]any{"output_index": idx, "item": fc})
			output = append(output, fc)
			words += 10
		}
	}
	in, out := st.Input, st.Output
	if in == 0 {
		in = len(req.Body) / 4
	}
	if out == 0 {
		out = words + 5
	}
	resp["status"], resp["output"] = "completed", output
	resp["usage"] = map[string]any{
		"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": in + out,
	}
	ev("response.completed", map[string]any{"response": resp})
}

// call builds the function_call item for c, or nil when no request tool
// matches (then the response is text only and the test sees why).
func (s *Server) call(req Request, c *Call, n int64, idx int) map[string]any {
	re, err := regexp.Compile(c.Tool)
	if err != nil {
		return nil
	}
	for _, t := range req.Tools {
		if !re.MatchString(t) {
			continue
		}
		item := map[string]any{
			"id": fmt.Sprintf("fc_fake_%d_%d", n, idx), "type": "function_call",
			"call_id": fmt.Sprintf("call_fake_%d_%d", n, idx), "arguments": c.Args, "status": "completed",
		}
		if ns, name, ok := strings.Cut(t, "/"); ok {
			item["namespace"], item["name"] = ns, name
		} else {
			item["name"] = t
		}
		return item
	}
	return nil
}

func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": nil}})
}
