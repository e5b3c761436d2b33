package llm

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
)

func TestAnthropicStreamsThinkingTextToolsAndUsage(t *testing.T) {
	r := newRig(t)
	r.fake.Push(msgPath, fakeprovider.Response{
		Thinking: []string{"let me ", "think"},
		Text:     []string{"Hel", "lo"},
		Tools: []fakeprovider.ToolCall{
			{ID: "tu_1", Name: "read_file", Chunks: []string{`{"pa`, `th":"a.go"}`}},
			{ID: "tu_2", Name: "list_files"},
		},
		Usage: fakeprovider.Usage{Input: 120, Output: 42, CacheRead: 7, CacheWrite: 3},
	})
	evs, err := run(t, r.provider(t, "anthropic"), baseReq())
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(evs, EvThinking); got != "let me think" {
		t.Errorf("thinking = %q", got)
	}
	if got := textOf(evs, EvText); got != "Hello" {
		t.Errorf("text = %q", got)
	}
	want := []ToolCall{{ID: "tu_1", Name: "read_file", Input: json.RawMessage(`{"path":"a.go"}`)}, {ID: "tu_2", Name: "list_files", Input: json.RawMessage(`{}`)}}
	if got := calls(evs); !reflect.DeepEqual(got, want) {
		t.Errorf("calls = %+v", got)
	}
	last := evs[len(evs)-1]
	if last.Kind != EvDone || last.StopReason != "tool_use" {
		t.Fatalf("last = %+v", last)
	}
	if want := (Usage{InputTokens: 120, OutputTokens: 42, CacheReadTokens: 7, CacheWriteTokens: 3}); last.Usage != want {
		t.Errorf("usage = %+v", last.Usage)
	}

	reqs := r.fake.RequestsTo(msgPath)
	if len(reqs) != 1 || reqs[0].Key != testKey {
		t.Fatalf("requests = %+v", reqs)
	}
	b := body(t, reqs[0])
	if string(b["system"]) != `[{"text":"You are a test.\n\nToday: 2026-11-29","type":"text"}]` {
		t.Errorf("system = %s", b["system"])
	}
	if string(b["max_tokens"]) != "8192" || string(b["stream"]) != "true" || string(b["model"]) != `"m-1"` {
		t.Errorf("body = %s", reqs[0].Body)
	}
	var tools []map[string]any
	_ = json.Unmarshal(b["tools"], &tools)
	if len(tools) != 2 || tools[1]["name"] != "read_file" {
		t.Fatalf("tools = %s", b["tools"])
	}
	schema := tools[1]["input_schema"].(map[string]any)
	if schema["type"] != "object" || schema["additionalProperties"] != false || !reflect.DeepEqual(schema["required"], []any{"path"}) {
		t.Errorf("schema = %v", schema)
	}
}

func TestAnthropicBadToolJSONIsKeptRaw(t *testing.T) {
	r := newRig(t)
	r.fake.Push(msgPath, fakeprovider.Tools(fakeprovider.ToolCall{ID: "tu_1", Name: "read_file", Chunks: []string{`{"path":`, `"a.go"`}}))
	evs, err := run(t, r.provider(t, "anthropic"), baseReq())
	if err != nil {
		t.Fatal(err)
	}
	c := calls(evs)
	if len(c) != 1 || string(c[0].Input) != `{"_raw":"{\"path\":\"a.go\""}` {
		t.Fatalf("calls = %+v", c)
	}
}

func TestAnthropicDialectOfTheTranscript(t *testing.T) {
	r := newRig(t)
	r.fake.Push(msgPath, fakeprovider.Text("ok"))
	req := baseReq()
	req.Messages = append(req.Messages,
		Message{Role: Assistant, Content: []Block{{Type: Thinking, Text: "hmm"}, {Type: Text, Text: ""}, {Type: ToolUse, ID: "tu_1", Name: "read_file", Input: json.RawMessage(`{"path":"a"}`)}}},
		Message{Role: User, Content: []Block{{Type: ToolResult, ID: "tu_1", Text: "no such file", IsError: true}}},
	)
	if _, err := run(t, r.provider(t, "anthropic"), req); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	_ = r.fake.Requests()[0].JSON(&got)
	if len(got.Messages) != 3 || len(got.Messages[1].Content) != 1 {
		t.Fatalf("messages = %s", r.fake.Requests()[0].Body)
	}
	tu, tr := got.Messages[1].Content[0], got.Messages[2].Content[0]
	if tu["type"] != "tool_use" || tu["id"] != "tu_1" || !reflect.DeepEqual(tu["input"], map[string]any{"path": "a"}) {
		t.Errorf("tool_use = %v", tu)
	}
	if tr["type"] != "tool_result" || tr["tool_use_id"] != "tu_1" || tr["is_error"] != true {
		t.Errorf("tool_result = %v", tr)
	}
}

