package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestMCPConfigAttachesToTheRunningServer drives `clawboo mcp config` as a
// person attaching their own client would: its output, pasted as is,
// reaches the running server's MCP endpoints; the API's copy holds no
// token.
func TestMCPConfigAttachesToTheRunningServer(t *testing.T) {
	s := startServe(t, []string{"CLAWBOO_VAULT=file"}, "--addr", "127.0.0.1:0")

	cmd := exec.Command(bin, "mcp", "config", "--client", "claude", "--home", s.home)
	cmd.Env = append(os.Environ(), "CLAWBOO_VAULT=file")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	var cfg struct {
		MCPServers map[string]struct {
			Type    string            `json:"type"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil || len(cfg.MCPServers) != 4 {
		t.Fatalf("%v\n%s", err, out)
	}
	token := strings.TrimPrefix(cfg.MCPServers["clawboo-teamchat"].Headers["Authorization"], "Bearer ")
	ctx := context.Background()
	for name, e := range cfg.MCPServers {
		if e.Type != "http" || !strings.HasPrefix(e.URL, s.url+"/mcp/") {
			t.Fatalf("%s: %+v (server at %s)", name, e, s.url)
		}
		c, err := client.NewStreamableHttpClient(e.URL, transport.WithHTTPHeaders(e.Headers))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Initialize(ctx, init); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "clawboo-teamchat" {
			req := mcp.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = "team_chat_subscribe", map[string]any{"teamId": "t1"}
			res, err := c.CallTool(ctx, req)
			if err != nil || res.IsError {
				t.Fatalf("%v %+v", err, res)
			}
			if text := res.Content[0].(mcp.TextContent).Text; text != `{"nextSeq":0,"posts":[]}` {
				t.Fatal(text)
			}
		}
	}

	code, body := s.get(t, "/api/mcp/config")
	if code != 200 || strings.Contains(string(body), token) || !strings.Contains(string(body), `"baseUrl":"`+s.url+`"`) {
		t.Fatalf("%d %s", code, body)
	}
}
