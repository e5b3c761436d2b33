package api

import (
	"errors"
	"net/http"

	"github.com/clawboo/desktop/backend/notices"
)

// noticeRoutes serves the phone notices' ntfy topic (backend/notices):
// GET /api/settings/ntfy → {url} ("" = off); PUT {url} saves it (empty
// turns notices off) → {url}, or 400 saying why it was refused; POST
// /api/settings/ntfy/test sends one test notice → 200 {sent: true}, or 502
// with the server's failure in words (400 when no URL is saved).
func (a *API) noticeRoutes() {
	a.mux.Handle("/api/settings/ntfy", methods{"GET": a.getNtfy, "PUT": a.putNtfy})
	a.mux.Handle("/api/settings/ntfy/test", methods{"POST": a.testNtfy})
}

func (a *API) noticesReady(w http.ResponseWriter) bool {
	if a.opts.Notices == nil {
		writeError(w, http.StatusServiceUnavailable, "phone notices are not available here (a host's server sends none)")
		return false
	}
	return true
}

func (a *API) getNtfy(w http.ResponseWriter, r *http.Request) {
	if !a.noticesReady(w) {
		return
	}
	u, err := a.opts.Notices.URL(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"url": u})
}

func (a *API) putNtfy(w http.ResponseWriter, r *http.Request) {
	if !a.noticesReady(w) {
		return
	}
	var body struct {
		URL *string `json:"url"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	if body.URL == nil {
		writeError(w, http.StatusBadRequest, `url is required: the ntfy topic URL, or "" to turn phone notices off`)
		return
	}
	u, err := a.opts.Notices.SetURL(r.Context(), *body.URL)
	switch {
	case errors.Is(err, notices.ErrInvalid):
		writeError(w, http.StatusBadRequest, "%v", err)
	case err != nil:
		writeError(w, http.StatusInternalServerError, "%v", err)
	default:
		writeJSON(w, http.StatusOK, map[string]string{"url": u})
	}
}

func (a *API) testNtfy(w http.ResponseWriter, r *http.Request) {
	if !a.noticesReady(w) {
		return
	}
	err := a.opts.Notices.Test(r.Context())
	switch {
	case errors.Is(err, notices.ErrOff):
		writeError(w, http.StatusBadRequest, "%v", err)
	case errors.Is(err, notices.ErrNotDelivered):
		writeError(w, http.StatusBadGateway, "%v", err)
	case err != nil:
		writeError(w, http.StatusInternalServerError, "%v", err)
	default:
		writeJSON(w, http.StatusOK, map[string]bool{"sent": true})
	}
}
