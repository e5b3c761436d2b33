package llm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"
)

// defaultMaxTokens is the reference's max_tokens when a request sets none.
const defaultMaxTokens = 8192

// anthropicProvider speaks the Messages API through anthropic-sdk-go.
type anthropicProvider struct {
	id  string
	key string
	svc anthropic.MessageService
}

func newAnthropic(id, base, key string, hc *http.Client) *anthropicProvider {
	// WithoutEnvironmentDefaults: the SDK must not read ANTHROPIC_* itself;
	// the key travels as x-api-key, the Messages API's own header.
	c := anthropic.NewClient(
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base+"/"),
		option.WithHTTPClient(hc),
		option.WithHeader("X-Api-Key", key),
		option.WithMaxRetries(0),
		option.WithMiddleware(rateLimitMiddleware(id, FamilyAnthropic)),
	)
	return &anthropicProvider{id: id, key: key, svc: c.Messages}
}

func (p *anthropicProvider) ID() string { return p.id }

func (p *anthropicProvider) Stream(ctx context.Context, req Request) (Stream, error) {
	params, err := anthropicParams(req)
	if err != nil {
		return nil, &Error{Class: ClassBadRequest, Provider: p.id, msg: err.Error(), err: err}
	}
	s := p.svc.NewStreaming(ctx, params)
	if err := s.Err(); err != nil { // the HTTP status arrives before any event
		s.Close()
		return nil, wrapErr(p.id, p.key, err)
	}
	return &anthropicStream{p: p, s: s, tools: map[int64]*toolAcc{}}, nil
}

// anthropicParams maps a Request to the Messages dialect: empty text blocks
// and thinking blocks (unsigned, thinking is never requested) are left out;
// tool results carry is_error.
func anthropicParams(req Request) (anthropic.MessageNewParams, error) {
	max := int64(req.MaxTokens)
	if max <= 0 {
		max = defaultMaxTokens
	}
	params := anthropic.MessageNewParams{Model: anthropic.Model(req.Model), MaxTokens: max}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	for _, m := range req.Messages {
		var blocks []anthropic.ContentBlockParamUnion
		for _, b := range m.Content {
			switch b.Type {
			case Text:
				if b.Text != "" {
					blocks = append(blocks, anthropic.NewTextBlock(b.Text))
				}
			case ToolUse:
				blocks = append(blocks, anthropic.NewToolUseBlock(b.ID, rawInput(b.Input), b.Name))
			case ToolResult:
				blocks = append(blocks, anthropic.NewToolResultBlock(b.ID, b.Text, b.IsError))
			}
		}
		if len(blocks) == 0 {
			continue
		}
		if m.Role == Assistant {
			params.Messages = append(params.Messages, anthropic.NewAssistantMessage(blocks...))
		} else {
			params.Messages = append(params.Messages, anthropic.NewUserMessage(blocks...))
		}
	}
	for _, t := range req.Tools {
		schema, err := anthropicSchema(t.InputSchema)
		if err != nil {
			return params, err
		}
		tp := anthropic.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = anthropic.String(t.Description)
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &tp})
	}
	return params, nil
}

// rawInput is a tool_use input as the SDK marshals it: the JSON as given,
// {} when empty.
func rawInput(in json.RawMessage) json.RawMessage {
	if len(in) == 0 {
		return json.RawMessage(`{}`)
	}
	return in
}

// anthropicSchema splits a JSON Schema object into the SDK's typed
// properties/required and the rest as extra fields; encoding/json sorts map
// keys, so the bytes sent are the same every turn.
func anthropicSchema(raw json.RawMessage) (anthropic.ToolInputSchemaParam, error) {
	var m map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			return anthropic.ToolInputSchemaParam{}, err
		}
	}
	s := anthropic.ToolInputSchemaParam{Properties: m["properties"]}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	for k, v := range m {
		if k == "properties" || k == "required" || k == "type" {
			continue
		}
		if s.ExtraFields == nil {
			s.ExtraFields = map[string]any{}
		}
		s.ExtraFields[k] = v
	}
	if s.Properties == nil {
		s.Properties = map[string]any{}
	}
	return s, nil
}

// toolAcc assembles one streamed tool call.
type toolAcc struct {
	id, name string
	args     []byte
}

// call is the finished call; arguments that are not JSON are kept as
// {"_raw": "..."} so the loop can report them to the model.
func (a *toolAcc) call() *ToolCall {
	in := json.RawMessage(a.args)
	switch {
	case len(a.args) == 0:
		in = json.RawMessage(`{}`)
	case !json.Valid(a.args):
		in, _ = json.Marshal(map[string]string{"_raw": string(a.args)})
	}
	return &ToolCall{ID: a.id, Name: a.name, Input: in}
}

type anthropicStream struct {
	p     *anthropicProvider
	s     *ssestream.Stream[anthropic.MessageStreamEventUnion]
	tools map[int64]*toolAcc
	usage Usage
	stop  string
	err   error
	ended bool
}

func (st *anthropicStream) Next() (Event, bool) {
	if st.ended {
		return Event{}, false
	}
	for st.s.Next() {
		ev := st.s.Current()
		switch ev.Type {
		case "message_start":
			u := ev.Message.Usage
			st.usage.InputTokens = u.InputTokens
			st.usage.CacheReadTokens = u.CacheReadInputTokens
			st.usage.CacheWriteTokens = u.CacheCreationInputTokens
			st.usage.OutputTokens = u.OutputTokens
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				st.tools[ev.Index] = &toolAcc{id: ev.ContentBlock.ID, name: ev.ContentBlock.Name}
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				if ev.Delta.Text != "" {
					return Event{Kind: EvText, Text: ev.Delta.Text}, true
				}
			case "thinking_delta":
				if ev.Delta.Thinking != "" {
					return Event{Kind: EvThinking, Text: ev.Delta.Thinking}, true
				}
			case "input_json_delta":
				if a := st.tools[ev.Index]; a != nil {
					a.args = append(a.args, ev.Delta.PartialJSON...)
				}
			}
		case "content_block_stop":
			if a := st.tools[ev.Index]; a != nil {
				delete(st.tools, ev.Index)
				return Event{Kind: EvToolCall, Call: a.call()}, true
			}
		case "message_delta":
			if ev.Delta.StopReason != "" {
				st.stop = string(ev.Delta.StopReason)
			}
			if ev.Usage.OutputTokens > 0 {
				st.usage.OutputTokens = ev.Usage.OutputTokens
			}
			if ev.Usage.InputTokens > 0 {
				st.usage.InputTokens = ev.Usage.InputTokens
			}
		case "message_stop":
			st.ended = true
			return Event{Kind: EvDone, Usage: st.usage, StopReason: st.stop}, true
		}
	}
	st.ended = true
	st.err = st.s.Err()
	if st.err == nil { // the body ended without message_stop: a cut stream
		st.err = io.ErrUnexpectedEOF
	}
	st.err = wrapErr(st.p.id, st.p.key, st.err)
	return Event{}, false
}

func (st *anthropicStream) Err() error { return st.err }

func (st *anthropicStream) Close() error { return st.s.Close() }
