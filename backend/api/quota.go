package api

import (
	"errors"
	"net/http"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/quota"
)

// quotaSilent are the runtimes that report no usage windows, and why.
var quotaSilent = []map[string]string{
	{"runtime": string(executor.OpenClaw), "why": "OpenClaw reports no usage windows: its Gateway does not pass its providers' limits on"},
	{"runtime": string(executor.Hermes), "why": "Hermes reports no usage windows: its quiet mode prints only the answer and the session id"},
}

func (a *API) quotaRoutes() {
	a.mux.Handle("/api/quota", methods{"GET": a.getQuota})
	a.mux.Handle("/api/quota/limits", methods{"PUT": a.putQuotaLimit, "DELETE": a.deleteQuotaLimit})
	a.mux.Handle("/api/quota/deferred/{id}", methods{"DELETE": a.cancelDeferral})
	a.mux.Handle("/api/quota/windows/{runtime}/{window}", methods{"DELETE": a.clearQuotaWindow})
	a.mux.Handle("/api/settings/quota-threshold", methods{"GET": a.getQuotaThreshold, "PUT": a.putQuotaThreshold})
}

func (a *API) quotaReady(w http.ResponseWriter) bool {
	if a.opts.Quota == nil {
		writeError(w, http.StatusServiceUnavailable, "the quota ledger is not available on this server")
		return false
	}
	return true
}

func quotaError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, quota.ErrBadRequest):
		writeError(w, http.StatusBadRequest, "%s", err.Error())
	case errors.Is(err, quota.ErrNotFound), errors.Is(err, quota.ErrNoWindow):
		writeError(w, http.StatusNotFound, "%s", err.Error())
	default:
		writeError(w, http.StatusInternalServerError, "%s", err.Error())
	}
}

// getQuota answers the ledger, the threshold, the deferred work and the
// quota budgets in one read (the Spend page re-reads it on each "quota"
// event).
func (a *API) getQuota(w http.ResponseWriter, r *http.Request) {
	if !a.quotaReady(w) {
		return
	}
	q, ctx := a.opts.Quota, r.Context()
	deferred, err := q.Deferred(ctx)
	if err != nil {
		quotaError(w, err)
		return
	}
	limits, err := q.Limits(ctx)
	if err != nil {
		quotaError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"threshold": q.Threshold(ctx), "windows": q.Windows(),
		"silent": quotaSilent, "deferred": deferred, "limits": limits,
	})
}

func (a *API) getQuotaThreshold(w http.ResponseWriter, r *http.Request) {
	if a.quotaReady(w) {
		writeJSON(w, http.StatusOK, map[string]any{"percent": a.opts.Quota.Threshold(r.Context())})
	}
}

func (a *API) putQuotaThreshold(w http.ResponseWriter, r *http.Request) {
	if !a.quotaReady(w) {
		return
	}
	var body struct {
		Percent *float64 `json:"percent"`
	}
	if !decodeJSON(w, r, &body) {
		return
	}
	if body.Percent == nil {
		writeError(w, http.StatusBadRequest, "percent is required (1 to 100)")
		return
	}
	if err := a.opts.Quota.SetThreshold(r.Context(), *body.Percent); err != nil {
		quotaError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"percent": a.opts.Quota.Threshold(r.Context())})
}

func (a *API) putQuotaLimit(w http.ResponseWriter, r *http.Request) {
	if !a.quotaReady(w) {
		return
	}
	var l quota.Limit
	if !decodeJSON(w, r, &l) {
		return
	}
	if l.Runtime != "" {
		if _, ok := a.opts.Catalog.Descriptor(executor.ID(l.Runtime)); !ok {
			writeError(w, http.StatusBadRequest, "unknown runtime '%s'", l.Runtime)
			return
		}
	}
	if !a.quotaScopeExists(r, l.Scope, l.ScopeID) {
		writeError(w, http.StatusBadRequest, "no %s '%s'", l.Scope, l.ScopeID)
		return
	}
	l, err := a.opts.Quota.SetLimit(r.Context(), l)
	if err != nil {
		quotaError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"limit": l})
}

// quotaScopeExists checks a quota budget names an agent or team there is.
func (a *API) quotaScopeExists(r *http.Request, scope, id string) bool {
	switch scope {
	case "agent":
		if a.opts.Agents == nil {
			return true
		}
		_, err := a.opts.Agents.Get(r.Context(), id)
		return err == nil
	case "team":
		if a.opts.Teams == nil {
			return true
		}
		ok, err := a.opts.Teams.Exists(r.Context(), id)
		return err == nil && ok
	}
	return true // the ledger refuses the scope itself
}

func (a *API) deleteQuotaLimit(w http.ResponseWriter, r *http.Request) {
	if !a.quotaReady(w) {
		return
	}
	q := r.URL.Query()
	if err := a.opts.Quota.DeleteLimit(r.Context(), q.Get("scope"), q.Get("scopeId"), q.Get("runtime"), q.Get("window")); err != nil {
		quotaError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *API) cancelDeferral(w http.ResponseWriter, r *http.Request) {
	if !a.quotaReady(w) {
		return
	}
	if err := a.opts.Quota.Cancel(r.Context(), r.PathValue("id")); err != nil {
		quotaError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// clearQuotaWindow answers DELETE /api/quota/windows/{runtime}/{window}
// (?account= names the account, "" when the window has none): a person
// clears a window the ledger holds; the work it held is tried again at
// once. 204; 404 for a window the ledger does not hold.
func (a *API) clearQuotaWindow(w http.ResponseWriter, r *http.Request) {
	if !a.quotaReady(w) {
		return
	}
	runtime, window, account := r.PathValue("runtime"), r.PathValue("window"), r.URL.Query().Get("account")
	if err := a.opts.Quota.Clear(r.Context(), runtime, account, window); err != nil {
		if errors.Is(err, quota.ErrNoWindow) {
			writeError(w, http.StatusNotFound, "no %s window of %s (account %q) in the quota ledger", window, runtime, account)
			return
		}
		quotaError(w, err)
		return
	}
	a.opts.Log.Info("quota window cleared by a person", "runtime", runtime, "window", window)
	w.WriteHeader(http.StatusNoContent)
}
