package mcp

import (
	"github.com/clawboo/desktop/backend/mcp/toolbroker"
	"github.com/mark3labs/mcp-go/server"
)

// newToolsServer serves the tools broker (backend/mcp/toolbroker), which
// owns the registry, the policy and the external servers; the hub gives it
// the transport and the verified caller.
func newToolsServer(h *Hub) (*server.MCPServer, error) {
	b := toolbroker.New(toolbroker.Options{
		Store: h.opts.Store, Approver: h.opts.Approvals, Log: h.opts.Log,
		Now: h.opts.Now, Version: h.opts.Version,
	})
	s := h.newServer(Tools, server.WithToolFilter(b.Filter))
	b.Attach(s)
	h.closers = append(h.closers, b.Close)
	h.broker = b
	return s, nil
}
