package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/clawboo/desktop/backend/hosts"
)

// The other machines a team's runs may go to (backend/hosts).

func (a *API) hostsReady(w http.ResponseWriter) bool {
	if a.opts.Hosts == nil {
		writeError(w, http.StatusServiceUnavailable, "hosts are not available")
		return false
	}
	return true
}

// listHosts: GET /api/hosts → {hosts: [...]}.
func (a *API) listHosts(w http.ResponseWriter, r *http.Request) {
	if !a.hostsReady(w) {
		return
	}
	hs, err := a.opts.Hosts.List(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"hosts": hs})
}

func (a *API) getHost(w http.ResponseWriter, r *http.Request) {
	if !a.hostsReady(w) {
		return
	}
	h, err := a.opts.Hosts.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		hostError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"host": h})
}

// addHost: POST /api/hosts {destination, name?} → 201 {host} (state
// connecting; the probe goes on in the background).
func (a *API) addHost(w http.ResponseWriter, r *http.Request) {
	if !a.hostsReady(w) {
		return
	}
	var body struct {
		Destination string `json:"destination"`
		Name        string `json:"name"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	h, err := a.opts.Hosts.Add(r.Context(), body.Destination, body.Name)
	if err != nil {
		hostError(w, err)
		return
	}
	a.opts.Log.Info("a host was added", "host", h.Name, "destination", h.Destination, "from", answeredBy(r))
	writeJSON(w, http.StatusCreated, map[string]any{"host": h})
}

// trustHost: POST /api/hosts/{id}/trust {fingerprint} → 200 {host} once
// the key shown was accepted and the host looked at again; 409 when the
// host is not waiting for its key, or now shows another one.
func (a *API) trustHost(w http.ResponseWriter, r *http.Request) {
	if !a.hostsReady(w) {
		return
	}
	var body struct {
		Fingerprint string `json:"fingerprint"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	h, err := a.opts.Hosts.Trust(r.Context(), r.PathValue("id"), body.Fingerprint)
	if err != nil {
		hostError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"host": h})
}

// checkHost: POST /api/hosts/{id}/check → 202: the host is looked at
// again in the background.
func (a *API) checkHost(w http.ResponseWriter, r *http.Request) {
	if !a.hostsReady(w) {
		return
	}
	h, err := a.opts.Hosts.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		hostError(w, err)
		return
	}
	a.opts.Hosts.Check(h.ID)
	writeJSON(w, http.StatusAccepted, map[string]any{"host": h})
}

// patchHost: PATCH /api/hosts/{id} {name?, concurrency?} → 200 {host};
// concurrency 0 sets it from the host's memory and cores.
func (a *API) patchHost(w http.ResponseWriter, r *http.Request) {
	if !a.hostsReady(w) {
		return
	}
	var body hosts.Patch
	if !decodeJSON(w, r, &body) {
		return
	}
	h, err := a.opts.Hosts.Update(r.Context(), r.PathValue("id"), body)
	if err != nil {
		hostError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"host": h})
}

func (a *API) removeHost(w http.ResponseWriter, r *http.Request) {
	if !a.hostsReady(w) {
		return
	}
	id := r.PathValue("id")
	why, err := a.stillPlaced(r.Context(), id)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	if why != "" {
		// A person's placement is theirs to change: removing the host does
		// not quietly move their agents' or teams' work to this computer.
		writeError(w, http.StatusConflict, "%s", why)
		return
	}
	if err := a.opts.Hosts.Remove(r.Context(), id); err != nil {
		hostError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// stillPlaced says, in words, which agents or teams are placed on a host
// ("" for none).
func (a *API) stillPlaced(ctx context.Context, id string) (string, error) {
	if a.opts.Agents != nil {
		names, err := a.opts.Agents.PlacedOn(ctx, id)
		if err != nil {
			return "", err
		}
		if len(names) > 0 {
			return fmt.Sprintf("%s %s placed on this host: choose where %s instead first (its page, Runs on)",
				strings.Join(names, ", "), isAre(len(names)), themIt(len(names))), nil
		}
	}
	if a.opts.Teams != nil {
		names, err := a.opts.Teams.PlacedOn(ctx, id)
		if err != nil {
			return "", err
		}
		switch len(names) {
		case 0:
		case 1:
			return "the team " + names[0] + " runs on this host by default: choose where instead first (the team's Runs on)", nil
		default:
			return "the teams " + strings.Join(names, ", ") + " run on this host by default: choose where instead first (the team's Runs on)", nil
		}
	}
	return "", nil
}

// installOnHost: POST /api/hosts/{id}/runtimes/{rt}/install streams the
// host's own install of rt (the same events as POST
// /api/runtimes/{id}/install here), then the host is looked at again.
func (a *API) installOnHost(w http.ResponseWriter, r *http.Request) {
	if !a.hostsReady(w) {
		return
	}
	var sse *sseWriter
	err := a.opts.Hosts.InstallRuntime(r.Context(), r.PathValue("id"), r.PathValue("rt"), func(ev []byte) {
		if sse == nil {
			sse = newSSE(w)
		}
		sse.event(0, "", ev)
		_ = sse.flush()
	})
	switch {
	case err == nil && sse == nil:
		writeError(w, http.StatusBadGateway, "the host's install said nothing")
	case err != nil && sse != nil:
		// The stream began: the failure is its last event.
		b, _ := json.Marshal(map[string]any{"type": "error", "code": "HOST_LINK", "message": err.Error()})
		sse.event(0, "", b)
		_ = sse.flush()
	case err != nil:
		var refused *hosts.HostRefused
		if errors.As(err, &refused) {
			writeError(w, refused.Code, "%s", refused.Msg)
			return
		}
		hostError(w, err)
	}
}

func hostError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, hosts.ErrNotFound):
		writeError(w, http.StatusNotFound, "%v", err)
	case errors.Is(err, hosts.ErrDestination), errors.Is(err, hosts.ErrName), errors.Is(err, hosts.ErrConcurrency):
		writeError(w, http.StatusBadRequest, "%v", err)
	case errors.Is(err, hosts.ErrTaken), errors.Is(err, hosts.ErrNotAsked), errors.Is(err, hosts.ErrKeyKnown),
		errors.Is(err, hosts.ErrFingerprintChanged), errors.Is(err, hosts.ErrNotReady):
		writeError(w, http.StatusConflict, "%v", err)
	default:
		writeError(w, http.StatusBadGateway, "%v", err)
	}
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func themIt(n int) string {
	if n == 1 {
		return "it runs"
	}
	return "they run"
}
