package budget

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
)

// Budget statuses, as stored in budgets.status.
const (
	StatusOK       = "ok"
	StatusWarned   = "warned"   // spent ≥ 80 % of the limit
	StatusExceeded = "exceeded" // spent ≥ the limit, warn mode: spend goes on
	StatusPaused   = "paused"   // spent ≥ the limit, cap mode: dispatch refused
)

// Budget modes. Warn records and warns; cap also stops work at 100 %.
const (
	ModeWarn = "warn"
	ModeCap  = "cap"
)

// Budget is one limit on one scope, shaped as the API returns it. The USD
// fields are for display; the Nano fields are the truth. Times are Unix
// milliseconds.
type Budget struct {
	Scope     Scope   `json:"scope"`
	ScopeID   string  `json:"scopeId"`
	LimitUSD  float64 `json:"limitUsd"`
	SpentUSD  float64 `json:"spentUsd"`
	LimitNano Nano    `json:"limitNano"`
	SpentNano Nano    `json:"spentNano"`
	Mode      string  `json:"mode"`
	Status    string  `json:"status"`
	CreatedAt int64   `json:"createdAt"`
	UpdatedAt int64   `json:"updatedAt"`
}

func (b *Budget) fillUSD() { b.LimitUSD, b.SpentUSD = b.LimitNano.USD(), b.SpentNano.USD() }

// statusFor is the status the spend implies; every write but a grace-less
// Resume stores exactly this.
func statusFor(spent, limit Nano, mode string) string {
	switch {
	case spent >= limit && mode == ModeCap:
		return StatusPaused
	case spent >= limit:
		return StatusExceeded
	case reached80(spent, limit):
		return StatusWarned
	}
	return StatusOK
}

// reached80 is spent ≥ 80 % of limit, exactly: spent*5 ≥ limit*4.
func reached80(spent, limit Nano) bool { return atLeast(int64(spent), 5, int64(limit), 4) }

// rank orders statuses so a charge can tell which levels it newly reached.
func rank(status string) int {
	switch status {
	case StatusWarned:
		return 1
	case StatusExceeded, StatusPaused:
		return 2
	}
	return 0
}

func validRef(scope Scope, id string) error {
	if !scope.Valid() {
		return invalid("unknown budget scope %q (want agent, mission or team)", scope)
	}
	if id == "" {
		return invalid("%s budget without an id", scope)
	}
	if len(id) > 128 {
		return invalid("%s id is longer than 128 bytes", scope)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == ':') {
			return invalid("%s id %q has a character other than letters, digits, '_', '-', '.' and ':'", scope, id)
		}
	}
	return nil
}

