package openclaw

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestRealRegisterMCPServers(t *testing.T) {
	e := newRealEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const bearer = "Bearer attach-token-SENTINEL-99"
	servers := map[string]any{}
	for _, n := range []string{"clawboo-tasks", "clawboo-memory", "clawboo-tools"} {
		servers[n] = map[string]any{
			"url":       "http://127.0.0.1:9/mcp/" + strings.TrimPrefix(n, "clawboo-"),
			"transport": "streamable-http", "headers": map[string]string{"Authorization": bearer},
		}
	}
	reg, err := RegisterMCP(ctx, e.c, servers)
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.Servers) != 3 {
		t.Fatalf("registered %+v", reg)
	}
	got, err := MCPServers(ctx, e.c)
	if err != nil {
		t.Fatal(err)
	}
	if got["clawboo-tasks"] != "http://127.0.0.1:9/mcp/tasks" || got["clawboo-tools"] != "http://127.0.0.1:9/mcp/tools" || got["clawboo-memory"] == "" {
		t.Fatalf("mcp.servers after the patch: %v", got)
	}
	// The Gateway keeps the attach token but never hands it back.
	var raw json.RawMessage
	if err := e.c.Request(ctx, "config.get", map[string]any{}, &raw); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "attach-token-SENTINEL") {
		t.Fatal("config.get returned the attach token")
	}
	// Registering again (a second click) is harmless.
	if _, err := RegisterMCP(ctx, e.c, servers); err != nil {
		t.Fatalf("second registration: %v", err)
	}
}
