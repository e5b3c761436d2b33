package api

import (
	"errors"
	"net/http"

	"github.com/clawboo/desktop/backend/config"
)

// autostartRoutes serve "start at login" (config.Autostart, an XDG
// autostart entry; off by default):
// GET /api/settings/autostart → {enabled, supported, path, reason?};
// PUT {enabled} writes or removes the entry and answers the same as GET.
// Off Linux the PUT is refused (501) in words saying what to do instead.
func (a *API) autostartRoutes() {
	a.mux.Handle("/api/settings/autostart", methods{"GET": a.getAutostart, "PUT": a.putAutostart})
}

type autostartView struct {
	Enabled   bool   `json:"enabled"`
	Supported bool   `json:"supported"`
	Path      string `json:"path,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

func (a *API) getAutostart(w http.ResponseWriter, r *http.Request) {
	as := a.opts.Autostart
	v := autostartView{Supported: as.Supported()}
	if !v.Supported {
		v.Reason = config.ErrAutostartUnsupported.Error()
		writeJSON(w, http.StatusOK, v)
		return
	}
	p, err := as.Path()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%s", err)
		return
	}
	v.Path = p
	if v.Enabled, err = as.Enabled(); err != nil {
		writeError(w, http.StatusInternalServerError, "%s", err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (a *API) putAutostart(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Enabled *bool `json:"enabled"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	if body.Enabled == nil {
		writeError(w, http.StatusBadRequest, "enabled (true or false) is required")
		return
	}
	if err := a.opts.Autostart.Set(*body.Enabled); errors.Is(err, config.ErrAutostartUnsupported) {
		writeError(w, http.StatusNotImplemented, "%s", err)
		return
	} else if err != nil {
		writeError(w, http.StatusInternalServerError, "%s", err)
		return
	}
	a.opts.Log.Info("start at login changed", "enabled", *body.Enabled)
	a.getAutostart(w, r)
}
