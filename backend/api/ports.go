package api

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/clawboo/desktop/backend/board"
)

// portRoutes serves the range worktrees lease their ports from:
// GET /api/settings/port-range → {first, last, block}; PUT with the same
// body changes it for new leases (live leases keep their ports).
func (a *API) portRoutes() {
	a.mux.Handle("/api/settings/port-range", methods{"GET": a.getPortRange, "PUT": a.putPortRange})
}

func (a *API) getPortRange(w http.ResponseWriter, r *http.Request) {
	pr, err := a.opts.Board.PortRange(r.Context())
	if err != nil {
		boardError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, pr)
}

func (a *API) putPortRange(w http.ResponseWriter, r *http.Request) {
	var body board.PortRange
	if !decodeJSON(w, r, &body) {
		return
	}
	if own := a.ownPort(r); own > 0 && body.Holds(own) {
		writeError(w, http.StatusBadRequest, "the range %d–%d holds %d, the port Clawboo itself listens on: choose a range without it", body.First, body.Last, own)
		return
	}
	if err := a.opts.Board.SetPortRange(r.Context(), body); err != nil {
		boardError(w, err)
		return
	}
	a.getPortRange(w, r)
}

// ownPort is the port this server listens on (where MCP clients reach it),
// 0 when it cannot be told.
func (a *API) ownPort(r *http.Request) int {
	u, err := url.Parse(a.mcpBase(r))
	if err != nil {
		return 0
	}
	p, _ := strconv.Atoi(u.Port())
	return p
}