// scopeExists checks that a new budget limits something real: an agent
// that exists, a mission that is a root task. A team is, for now, any
// well-formed id (teams are named by tasks and runs, not yet a table).
func scopeExists(ctx context.Context, q querier, scope Scope, id string) error {
	var query string
	switch scope {
	case ScopeAgent:
		query = `SELECT 1 FROM agents WHERE id = ?`
	case ScopeMission:
		query = `SELECT 1 FROM tasks WHERE id = ? AND parent_id IS NULL`
	default:
		return nil
	}
	var one int
	err := q.QueryRowContext(ctx, query, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		if scope == ScopeMission {
			return invalid("no mission %q: a mission budget names a root task", id)
		}
		return invalid("no %s %q", scope, id)
	}
	return err
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

const budgetColumns = `scope, scope_id, limit_nano, spent_nano, mode, status, created_at, updated_at`

func scanBudget(sc interface{ Scan(...any) error }) (Budget, error) {
	var b Budget
	err := sc.Scan(&b.Scope, &b.ScopeID, &b.LimitNano, &b.SpentNano, &b.Mode, &b.Status, &b.CreatedAt, &b.UpdatedAt)
	b.fillUSD()
	return b, err
}

func getBudget(ctx context.Context, q querier, scope Scope, id string) (Budget, error) {
	b, err := scanBudget(q.QueryRowContext(ctx, `SELECT `+budgetColumns+` FROM budgets WHERE scope = ? AND scope_id = ?`, string(scope), id))
	if errors.Is(err, sql.ErrNoRows) {
		return Budget{}, ErrNotFound
	}
	if err != nil {
		return Budget{}, fmt.Errorf("read %s budget %s: %w", scope, id, err)
	}
	return b, nil
}

// Budget returns one budget, or ErrNotFound.
func (l *Ledger) Budget(ctx context.Context, scope Scope, id string) (Budget, error) {
	if err := validRef(scope, id); err != nil {
		return Budget{}, err
	}
	b, err := getBudget(ctx, l.st.Reader(), scope, id)
	if err != nil {
		return Budget{}, fmt.Errorf("%s budget %s: %w", scope, id, err)
	}
	return b, nil
}

// Budgets lists every budget, by scope then id. Uncapped scopes have none.
func (l *Ledger) Budgets(ctx context.Context) ([]Budget, error) {
	rows, err := l.st.Reader().QueryContext(ctx, `SELECT `+budgetColumns+` FROM budgets ORDER BY scope, scope_id`)
	if err != nil {
		return nil, fmt.Errorf("list budgets: %w", err)
	}
	defer rows.Close()
	out := []Budget{}
	for rows.Next() {
		b, err := scanBudget(rows)
		if err != nil {
			return nil, fmt.Errorf("list budgets: %w", err)
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list budgets: %w", err)
	}
	return out, nil
}

// SetBudget creates or updates a budget and recomputes its status from
// spent against the new limit, so raising a limit above the spend
// un-pauses and lowering it under the spend pauses a cap at once. An
// empty mode means warn for a new budget and "unchanged" for an existing
// one. A new budget starts from the scope's whole ledger (a per-agent
// budget is lifetime), so spent always equals the spend rows it covers.
func (l *Ledger) SetBudget(ctx context.Context, scope Scope, id string, limit Nano, mode string) (Budget, error) {
	if err := validRef(scope, id); err != nil {
		return Budget{}, err
	}
	if limit <= 0 {
		return Budget{}, invalid("%s budget %s: limit must be positive, got %s", scope, id, limit)
	}
	if mode != "" && mode != ModeWarn && mode != ModeCap {
		return Budget{}, invalid("unknown budget mode %q (want warn or cap)", mode)
	}
	now := l.now().UnixMilli()
	var b Budget
	err := l.st.InTx(ctx, func(tx *sql.Tx) error {
		var err error
		b, err = getBudget(ctx, tx, scope, id)
		if errors.Is(err, ErrNotFound) {
			if err := scopeExists(ctx, tx, scope, id); err != nil {
				return err
			}
			b = Budget{Scope: scope, ScopeID: id, Mode: ModeWarn, CreatedAt: now}
			b.SpentNano, err = backfill(ctx, tx, scope, id)
		}
		if err != nil {
			return err
		}
		if mode != "" {
			b.Mode = mode
		}
		b.LimitNano, b.UpdatedAt = limit, now
		b.Status = statusFor(b.SpentNano, b.LimitNano, b.Mode)
		b.fillUSD()
		return upsert(ctx, tx, b)
	})
	if err != nil {
		return Budget{}, fmt.Errorf("set %s budget %s: %w", scope, id, err)
	}
	l.publish(Event{Kind: EventBudget, Budget: b})
	return b, nil
}

// backfill sums the ledger for one scope; the column comes from a fixed map,
// never from input.
func backfill(ctx context.Context, tx *sql.Tx, scope Scope, id string) (Nano, error) {
	col := map[Scope]string{ScopeAgent: "agent_id", ScopeMission: "mission_id", ScopeTeam: "team_id"}[scope]
	var n Nano
	err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(nano), 0) FROM spend WHERE `+col+` = ?`, id).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sum spend for %s %s: %w", scope, id, err)
	}
	return n, nil
}

func upsert(ctx context.Context, tx *sql.Tx, b Budget) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO budgets(`+budgetColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(scope, scope_id) DO UPDATE SET limit_nano = excluded.limit_nano, spent_nano = excluded.spent_nano,
		mode = excluded.mode, status = excluded.status, updated_at = excluded.updated_at`,
		string(b.Scope), b.ScopeID, int64(b.LimitNano), int64(b.SpentNano), b.Mode, b.Status, b.CreatedAt, b.UpdatedAt)
	if err != nil {
		return fmt.Errorf("write budget: %w", err)
	}
	return nil
}

// DeleteBudget removes a budget, leaving the scope uncapped; the spend
// rows stay. ErrNotFound when there was none.
func (l *Ledger) DeleteBudget(ctx context.Context, scope Scope, id string) error {
	if err := validRef(scope, id); err != nil {
		return err
	}
	var n int64
	err := l.st.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM budgets WHERE scope = ? AND scope_id = ?`, string(scope), id)
		if err == nil {
			n, err = res.RowsAffected()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("delete %s budget %s: %w", scope, id, err)
	}
	if n == 0 {
		return fmt.Errorf("delete %s budget %s: %w", scope, id, ErrNotFound)
	}
	l.publish(Event{Kind: EventBudgetDeleted, Budget: Budget{Scope: scope, ScopeID: id}})
	return nil
}

// Resume lets work continue on a budget that reached its limit. The rule:
//   - grace < 0 is refused;
//   - spent < limit: nothing to lift; grace is ignored and the status is
//     recomputed (ok or warned);
//   - spent ≥ limit, grace > 0: limit = spent + grace, status recomputed
//     against it (ok, or warned when grace is under a quarter of spent);
//   - spent ≥ limit, grace = 0: the limit stays, the status is forced to ok
//     and willRepause is true: the next charge above $0 moves it back to
//     paused (cap) or exceeded (warn) and reports the 100 % crossing again.
func (l *Ledger) Resume(ctx context.Context, scope Scope, id string, grace Nano) (b Budget, willRepause bool, err error) {
	if err := validRef(scope, id); err != nil {
		return Budget{}, false, err
	}
	if grace < 0 {
		return Budget{}, false, invalid("%s budget %s: negative grace %s", scope, id, grace)
	}
	now := l.now().UnixMilli()
	err = l.st.InTx(ctx, func(tx *sql.Tx) error {
		var err error
		if b, err = getBudget(ctx, tx, scope, id); err != nil {
			return err
		}
		willRepause = false
		switch {
		case b.SpentNano < b.LimitNano:
			b.Status = statusFor(b.SpentNano, b.LimitNano, b.Mode)
		case grace > 0:
			if b.SpentNano > math.MaxInt64-grace {
				return invalid("grace %s overflows the limit", grace)
			}
			b.LimitNano = b.SpentNano + grace
			b.Status = statusFor(b.SpentNano, b.LimitNano, b.Mode)
		default:
			b.Status, willRepause = StatusOK, true
		}
		b.UpdatedAt = now
		b.fillUSD()
		return upsert(ctx, tx, b)
	})
	if err != nil {
		return Budget{}, false, fmt.Errorf("resume %s budget %s: %w", scope, id, err)
	}
	l.publish(Event{Kind: EventBudget, Budget: b})
	return b, willRepause, nil
}
