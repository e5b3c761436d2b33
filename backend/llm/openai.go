package llm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"
)

// openaiProvider speaks Chat Completions through openai-go; it serves
// OpenAI, OpenRouter, Ollama (/v1) and the OpenAI-compatible rest.
type openaiProvider struct {
	id  string
	key string
	// completionTokens: api.openai.com takes max_completion_tokens, the
	// compatible endpoints max_tokens.
	completionTokens bool
	svc              openai.ChatCompletionService
}

func newOpenAI(id, base, key string, hc *http.Client) *openaiProvider {
	// The service is built directly, not through NewClient, so the SDK
	// reads no OPENAI_* variable (org, project, headers) on its own.
	svc := openai.NewChatCompletionService(
		option.WithBaseURL(base+"/"),
		option.WithHTTPClient(hc),
		option.WithAPIKey(key),
		option.WithMaxRetries(0),
		option.WithMiddleware(rateLimitMiddleware(id, FamilyOpenAI)),
	)
	u, _ := url.Parse(base)
	return &openaiProvider{id: id, key: key, svc: svc, completionTokens: u != nil && u.Host == "api.openai.com"}
}

func (p *openaiProvider) ID() string { return p.id }

func (p *openaiProvider) Stream(ctx context.Context, req Request) (Stream, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, &Error{Class: ClassBadRequest, Provider: p.id, msg: err.Error(), err: err}
	}
	s := p.svc.NewStreaming(ctx, params)
	if err := s.Err(); err != nil {
		s.Close()
		return nil, wrapErr(p.id, p.key, err)
	}
	return &openaiStream{p: p, s: s, calls: map[int64]*toolAcc{}}, nil
}

// params maps a Request to Chat Completions: the system prompt first, an
// assistant's text and tool calls in one message, each tool result its
// own role "tool" message ahead of the user's text; thinking is dropped.
func (p *openaiProvider) params(req Request) (openai.ChatCompletionNewParams, error) {
	max := int64(req.MaxTokens)
	if max <= 0 {
		max = defaultMaxTokens
	}
	params := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if p.completionTokens {
		params.MaxCompletionTokens = openai.Int(max)
	} else {
		params.MaxTokens = openai.Int(max)
	}
	if req.System != "" {
		params.Messages = append(params.Messages, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		var text []string
		var calls []openai.ChatCompletionMessageToolCallUnionParam
		for _, b := range m.Content {
			switch b.Type {
			case Text:
				if b.Text != "" {
					text = append(text, b.Text)
				}
			case ToolUse:
				calls = append(calls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       b.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: string(rawInput(b.Input))},
					},
				})
			case ToolResult:
				params.Messages = append(params.Messages, openai.ToolMessage(b.Text, b.ID))
			}
		}
		joined := strings.Join(text, "\n\n")
		if m.Role == Assistant {
			if joined == "" && len(calls) == 0 {
				continue
			}
			am := openai.ChatCompletionAssistantMessageParam{ToolCalls: calls}
			if joined != "" {
				am.Content.OfString = param.NewOpt(joined)
			}
			params.Messages = append(params.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &am})
		} else if joined != "" {
			params.Messages = append(params.Messages, openai.UserMessage(joined))
		}
	}
	for _, t := range req.Tools {
		var schema map[string]any
		if len(t.InputSchema) > 0 {
			if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
				return params, err
			}
		}
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			fd.Description = openai.String(t.Description)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(fd))
	}
	return params, nil
}

type openaiStream struct {
	p       *openaiProvider
	s       *ssestream.Stream[openai.ChatCompletionChunk]
	calls   map[int64]*toolAcc
	pending []Event
	usage   Usage
	stop    string
	err     error
	ended   bool
}

// stopReasons maps finish_reason to the Anthropic-style names Event uses.
var stopReasons = map[string]string{"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}

// flush queues the assembled tool calls in index order.
func (st *openaiStream) flush() {
	idx := make([]int64, 0, len(st.calls))
	for i := range st.calls {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
	for _, i := range idx {
		st.pending = append(st.pending, Event{Kind: EvToolCall, Call: st.calls[i].call()})
	}
	clear(st.calls)
}

func (st *openaiStream) Next() (Event, bool) {
	for {
		if len(st.pending) > 0 {
			ev := st.pending[0]
			st.pending = st.pending[1:]
			return ev, true
		}
		if st.ended {
			return Event{}, false
		}
		if !st.s.Next() {
			st.ended = true
			if err := st.s.Err(); err != nil {
				st.err = wrapErr(st.p.id, st.p.key, err)
				return Event{}, false
			}
			if st.stop == "" { // no finish_reason: the stream was cut
				st.err = wrapErr(st.p.id, st.p.key, io.ErrUnexpectedEOF)
				return Event{}, false
			}
			st.flush()
			stop := st.stop
			if s, ok := stopReasons[stop]; ok {
				stop = s
			}
			st.pending = append(st.pending, Event{Kind: EvDone, Usage: st.usage, StopReason: stop})
			continue
		}
		st.chunk(st.s.Current())
	}
}

// chunk folds one chunk into the pending events: content deltas, tool-call
// fragments by index, finish_reason and the usage of the final chunk.
func (st *openaiStream) chunk(c openai.ChatCompletionChunk) {
	if c.JSON.Usage.Valid() {
		st.usage.InputTokens = c.Usage.PromptTokens
		st.usage.OutputTokens = c.Usage.CompletionTokens
		st.usage.CacheReadTokens = c.Usage.PromptTokensDetails.CachedTokens
	}
	for _, ch := range c.Choices {
		if ch.Delta.Content != "" {
			st.pending = append(st.pending, Event{Kind: EvText, Text: ch.Delta.Content})
		}
		for _, tc := range ch.Delta.ToolCalls {
			a := st.calls[tc.Index]
			if a == nil {
				a = &toolAcc{}
				st.calls[tc.Index] = a
			}
			if tc.ID != "" {
				a.id = tc.ID
			}
			if tc.Function.Name != "" {
				a.name = tc.Function.Name
			}
			a.args = append(a.args, tc.Function.Arguments...)
		}
		if ch.FinishReason != "" {
			st.stop = ch.FinishReason
			if ch.FinishReason == "tool_calls" {
				st.flush()
			}
		}
	}
}

func (st *openaiStream) Err() error { return st.err }

func (st *openaiStream) Close() error { return st.s.Close() }
