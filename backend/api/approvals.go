package api

import (
	"errors"
	"net/http"

	"github.com/clawboo/desktop/backend/approval"
)

// The approvals queue over HTTP: what is pending, one request, and an
// answer. The first answer wins; a late one is 409 with the request as it
// stands. Live changes arrive as "approval" events on GET /api/events.

func (a *API) approvalsReady(w http.ResponseWriter) bool {
	if a.opts.Approvals == nil {
		writeError(w, http.StatusServiceUnavailable, "the approvals queue is not running")
		return false
	}
	return true
}

func (a *API) listApprovals(w http.ResponseWriter, r *http.Request) {
	if !a.approvalsReady(w) {
		return
	}
	q := r.URL.Query()
	switch q.Get("status") {
	case "", "pending":
	case "answered":
		a.answeredApprovals(w, r)
		return
	default:
		writeError(w, http.StatusBadRequest, `status must be "pending" or "answered"`)
		return
	}
	ps, err := a.opts.Approvals.Pending(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"approvals": ps})
}

// answeredApprovals is GET /api/approvals?status=answered[&limit=n][&before=id]:
// the history, newest answer first, each with its answer (status), where it
// was given (resolvedBy: page, popup, tray, api; an expiry has none) and its
// note; nextCursor pages on.
func (a *API) answeredApprovals(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, ok := pageLimit(w, q)
	if !ok {
		return
	}
	rs, err := a.opts.Approvals.Answered(r.Context(), q.Get("before"), limit+1)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	var next *string
	if len(rs) > limit {
		rs = rs[:limit]
		c := rs[limit-1].ID
		next = &c
	}
	writeJSON(w, http.StatusOK, map[string]any{"approvals": rs, "nextCursor": next})
}

func (a *API) getApproval(w http.ResponseWriter, r *http.Request) {
	if !a.approvalsReady(w) {
		return
	}
	req, err := a.opts.Approvals.Get(r.Context(), r.PathValue("id"))
	switch {
	case errors.Is(err, approval.ErrNotFound):
		writeError(w, http.StatusNotFound, "unknown approval request '%s'", r.PathValue("id"))
	case err != nil:
		writeError(w, http.StatusInternalServerError, "%v", err)
	default:
		writeJSON(w, http.StatusOK, map[string]any{"approval": req})
	}
}

type resolveBody struct {
	Decision string `json:"decision"`
	Note     string `json:"note"`
	// By is what the client says of itself: ignored, the server records
	// where the answer came from (answeredBy). Kept so older pages that
	// send it are not refused.
	By string `json:"by"`
}

func (a *API) resolveApproval(w http.ResponseWriter, r *http.Request) {
	if !a.approvalsReady(w) {
		return
	}
	var body resolveBody
	if !decodeJSON(w, r, &body) {
		return
	}
	d := approval.Decision(body.Decision)
	switch d {
	case "allow": // issue 7's wording; "approve" keeps working
		d = approval.Approve
	case "always", "allow_always": // ACP's own name for the option
		d = approval.AllowAlways
	}
	if d != approval.Approve && d != approval.Deny && d != approval.AllowAlways {
		writeError(w, http.StatusBadRequest, `decision must be "allow" (or "approve"), "allow-always" or "deny"`)
		return
	}
	by := answeredBy(r)
	id := r.PathValue("id")
	req, err := a.opts.Approvals.Resolve(r.Context(), id, d, by, body.Note)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]any{"approval": req})
	case errors.Is(err, approval.ErrNotFound):
		writeError(w, http.StatusNotFound, "unknown approval request '%s'", id)
	case errors.Is(err, approval.ErrBadDecision), errors.Is(err, approval.ErrNoAlways):
		writeError(w, http.StatusBadRequest, "%v", err)
	case errors.Is(err, approval.ErrResolved), errors.Is(err, approval.ErrExpired):
		writeJSON(w, http.StatusConflict, map[string]any{"error": err.Error(), "approval": req})
	default:
		writeError(w, http.StatusInternalServerError, "%v", err)
	}
}
