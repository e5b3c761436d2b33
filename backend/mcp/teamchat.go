package mcp

import "github.com/mark3labs/mcp-go/server"

func newTeamChatServer(h *Hub) (*server.MCPServer, error) { return h.newServer(TeamChat), nil }
