package api

import (
	"errors"
	"math"
	"net/http"
	"time"

	"github.com/clawboo/desktop/backend/budget"
)

func budgetError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, budget.ErrInvalid):
		writeError(w, http.StatusBadRequest, "%v", err)
	case errors.Is(err, budget.ErrNotFound):
		writeError(w, http.StatusNotFound, "no such budget")
	default:
		writeError(w, http.StatusInternalServerError, "%v", err)
	}
}

func (a *API) listBudgets(w http.ResponseWriter, r *http.Request) {
	bs, err := a.opts.Budget.Budgets(r.Context())
	if err != nil {
		budgetError(w, err)
		return
	}
	if bs == nil {
		bs = []budget.Budget{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"budgets": bs})
}

type budgetBody struct {
	Scope    string   `json:"scope"`
	ScopeID  string   `json:"scopeId"`
	LimitUSD *float64 `json:"limitUsd"`
	Mode     string   `json:"mode"`
}

// usd converts an amount from the API, refusing what cannot be money.
func usd(v float64) (budget.Nano, bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1e9 {
		return 0, false
	}
	return budget.FromUSD(v), true
}

func (a *API) setBudget(w http.ResponseWriter, r *http.Request) {
	var b budgetBody
	if !decodeJSON(w, r, &b) {
		return
	}
	if b.LimitUSD == nil {
		writeError(w, http.StatusBadRequest, "limitUsd is required")
		return
	}
	limit, ok := usd(*b.LimitUSD)
	if !ok || limit <= 0 {
		writeError(w, http.StatusBadRequest, "limitUsd must be a positive amount")
		return
	}
	if budget.Scope(b.Scope) == budget.ScopeTeam && a.opts.Teams != nil {
		if ok, err := a.opts.Teams.Exists(r.Context(), b.ScopeID); err != nil || !ok {
			writeError(w, http.StatusBadRequest, "unknown team '%s'", truncate(b.ScopeID, 64))
			return
		}
	}
	bud, err := a.opts.Budget.SetBudget(r.Context(), budget.Scope(b.Scope), b.ScopeID, limit, b.Mode)
	if err != nil {
		budgetError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"budget": bud})
}

func (a *API) deleteBudget(w http.ResponseWriter, r *http.Request) {
	if err := a.opts.Budget.DeleteBudget(r.Context(), budget.Scope(r.PathValue("scope")), r.PathValue("id")); err != nil {
		budgetError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

func (a *API) resumeBudget(w http.ResponseWriter, r *http.Request) {
	var b struct {
		GraceUSD float64 `json:"graceUsd"`
	}
	if !decodeJSON(w, r, &b) {
		return
	}
	grace, ok := usd(b.GraceUSD)
	if !ok {
		writeError(w, http.StatusBadRequest, "graceUsd must be a non-negative amount")
		return
	}
	bud, again, err := a.opts.Budget.Resume(r.Context(), budget.Scope(r.PathValue("scope")), r.PathValue("id"), grace)
	if err != nil {
		budgetError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"budget": bud, "willRepause": again})
}

// spend summarises the cost ledger: ?by=agent|team|mission|runtime|model|kind|day
// and an optional window ?since=&until= (RFC 3339 or YYYY-MM-DD).
func (a *API) spend(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	by := q.Get("by")
	if by == "" {
		by = "day"
	}
	var since, until time.Time
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"since", &since}, {"until", &until}} {
		v := q.Get(p.name)
		if v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			if t, err = time.Parse("2006-01-02", v); err != nil {
				writeError(w, http.StatusBadRequest, "%s must be a date (YYYY-MM-DD) or an RFC 3339 time", p.name)
				return
			}
		}
		*p.dst = t
	}
	rows, err := a.opts.Budget.Spend(r.Context(), by, since, until)
	if err != nil {
		budgetError(w, err)
		return
	}
	if rows == nil {
		rows = []budget.SpendRow{}
	}
	var total budget.Nano
	for _, row := range rows {
		total += row.Nano
	}
	writeJSON(w, http.StatusOK, map[string]any{"by": by, "rows": rows, "totalUsd": total.USD()})
}
