package main

import (
	"fmt"
	"io"
	"os"

	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/mcp/stdiobridge"
)

// `clawboo mcp bridge URL`: one of Clawboo's MCP servers as a stdio MCP
// server, for an ACP agent that starts MCP servers only as child
// processes. The run's token comes in the environment (mcp.TokenEnv), never
// on the command line; the bridge ends when its stdin does.
func mcpBridge(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprint(stderr, "clawboo mcp bridge: expected one argument, the MCP server's URL\n\n"+mcpUsage)
		return 2
	}
	return stdiobridge.Serve(stdin, stdout, stderr, args[0], getenv(mcp.TokenEnv))
}

// selfBridge is how an ACP agent starts the bridge: this very program.
func selfBridge() []string {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{exe, "mcp", "bridge"}
}
