package openclaw

import (
	"context"
	"encoding/json"
	"fmt"
)

// Registered is what RegisterMCP wrote.
type Registered struct {
	Servers []string `json:"servers"`
	// Hash is the Gateway config's hash after the patch, when it said.
	Hash string `json:"hash,omitempty"`
}

// RegisterMCP merges MCP servers into the Gateway config's mcp.servers
// (config.patch against the current config's hash, so a concurrent edit
// is refused rather than overwritten). servers maps each server name to
// its entry ({url, transport, headers}); the Gateway hot-reloads its
// config. The entries carry the attach token, which travels only inside
// this request.
func RegisterMCP(ctx context.Context, c *Client, servers map[string]any) (Registered, error) {
	if len(servers) == 0 {
		return Registered{}, fmt.Errorf("openclaw: no MCP servers to register")
	}
	var cur struct {
		Hash string `json:"hash"`
	}
	if err := c.Request(ctx, "config.get", map[string]any{}, &cur); err != nil {
		return Registered{}, fmt.Errorf("openclaw: read the Gateway config: %w", err)
	}
	raw, err := json.Marshal(map[string]any{"mcp": map[string]any{"servers": servers}})
	if err != nil {
		return Registered{}, err
	}
	p := map[string]any{"raw": string(raw), "note": "Clawboo registered its MCP servers"}
	if cur.Hash != "" {
		p["baseHash"] = cur.Hash
	}
	var res struct {
		Hash string `json:"hash"`
	}
	if err := c.Request(ctx, "config.patch", p, &res); err != nil {
		return Registered{}, fmt.Errorf("openclaw: patch the Gateway config: %w", err)
	}
	out := Registered{Hash: res.Hash}
	for name := range servers {
		out.Servers = append(out.Servers, name)
	}
	return out, nil
}

// MCPServers reads the Gateway config's mcp.servers: each name and its
// URL (headers are redacted by the Gateway and not returned).
func MCPServers(ctx context.Context, c *Client) (map[string]string, error) {
	var cur struct {
		Config struct {
			MCP struct {
				Servers map[string]struct {
					URL string `json:"url"`
				} `json:"servers"`
			} `json:"mcp"`
		} `json:"config"`
	}
	if err := c.Request(ctx, "config.get", map[string]any{}, &cur); err != nil {
		return nil, fmt.Errorf("openclaw: read the Gateway config: %w", err)
	}
	out := map[string]string{}
	for name, s := range cur.Config.MCP.Servers {
		out[name] = s.URL
	}
	return out, nil
}
