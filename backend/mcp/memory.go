package mcp

import "github.com/mark3labs/mcp-go/server"

// Embedder turns text into vectors (placeholder: the Memory work fills it in).
type Embedder interface{}

func newMemoryServer(h *Hub) (*server.MCPServer, error) { return h.newServer(Memory), nil }
