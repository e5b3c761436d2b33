package mcp

import (
	"github.com/clawboo/desktop/backend/mcp/memory"
	"github.com/mark3labs/mcp-go/server"
)

// newMemoryServer serves the Memory tools (backend/mcp/memory, which owns
// the facts, their search and the embedders); the hub gives them the
// transport and the verified caller.
func newMemoryServer(h *Hub) (*server.MCPServer, error) {
	s := h.newServer(Memory)
	memory.New(memory.Options{Store: h.opts.Store, Embedder: h.opts.Embedder, Log: h.opts.Log, Now: h.opts.Now}).Attach(s)
	return s, nil
}
