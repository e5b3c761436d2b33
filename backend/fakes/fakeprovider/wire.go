package fakeprovider

import (
	"encoding/json"
	"net/http"
)

// The two dialects' bytes on the wire: error bodies, SSE framing and the
// event sequences of a scripted response.

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
		"usage": map[string]any{
			"input_tokens": r.Usage.Input, "output_tokens": 1,
			"cache_read_input_tokens": r.Usage.CacheRead, "cache_creation_input_tokens": r.Usage.CacheWrite,
		},
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
		sse("message_delta", map[string]any{
			"type":  "message_delta",
			"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": r.Usage.Output},
		}),
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
			"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""},
		}}}, nil))
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
		ev = append(ev, sse("", map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": model, "choices": []any{},
			"usage": map[string]any{
				"prompt_tokens": r.Usage.Input, "completion_tokens": r.Usage.Output, "total_tokens": r.Usage.Input + r.Usage.Output,
				"prompt_tokens_details": map[string]any{"cached_tokens": r.Usage.CacheRead},
			},
		}))
	}
	return append(ev, "data: [DONE]\n\n")
}

func toolFragment(delta func(map[string]any, any) string, i int, p string) string {
	return delta(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil)
}
