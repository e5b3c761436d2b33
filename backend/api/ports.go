package api

import (
	"net/http"

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
	if err := a.opts.Board.SetPortRange(r.Context(), body); err != nil {
		boardError(w, err)
		return
	}
	a.getPortRange(w, r)
}
