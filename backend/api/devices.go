package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/devices"
)

// Paired phones (issue 30): pairing turns the LAN listener on, and
// removing the last device turns it off (the root's Pairing and
// DevicesChanged).

// Pairing is an open pairing window as POST /api/devices/pairing answers.
type Pairing struct {
	URL string `json:"url"`
	// QR is the link as a QR code: an SVG image's data: URL.
	QR          string `json:"qr"`
	Fingerprint string `json:"fingerprint"`
	ExpiresAt   int64  `json:"expiresAt"`
}

func (a *API) devicesReady(w http.ResponseWriter) bool {
	if a.opts.Devices == nil || a.opts.Pairing == nil {
		writeError(w, http.StatusServiceUnavailable, "pairing phones is not available on this server")
		return false
	}
	return true
}

// startPairing: POST /api/devices/pairing {address?} → 200 {url,
// fingerprint, expiresAt}.
func (a *API) startPairing(w http.ResponseWriter, r *http.Request) {
	if !a.devicesReady(w) {
		return
	}
	var body struct {
		Address string `json:"address"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	p, err := a.opts.Pairing(r.Context(), body.Address)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	a.opts.Log.Info("pairing a phone: the LAN listener is on", "from", answeredBy(r))
	writeJSON(w, http.StatusOK, p)
}

func (a *API) listDevices(w http.ResponseWriter, r *http.Request) {
	if !a.devicesReady(w) {
		return
	}
	ds, err := a.opts.Devices.List(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"devices": ds})
}

// patchDevice renames a device: PATCH /api/devices/{id} {name}.
func (a *API) patchDevice(w http.ResponseWriter, r *http.Request) {
	if !a.devicesReady(w) {
		return
	}
	var body struct {
		Name string `json:"name"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	d, err := a.opts.Devices.Rename(r.Context(), r.PathValue("id"), body.Name)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]any{"device": d})
	case errors.Is(err, devices.ErrNotFound):
		writeError(w, http.StatusNotFound, "%v", err)
	case errors.Is(err, devices.ErrName):
		writeError(w, http.StatusBadRequest, "%v", err)
	default:
		writeError(w, http.StatusInternalServerError, "%v", err)
	}
}

// removeDevice revokes a device at once (its open stream ends); the last
// one removed turns the LAN listener off.
func (a *API) removeDevice(w http.ResponseWriter, r *http.Request) {
	if !a.devicesReady(w) {
		return
	}
	d, err := a.opts.Devices.Revoke(r.Context(), r.PathValue("id"))
	switch {
	case errors.Is(err, devices.ErrNotFound):
		writeError(w, http.StatusNotFound, "%v", err)
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	a.opts.Log.Info("a phone was removed", "device", d.Name, "from", answeredBy(r))
	a.recordDevice(r.Context(), approval.PhoneRemoved(d.Name, answeredBy(r)))
	if a.opts.DevicesChanged != nil {
		a.opts.DevicesChanged(r.Context())
	}
	w.WriteHeader(http.StatusNoContent)
}

// recordDevice puts a pairing or a removal in the approvals history (when
// the queue runs), even when the client has gone: the act is done either
// way, so a failure to write it is only logged.
func (a *API) recordDevice(ctx context.Context, e approval.Entry) {
	if a.opts.Approvals == nil {
		return
	}
	if _, err := a.opts.Approvals.Record(context.WithoutCancel(ctx), e); err != nil {
		a.opts.Log.Warn("a phone's pairing or removal is not in the approvals history", "entry", e.Title, "err", err)
	}
}
