package mcp

import "github.com/mark3labs/mcp-go/server"

// TaskBoard is what the Tasks server needs of the board (placeholder: the
// Tasks work fills it in).
type TaskBoard interface{}

func newTasksServer(h *Hub) (*server.MCPServer, error) { return h.newServer(Tasks), nil }
