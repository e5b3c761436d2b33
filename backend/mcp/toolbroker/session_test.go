package toolbroker

import (
	"context"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// session is an in-process client acting as bind, the way the hub's
// Session carries its caller on every request.
type session struct {
	c      *client.Client
	caller toolcall.Caller
}

func (f *toolsFixture) session(t *testing.T, bind toolcall.Binding) *session {
	t.Helper()
	c, err := client.NewInProcessClient(f.srv)
	if err != nil {
		t.Fatal(err)
	}
	s := &session{c: c, caller: toolcall.Caller{Binding: bind, Transport: "in-process"}}
	ctx := toolcall.WithCaller(context.Background(), s.caller)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return s
}

func (s *session) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	res, err := s.c.ListTools(toolcall.WithCaller(ctx, s.caller), mcp.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	return res.Tools, nil
}

func (s *session) CallTool(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	return s.c.CallTool(toolcall.WithCaller(ctx, s.caller), req)
}

func callText(t *testing.T, res *mcp.CallToolResult, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
