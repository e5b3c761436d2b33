package budget

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"
)

// SpendRow is one group of the spend summary. ByKind has an entry for each
// kind the group has rows of (local included, at 0), so the UI can say how
// much of a figure is estimated.
type SpendRow struct {
	Key    string           `json:"key"`
	USD    float64          `json:"usd"`
	Nano   Nano             `json:"nano"`
	Runs   int              `json:"runs"`
	ByKind map[Kind]float64 `json:"byKind"`
}

// groupKey maps a Spend grouping to its SQL expression; only these fixed
// strings ever reach the query. A charge with no agent, team or model
// groups under "".
func groupKey(by string) (string, bool) {
	switch by {
	case "agent":
		return `COALESCE(agent_id, '')`, true
	case "team":
		return `COALESCE(team_id, '')`, true
	case "mission":
		return `COALESCE(mission_id, '')`, true
	case "runtime":
		return `runtime_id`, true
	case "model":
		return `COALESCE(model, '')`, true
	case "kind":
		return `kind`, true
	case "day":
		return `strftime('%Y-%m-%d', at / 1000, 'unixepoch')`, true
	}
	return "", false
}

var kindOrder = [...]Kind{KindReported, KindTokenEstimate, KindCharEstimate, KindLocal}

// Spend summarises the ledger grouped by "agent", "team", "mission",
// "runtime", "model", "kind" or "day" (YYYY-MM-DD in UTC), over charges
// at or after since and before until (a zero time leaves that end open).
// Days come in date order; other groups largest first.
func (l *Ledger) Spend(ctx context.Context, by string, since, until time.Time) ([]SpendRow, error) {
	key, ok := groupKey(by)
	if !ok {
		return nil, invalid("unknown spend grouping %q (want agent, team, mission, runtime, model, kind or day)", by)
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if !since.IsZero() {
		lo = since.UnixMilli()
	}
	if !until.IsZero() {
		hi = until.UnixMilli()
	}
	if hi < lo {
		return nil, invalid("spend window ends before it starts")
	}
	order := `SUM(nano) DESC, k`
	if by == "day" {
		order = `k`
	}
	q := `SELECT ` + key + ` AS k, SUM(nano), COUNT(DISTINCT run_id)`
	for range kindOrder {
		q += `, SUM(CASE WHEN kind = ? THEN nano END)`
	}
	q += ` FROM spend WHERE at >= ? AND at < ? GROUP BY k ORDER BY ` + order
	args := make([]any, 0, len(kindOrder)+2)
	for _, k := range kindOrder {
		args = append(args, string(k))
	}
	rows, err := l.st.Reader().QueryContext(ctx, q, append(args, lo, hi)...)
	if err != nil {
		return nil, fmt.Errorf("spend by %s: %w", by, err)
	}
	defer rows.Close()
	out := []SpendRow{}
	for rows.Next() {
		var r SpendRow
		var per [len(kindOrder)]sql.NullInt64
		if err := rows.Scan(&r.Key, &r.Nano, &r.Runs, &per[0], &per[1], &per[2], &per[3]); err != nil {
			return nil, fmt.Errorf("spend by %s: %w", by, err)
		}
		r.USD = r.Nano.USD()
		r.ByKind = map[Kind]float64{}
		for i, k := range kindOrder {
			if per[i].Valid {
				r.ByKind[k] = Nano(per[i].Int64).USD()
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("spend by %s: %w", by, err)
	}
	return out, nil
}

// RunSpend is one run's total and its dominant kind: the kind with the
// most money, ties going to the kind with more rows, then to the order
// reported, token-estimate, char-estimate, local. A run with no charges
// is (0, "", nil).
func (l *Ledger) RunSpend(ctx context.Context, runID string) (Nano, Kind, error) {
	if runID == "" {
		return 0, "", invalid("run spend without a run id")
	}
	rows, err := l.st.Reader().QueryContext(ctx, `SELECT kind, SUM(nano), COUNT(*) FROM spend WHERE run_id = ? GROUP BY kind`, runID)
	if err != nil {
		return 0, "", fmt.Errorf("spend of run %s: %w", runID, err)
	}
	defer rows.Close()
	type part struct {
		nano Nano
		n    int64
	}
	parts := map[Kind]part{}
	var total Nano
	for rows.Next() {
		var k Kind
		var p part
		if err := rows.Scan(&k, &p.nano, &p.n); err != nil {
			return 0, "", fmt.Errorf("spend of run %s: %w", runID, err)
		}
		parts[k] = p
		total = Nano(satAdd(int64(total), int64(p.nano)))
	}
	if err := rows.Err(); err != nil {
		return 0, "", fmt.Errorf("spend of run %s: %w", runID, err)
	}
	var best Kind
	for _, k := range kindOrder {
		p, ok := parts[k]
		if !ok {
			continue
		}
		if b := parts[best]; best == "" || p.nano > b.nano || (p.nano == b.nano && p.n > b.n) {
			best = k
		}
	}
	return total, best, nil
}
