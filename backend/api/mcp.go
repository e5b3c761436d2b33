package api

import (
	"context"
	"net"
	"net/http"
	"strconv"

	"github.com/clawboo/desktop/backend/mcp"
)

// mcpAttacher is what GET /api/mcp/config needs of the handler mounted at
// /mcp/ (the *mcp.Hub): the attach configuration for its token and key.
type mcpAttacher interface {
	Attach(baseURL string, b mcp.Binding, masked bool) (mcp.Attach, error)
}

// The hub mounted at /mcp/ must keep these methods: a rename would
// otherwise turn their routes into a silent 503.
var (
	_ mcpAttacher = (*mcp.Hub)(nil)
	_ mcpRotator  = (*mcp.Hub)(nil)
)

// defaultMCPBase is the base URL shown when the serving address is not
// known (a webview request with no MCPBaseURL wired): the default port.
const defaultMCPBase = "http://127.0.0.1:18790"

// mcpConfig answers GET /api/mcp/config: every runtime's attach
// configuration, unbound, with the token masked — the page shows what to
// paste and `clawboo mcp config` prints it with the real token. The token
// itself never leaves through the API.
func (a *API) mcpConfig(w http.ResponseWriter, r *http.Request) {
	at, ok := a.opts.MCP.(mcpAttacher)
	if !ok {
		writeError(w, http.StatusServiceUnavailable, "the MCP servers are not running")
		return
	}
	cfg, err := at.Attach(a.mcpBase(r), mcp.Binding{}, true)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "build the MCP attach configuration: %v", err)
		return
	}
	writeJSON(w, http.StatusOK, cfg)
}

// mcpBase is the URL MCP clients reach this server at: the wired
// MCPBaseURL, else the local address the request came in on (the MCP
// servers share this listener), else the default port.
func (a *API) mcpBase(r *http.Request) string {
	if a.opts.MCPBaseURL != nil {
		if u := a.opts.MCPBaseURL(); u != "" {
			return u
		}
	}
	if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && !inProcess(r) {
		if tcp, ok := addr.(*net.TCPAddr); ok {
			return "http://" + net.JoinHostPort(tcp.IP.String(), strconv.Itoa(tcp.Port))
		}
	}
	return defaultMCPBase
}

// mcpRotator is what POST /api/mcp/token/rotate needs of the hub.
type mcpRotator interface {
	RotateToken(ctx context.Context) (masked string, err error)
}

// rotateMCPToken answers POST /api/mcp/token/rotate: a new install token,
// stored in the vault and served at once. Every client configured with the
// old one stops working (runs in progress keep their own tokens; an
// OpenClaw Gateway is registered again when it was). The answer shows the
// new token masked only: `clawboo mcp config` prints it.
func (a *API) rotateMCPToken(w http.ResponseWriter, r *http.Request) {
	rt, ok := a.opts.MCP.(mcpRotator)
	if !ok {
		writeError(w, http.StatusServiceUnavailable, "the MCP servers are not running")
		return
	}
	masked, err := rt.RotateToken(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, "rotate the MCP attach token: %v", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{
		"token": masked,
		"next":  "the old token no longer works; `clawboo mcp config` prints the configuration with the new one",
	})
}
