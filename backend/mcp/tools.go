package mcp

import "github.com/mark3labs/mcp-go/server"

// Approver asks a person (placeholder: the Tools work fills it in).
type Approver interface{}

func newToolsServer(h *Hub) (*server.MCPServer, error) { return h.newServer(Tools), nil }
