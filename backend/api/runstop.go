package api

import (
	"context"
	"strings"

	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/store"
)

// runAnswer is a run as GET /api/runs and GET /api/runs/{id} answer it: the
// ledger's row, and for a run a cap budget stopped (its error
// "budget_paused:<scope>") which budget it was and its limit, so a UI can
// say "the agent's $0.02 budget is used" instead of the scope string.
type runAnswer struct {
	store.Run
	BudgetStop *budgetStop `json:"budgetStop,omitempty"`
}

// budgetStop names the cap budget that stopped a run. LimitUSD is null when
// the budget is gone (deleted since) or cannot be read.
type budgetStop struct {
	Scope    string   `json:"scope"`
	ScopeID  string   `json:"scopeId"`
	LimitUSD *float64 `json:"limitUsd"`
}

// budgetPausedPrefix starts the error of a run a cap budget stopped.
const budgetPausedPrefix = "budget_paused:"

func (a *API) answerRun(ctx context.Context, r store.Run) runAnswer {
	scope, ok := strings.CutPrefix(r.Error, budgetPausedPrefix)
	if !ok || !budget.Scope(scope).Valid() {
		return runAnswer{Run: r}
	}
	st := &budgetStop{Scope: scope}
	switch budget.Scope(scope) {
	case budget.ScopeAgent:
		st.ScopeID = deref(r.AgentID)
	case budget.ScopeTeam:
		st.ScopeID = deref(r.TeamID)
	case budget.ScopeMission:
		if r.TaskID != nil && a.opts.Board != nil {
			if t, err := a.opts.Board.Get(ctx, *r.TaskID); err == nil {
				st.ScopeID = t.RootID
				if st.ScopeID == "" {
					st.ScopeID = t.ID
				}
			}
		}
	}
	if st.ScopeID != "" && a.opts.Budget != nil {
		if b, err := a.opts.Budget.Budget(ctx, budget.Scope(scope), st.ScopeID); err == nil {
			v := b.LimitUSD
			st.LimitUSD = &v
		}
	}
	return runAnswer{Run: r, BudgetStop: st}
}

func (a *API) answerRuns(ctx context.Context, rs []store.Run) []runAnswer {
	out := make([]runAnswer, len(rs))
	for i, r := range rs {
		out[i] = a.answerRun(ctx, r)
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
