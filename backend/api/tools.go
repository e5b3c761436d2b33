package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/clawboo/desktop/backend/mcp/toolbroker"
	"github.com/clawboo/desktop/backend/redact"
)

// The Tools MCP's broker over HTTP: the registry (with availability and
// risk), the audit trail, and the external MCP servers a person adds.

func (a *API) toolsReady(w http.ResponseWriter) bool {
	if a.opts.Tools == nil {
		writeError(w, http.StatusServiceUnavailable, "the tools broker is not running")
		return false
	}
	return true
}

func (a *API) listTools(w http.ResponseWriter, r *http.Request) {
	if !a.toolsReady(w) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"tools": a.opts.Tools.List(r.Context())})
}

func (a *API) toolsAudit(w http.ResponseWriter, r *http.Request) {
	if !a.toolsReady(w) {
		return
	}
	limit := 100
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			writeError(w, http.StatusBadRequest, "limit must be an integer from 1 to 1000")
			return
		}
		limit = n
	}
	rows, err := a.opts.Tools.Audit(r.Context(), limit)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"audit": rows})
}

func (a *API) listToolServers(w http.ResponseWriter, r *http.Request) {
	if !a.toolsReady(w) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"servers": a.opts.Tools.Servers()})
}

func toolServerError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, toolbroker.ErrInvalidServer):
		writeError(w, http.StatusBadRequest, "%v", err)
	case errors.Is(err, toolbroker.ErrServerExists):
		writeError(w, http.StatusConflict, "%v", err)
	case errors.Is(err, toolbroker.ErrNoServer):
		writeError(w, http.StatusNotFound, "%v", err)
	default:
		writeError(w, http.StatusInternalServerError, "%v", err)
	}
}

// addToolServer saves and connects a server, answering once it is ready or
// has failed (a server that fails to start is still added: 201, with its
// status and error).
func (a *API) addToolServer(w http.ResponseWriter, r *http.Request) {
	if !a.toolsReady(w) {
		return
	}
	var cfg toolbroker.ServerConfig
	if !decodeJSON(w, r, &cfg) {
		return
	}
	st, err := a.opts.Tools.AddServer(r.Context(), cfg)
	if err != nil {
		toolServerError(w, err)
		return
	}
	if st.CommandLine != "" {
		// Said as what it is: a program that runs as this user, now and at
		// every start (values are never in it: env holds names only).
		a.opts.Log.Warn("a command was registered to run as you, now and at every start: MCP server "+st.Name,
			"command", redact.Secrets(st.CommandLine), "via", answeredBy(r))
	}
	writeJSON(w, http.StatusCreated, map[string]any{"server": st})
}

func (a *API) removeToolServer(w http.ResponseWriter, r *http.Request) {
	if !a.toolsReady(w) {
		return
	}
	if err := a.opts.Tools.RemoveServer(r.Context(), r.PathValue("name")); err != nil {
		toolServerError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

func (a *API) reconnectToolServer(w http.ResponseWriter, r *http.Request) {
	if !a.toolsReady(w) {
		return
	}
	st, err := a.opts.Tools.Reconnect(r.PathValue("name"))
	if err != nil {
		toolServerError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"server": st})
}