func TestOpenAIStreamsTextParallelToolCallsAndUsage(t *testing.T) {
	r := newRig(t)
	r.fake.Push(chatPath, fakeprovider.Response{
		Text: []string{"I'll ", "look."},
		Tools: []fakeprovider.ToolCall{
			{ID: "call_a", Name: "read_file", Chunks: []string{`{"path"`, `:"a.go"}`}},
			{ID: "call_b", Name: "list_files", Chunks: []string{`{"pa`, `th":"."`, `}`}},
		},
		Interleave: true,
		Usage:      fakeprovider.Usage{Input: 300, Output: 20, CacheRead: 256},
	})
	evs, err := run(t, r.provider(t, "openai"), baseReq())
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(evs, EvText); got != "I'll look." {
		t.Errorf("text = %q", got)
	}
	want := []ToolCall{{ID: "call_a", Name: "read_file", Input: json.RawMessage(`{"path":"a.go"}`)}, {ID: "call_b", Name: "list_files", Input: json.RawMessage(`{"path":"."}`)}}
	if got := calls(evs); !reflect.DeepEqual(got, want) {
		t.Errorf("calls = %+v", got)
	}
	last := evs[len(evs)-1]
	if last.Kind != EvDone || last.StopReason != "tool_use" || last.Usage != (Usage{InputTokens: 300, OutputTokens: 20, CacheReadTokens: 256}) {
		t.Fatalf("done = %+v", last)
	}
	reqs := r.fake.RequestsTo(chatPath)
	if len(reqs) != 1 || reqs[0].Key != testKey {
		t.Fatalf("requests = %+v", reqs)
	}
	b := body(t, reqs[0])
	if string(b["stream_options"]) != `{"include_usage":true}` || string(b["stream"]) != "true" {
		t.Errorf("body = %s", reqs[0].Body)
	}
	// the override is not api.openai.com, so max_tokens
	if string(b["max_tokens"]) != "8192" || b["max_completion_tokens"] != nil {
		t.Errorf("max tokens: %s", reqs[0].Body)
	}
	var msgs []map[string]any
	_ = json.Unmarshal(b["messages"], &msgs)
	if len(msgs) != 2 || msgs[0]["role"] != "system" || msgs[0]["content"] != baseReq().System || msgs[1]["role"] != "user" {
		t.Errorf("messages = %s", b["messages"])
	}
	var tools []map[string]any
	_ = json.Unmarshal(b["tools"], &tools)
	if len(tools) != 2 || tools[0]["type"] != "function" || tools[0]["function"].(map[string]any)["name"] != "list_files" {
		t.Errorf("tools = %s", b["tools"])
	}
}

func TestOpenAIDialectOfTheTranscript(t *testing.T) {
	r := newRig(t)
	r.fake.Push(chatPath, fakeprovider.Text("done"))
	req := baseReq()
	req.Messages = append(req.Messages,
		Message{Role: Assistant, Content: []Block{{Type: Text, Text: "reading"}, {Type: ToolUse, ID: "call_a", Name: "read_file", Input: json.RawMessage(`{"path":"a"}`)}, {Type: ToolUse, ID: "call_b", Name: "list_files"}}},
		Message{Role: User, Content: []Block{{Type: ToolResult, ID: "call_a", Text: "A"}, {Type: ToolResult, ID: "call_b", Text: "B"}, {Type: Text, Text: "and?"}}},
	)
	evs, err := run(t, r.provider(t, "openai"), req)
	if err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; last.StopReason != "end_turn" {
		t.Errorf("stop = %q", last.StopReason)
	}
	var got struct {
		Messages []map[string]any `json:"messages"`
	}
	_ = r.fake.Requests()[0].JSON(&got)
	roles := []string{}
	for _, m := range got.Messages {
		roles = append(roles, m["role"].(string))
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool,tool,user" {
		t.Fatalf("roles = %v", roles)
	}
	tc := got.Messages[2]["tool_calls"].([]any)
	if len(tc) != 2 || tc[1].(map[string]any)["function"].(map[string]any)["arguments"] != "{}" {
		t.Errorf("tool_calls = %v", tc)
	}
	if got.Messages[3]["tool_call_id"] != "call_a" || got.Messages[3]["content"] != "A" {
		t.Errorf("tool message = %v", got.Messages[3])
	}
}

func TestOpenAIUsesMaxCompletionTokensOnlyForOpenAIItself(t *testing.T) {
	official := newOpenAI("openai", "https://api.openai.com/v1", "k", nil)
	p, err := official.params(baseReq())
	if err != nil {
		t.Fatal(err)
	}
	if !p.MaxCompletionTokens.Valid() || p.MaxTokens.Valid() {
		t.Errorf("api.openai.com: %+v %+v", p.MaxCompletionTokens, p.MaxTokens)
	}
	compat := newOpenAI("groq", "https://api.groq.com/openai/v1", "k", nil)
	p, _ = compat.params(baseReq())
	if p.MaxCompletionTokens.Valid() || !p.MaxTokens.Valid() {
		t.Errorf("compat: %+v %+v", p.MaxCompletionTokens, p.MaxTokens)
	}
}

func TestOllamaUsesItsOpenAIEndpointWithoutAKey(t *testing.T) {
	for _, base := range []string{"", "/v1", "/v1/"} {
		r := newRig(t)
		r.env["OLLAMA_BASE_URL"] = r.srv.URL + base
		r.fake.Push(chatPath, fakeprovider.Text("local"))
		p, err := New("ollama", "", r.getenv)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := run(t, p, Request{Model: "llama3.2", Messages: baseReq().Messages})
		if err != nil || textOf(evs, EvText) != "local" {
			t.Fatalf("base %q: %v %v", base, evs, err)
		}
		if k := r.fake.Requests()[0].Key; k != "ollama" {
			t.Errorf("key = %q", k)
		}
	}
}
