package budget

import (
	"context"
	"fmt"
)

// PausedError is why a dispatch was refused: a cap budget on one of the
// run's scopes is paused. The runner checks it before claiming, so a
// refused task is never touched.
type PausedError struct {
	Scope   Scope
	ScopeID string
}

func (e *PausedError) Error() string {
	return fmt.Sprintf("%s budget %s is paused: raise its limit or resume it to continue", e.Scope, e.ScopeID)
}

// Reason is the machine-readable cancel reason, "budget_paused:<scope>".
func (e *PausedError) Reason() string { return "budget_paused:" + string(e.Scope) }

// PauseComment is the task comment left when a cap stops a run, so the
// person reading the board knows what to change.
func PauseComment(s Scope) string {
	return "Auto-paused: " + string(s) + " budget reached. Raise the cap (or resume) to continue."
}

// Preflight refuses a dispatch when any of the run's scopes has a paused
// cap budget, checking agent, then mission, then team (the first paused
// one is named). It returns a *PausedError (use errors.As) or nil. It is
// one read: a budget paused just after it is reported by the Charge that
// tipped it, to that charge's run.
func (l *Ledger) Preflight(ctx context.Context, s Scopes) error {
	refs := s.each()
	if len(refs) == 0 {
		return nil
	}
	q := `SELECT scope, scope_id FROM budgets WHERE status = 'paused' AND (`
	args := make([]any, 0, 2*len(refs))
	for i, r := range refs {
		if i > 0 {
			q += ` OR `
		}
		q += `(scope = ? AND scope_id = ?)`
		args = append(args, string(r.scope), r.id)
	}
	rows, err := l.st.Reader().QueryContext(ctx, q+`)`, args...)
	if err != nil {
		return fmt.Errorf("budget preflight: %w", err)
	}
	defer rows.Close()
	paused := map[Scope]string{}
	for rows.Next() {
		var sc Scope
		var id string
		if err := rows.Scan(&sc, &id); err != nil {
			return fmt.Errorf("budget preflight: %w", err)
		}
		paused[sc] = id
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("budget preflight: %w", err)
	}
	for _, r := range refs {
		if id, ok := paused[r.scope]; ok {
			return &PausedError{Scope: r.scope, ScopeID: id}
		}
	}
	return nil
}
