package mcp

import (
	"context"
	"fmt"

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
	c, err := client.NewInProcessClient(s)
	if err != nil {
		return nil, err
	}
	sess := &Session{c: c, caller: Caller{Binding: b, Transport: "in-process"}}
	ctx = withCaller(ctx, sess.caller)
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
	res, err := s.c.ListTools(withCaller(ctx, s.caller), mcp.ListToolsRequest{})
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
	return s.c.CallTool(withCaller(ctx, s.caller), req)
}

// Close ends the session.
func (s *Session) Close() error { return s.c.Close() }
