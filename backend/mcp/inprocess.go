package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// Session is an in-process connection to one server, bound to one
// identity for its whole life: the native runtime gets one per server per
// run, and every call it makes acts as that binding, whatever its context
// carries.
type Session struct {
	c      *client.Client
	caller Caller
}

// Session opens an in-process session on a server (no HTTP, no token: the
// host itself vouches for the binding).
func (h *Hub) Session(ctx context.Context, name string, b Binding) (*Session, error) {
	s, ok := h.servers[name]
	if !ok {
		return nil, fmt.Errorf("mcp: no server %q", name)
	}
	// mcp-go's client over our in-process transport (inprocess_transport.go),
	// which spares each answer a JSON round trip.
	c := client.NewClient(newInProcessTransport(s))
	sess := &Session{c: c, caller: Caller{Binding: b, Transport: "in-process"}}
	ctx = toolcall.WithCaller(ctx, sess.caller)
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "clawboo-native", Version: h.opts.Version}
	if _, err := c.Initialize(ctx, init); err != nil {
		_ = c.Close()
		return nil, err
	}
	return sess, nil
}

// ListTools lists the tools this session may call.
func (s *Session) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	res, err := s.c.ListTools(toolcall.WithCaller(ctx, s.caller), mcp.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	return res.Tools, nil
}

// CallTool calls a tool as the session's binding.
func (s *Session) CallTool(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return s.c.CallTool(toolcall.WithCaller(ctx, s.caller), req)
}

// Close ends the session.
func (s *Session) Close() error { return s.c.Close() }

// ToolDef is a tool as a caller outside this package sees it (mcp-go's
// types stay in here).
type ToolDef struct {
	Name        string
	Description string
	InputSchema json.RawMessage // a JSON Schema object
}

// Result is a tool call's answer: its text blocks joined (other content as
// JSON), whether it is an error, and the broker's denial code if any.
type Result struct {
	Text    string
	IsError bool
	Denied  string
}

// Tools lists the session's tools in the caller's terms.
func (s *Session) Tools(ctx context.Context) ([]ToolDef, error) {
	tools, err := s.ListTools(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ToolDef, 0, len(tools))
	for _, t := range tools {
		out = append(out, ToolDef{Name: t.Name, Description: t.Description, InputSchema: schemaOf(t)})
	}
	return out, nil
}

// Call calls a tool and answers in the caller's terms.
func (s *Session) Call(ctx context.Context, name string, args map[string]any) (Result, error) {
	res, err := s.CallTool(ctx, name, args)
	if err != nil {
		return Result{}, err
	}
	r := Result{Text: resultText(res), IsError: res.IsError}
	if res.Meta != nil {
		if d, ok := res.Meta.AdditionalFields["denied"].(string); ok {
			r.Denied = d
		}
	}
	return r, nil
}

// schemaOf is a tool's input schema as JSON (map keys sorted by the
// encoder, so the bytes are stable across calls).
func schemaOf(t mcp.Tool) json.RawMessage {
	if len(t.RawInputSchema) > 0 {
		return t.RawInputSchema
	}
	b, err := json.Marshal(t.InputSchema)
	if err != nil || string(b) == "null" {
		return json.RawMessage(`{"type":"object"}`)
	}
	return b
}

// resultText joins a result's text blocks; other content is shown as JSON.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := mcp.AsTextContent(c); ok {
			parts = append(parts, t.Text)
			continue
		}
		b, _ := json.Marshal(c)
		parts = append(parts, string(b))
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		parts = append(parts, string(b))
	}
	return strings.Join(parts, "\n")
}
