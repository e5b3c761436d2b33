package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// mcpTimeout bounds one !mcp call, connection included.
const mcpTimeout = 30 * time.Second

// mcpCall is `!mcp SERVER TOOL JSON`: a tools/call of TOOL with the
// arguments JSON (an object; default {}) on the MCP server named SERVER
// among those session/new gave this session, over its own transport (HTTP
// with its headers, or a stdio child with its env), as a real agent would.
// It says "mcp: <the result's text>", or "mcp error: <why>" (a tool result
// marked isError says "mcp error: tool: <text>").
func (t *turn) mcpCall(arg string) {
	parts := strings.SplitN(arg, " ", 3)
	if len(parts) < 2 {
		t.fail("mcp", errors.New("want SERVER TOOL [JSON]"))
		return
	}
	args := map[string]any{}
	if len(parts) == 3 {
		if err := json.Unmarshal([]byte(parts[2]), &args); err != nil {
			t.fail("mcp", fmt.Errorf("arguments: %w", err))
			return
		}
	}
	srv, ok := t.a.server(t.sid, parts[0])
	if !ok {
		t.say("mcp error: no MCP server named " + parts[0] + " in this session")
		return
	}
	ctx, cancel := context.WithTimeout(t.ctx, mcpTimeout)
	defer cancel()
	text, err := callTool(ctx, srv, parts[1], args)
	if err != nil {
		t.say("mcp error: " + err.Error())
		return
	}
	t.say("mcp: " + text)
}

func callTool(ctx context.Context, srv acp.McpServer, tool string, args map[string]any) (string, error) {
	c, err := dial(srv)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return "", fmt.Errorf("start: %w", err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "fakeacp", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", fmt.Errorf("tools/call: %w", err)
	}
	var texts []string
	for _, content := range res.Content {
		if tc, ok := content.(mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("tool: %s", strings.Join(texts, " "))
	}
	return strings.Join(texts, " "), nil
}

// dial makes a client for the server as session/new described it.
func dial(srv acp.McpServer) (*client.Client, error) {
	switch {
	case srv.Http != nil:
		headers := map[string]string{}
		for _, h := range srv.Http.Headers {
			headers[h.Name] = h.Value
		}
		return client.NewStreamableHttpClient(srv.Http.Url, transport.WithHTTPHeaders(headers))
	case srv.Stdio != nil:
		env := make([]string, 0, len(srv.Stdio.Env))
		for _, e := range srv.Stdio.Env {
			env = append(env, e.Name+"="+e.Value)
		}
		tr := transport.NewStdio(srv.Stdio.Command, env, srv.Stdio.Args...)
		return client.NewClient(tr), nil
	default:
		return nil, errors.New("a server of a transport this agent does not speak")
	}
}

// serverName is a server's name whatever its transport.
func serverName(s acp.McpServer) string {
	switch {
	case s.Http != nil:
		return s.Http.Name
	case s.Stdio != nil:
		return s.Stdio.Name
	case s.Sse != nil:
		return s.Sse.Name
	}
	return ""
}

// server is the session's MCP server called name.
func (a *agent) server(sid acp.SessionId, name string) (acp.McpServer, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.servers[sid] {
		if serverName(s) == name {
			return s, true
		}
	}
	return acp.McpServer{}, false
}
