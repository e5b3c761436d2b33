package budget

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/store"
)

// ErrInvalid marks a refused argument (unknown scope or mode, empty id,
// non-positive limit, negative amount), so the API can answer 400.
var ErrInvalid = errors.New("invalid")

// ErrNotFound is returned when no budget exists for a scope and id; it is
// the store's sentinel, so one errors.Is check covers every package.
var ErrNotFound = store.ErrNotFound

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Options are the Ledger's dependencies. Store is required; Events may be
// nil (no live updates); Log defaults to discarding; Now to time.Now.
type Options struct {
	Store  *store.Store
	Events *bus.Broker[Event]
	Log    *slog.Logger
	Now    func() time.Time
}

// Ledger records charges and keeps budgets. It holds no state of its own
// beyond its dependencies and the spend_unreported warning's window: the
// database is the only truth, so any number of goroutines may share one
// Ledger.
type Ledger struct {
	st     *store.Store
	events *bus.Broker[Event]
	log    *slog.Logger
	now    func() time.Time

	unreportedLog *unreportedLog
}

// New makes a Ledger. It panics without a Store, a wiring mistake.
func New(opts Options) *Ledger {
	if opts.Store == nil {
		panic("budget.New: Options.Store is nil")
	}
	l := &Ledger{st: opts.Store, events: opts.Events, log: opts.Log, now: opts.Now, unreportedLog: &unreportedLog{}}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	if l.now == nil {
		l.now = time.Now
	}
	return l
}

// Charge is one amount a run spent: a per-turn cost event while the run
// is live, or the run-end estimate. Scopes name the budgets it counts
// against.
type Charge struct {
	RunID        string
	RuntimeID    string
	Model        string
	Scopes       Scopes
	Kind         Kind
	Nano         Nano
	InputTokens  int64
	OutputTokens int64
}

func (c Charge) validate() error {
	switch {
	case c.RunID == "":
		return invalid("charge without a run id")
	case c.RuntimeID == "":
		return invalid("charge for run %s without a runtime id", c.RunID)
	case !c.Kind.Valid():
		return invalid("unknown cost kind %q", c.Kind)
	case c.Nano < 0:
		return invalid("negative charge %s for run %s", c.Nano, c.RunID)
	case c.Kind == KindLocal && c.Nano != 0:
		return invalid("local charge of %s for run %s: local models are free", c.Nano, c.RunID)
	case c.InputTokens < 0 || c.OutputTokens < 0:
		return invalid("negative token count for run %s", c.RunID)
	}
	return nil
}

// Crossing is a threshold one charge tipped a budget over. Paused says
// the budget is a cap that is now paused: the runner aborts the live run.
type Crossing struct {
	Scope   Scope  `json:"scope"`
	ScopeID string `json:"scopeId"`
	Level   int    `json:"level"` // 80 or 100
	Mode    string `json:"mode"`
	Paused  bool   `json:"paused"`
}

// Event kinds published on Options.Events.
const (
	EventBudget        = "budget"         // a budget changed (spend, limit, status)
	EventBudgetDeleted = "budget-deleted" // Budget carries only Scope and ScopeID
)

// Event tells the live UI a budget changed, with the crossing that caused
// it if any. It is published lossily after the change is committed; a
// subscriber that misses one re-reads Budgets.
type Event struct {
	Kind     string    `json:"kind"`
	Budget   Budget    `json:"budget"`
	Crossing *Crossing `json:"crossing,omitempty"`
}

// Charge writes one spend row and adds the amount to every matching
// budget, atomically (one IMMEDIATE transaction), and returns the
// thresholds this charge crossed. Only the charge that tips a threshold
// reports it, so a runner aborts once; a charge landing on a budget that
// was already paused returns nothing for it (Preflight still sees it).
func (l *Ledger) Charge(ctx context.Context, c Charge) ([]Crossing, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	now := l.now().UnixMilli()
	var crossings []Crossing
	var changed []Budget
	err := l.st.InTx(ctx, func(tx *sql.Tx) error {
		var err error
		crossings, changed, err = chargeIn(txQ{ctx, l.st.Tx(tx)}, c, now) // prepared once: a charge lands on every cost event
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("charge run %s: %w", c.RunID, err)
	}
	l.committed(c, crossings, changed)
	return crossings, nil
}

// chargeQ is where a charge is written: a database/sql transaction
// (Charge) or a run-ledger batch (BatchCharge).
type chargeQ interface {
	exec(query string, args ...any) error
	row(query string, args ...any) interface{ Scan(...any) error }
}

type txQ struct {
	ctx context.Context
	q   store.Querier
}

func (t txQ) exec(query string, args ...any) error {
	_, err := t.q.ExecContext(t.ctx, query, args...)
	return err
}

func (t txQ) row(query string, args ...any) interface{ Scan(...any) error } {
	return t.q.QueryRowContext(t.ctx, query, args...)
}

// chargeIn writes c's spend row and adds it to every matching budget inside
// the caller's transaction, returning the crossings and changed budgets.
func chargeIn(q chargeQ, c Charge, now int64) ([]Crossing, []Budget, error) {
	if err := q.exec(`INSERT INTO spend(run_id, at, nano, kind, runtime_id, agent_id, team_id,
			mission_id, model, input_tokens, output_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.RunID, now, int64(c.Nano), string(c.Kind), c.RuntimeID, null(c.Scopes.AgentID), null(c.Scopes.TeamID),
		null(c.Scopes.MissionID), null(c.Model), c.InputTokens, c.OutputTokens); err != nil {
		return nil, nil, fmt.Errorf("record spend: %w", err)
	}
	if c.Nano == 0 {
		return nil, nil, nil
	}
	var crossings []Crossing
	var changed []Budget
	for _, ref := range c.Scopes.each() {
		b, err := scanBudget(q.row(`SELECT `+budgetColumns+` FROM budgets WHERE scope = ? AND scope_id = ?`, string(ref.scope), ref.id))
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read %s budget %s: %w", ref.scope, ref.id, err)
		}
		next, cross, err := apply(b, c.Nano, now)
		if err != nil {
			return nil, nil, err
		}
		if err := q.exec(`UPDATE budgets SET spent_nano = ?, status = ?, updated_at = ?
				WHERE scope = ? AND scope_id = ?`, int64(next.SpentNano), next.Status, now, string(ref.scope), ref.id); err != nil {
			return nil, nil, fmt.Errorf("update %s budget %s: %w", ref.scope, ref.id, err)
		}
		crossings = append(crossings, cross...)
		changed = append(changed, next)
	}
	return crossings, changed, nil
}

// committed logs and publishes what a committed charge changed.
func (l *Ledger) committed(c Charge, crossings []Crossing, changed []Budget) {
	for _, b := range changed {
		published := false
		for i := range crossings {
			x := &crossings[i]
			if x.Scope != b.Scope || x.ScopeID != b.ScopeID {
				continue
			}
			l.log.Warn("budget threshold crossed", "scope", x.Scope, "scope_id", x.ScopeID, "level", x.Level,
				"mode", x.Mode, "paused", x.Paused, "spent", b.SpentNano.String(), "limit", b.LimitNano.String(), "run_id", c.RunID)
			cp := *x
			l.publish(Event{Kind: EventBudget, Budget: b, Crossing: &cp})
			published = true
		}
		if !published {
			l.publish(Event{Kind: EventBudget, Budget: b})
		}
	}
}

// ChargeUnreported records the estimate for a run that ended without any
// cost report: its characters in and out, four to a token, priced at the
// model's rate (a local model stays free). Unless the run was aborted it
// logs the spend_unreported warning (at most once per runtime and model
// per UnreportedEvery, counting the runs it did not name), because a
// runtime that stops reporting cost is usually a changed output format and
// budgets would silently under-count.
func (l *Ledger) ChargeUnreported(ctx context.Context, c Charge, inChars, outChars int64, aborted bool) ([]Crossing, error) {
	return l.Charge(ctx, l.unreported(c, inChars, outChars, aborted))
}

// unreported prices an unreported run's estimate and warns about it.
func (l *Ledger) unreported(c Charge, inChars, outChars int64, aborted bool) Charge {
	c.Kind, c.Nano = KindCharEstimate, CharCost(c.Model, inChars, outChars)
	if IsLocal("", c.Model) {
		c.Kind, c.Nano = KindLocal, 0
	}
	if aborted {
		return c
	}
	if due, skipped := l.unreportedLog.due(c.RuntimeID, c.Model, l.now()); due {
		l.log.Warn("spend_unreported", "action", "spend_unreported",
			"hint", "budgets and caps under-count for this run; suspect a runtime output-format change",
			"run_id", c.RunID, "runtime", c.RuntimeID, "model", c.Model,
			"estimate", c.Nano.String(), "runs_not_logged", skipped)
	}
	return c
}

// apply adds n to b and works out the new status and the crossings.
// 80 % is reported when the spend passes it; 100 % when the status moves
// up to exceeded or paused, which is also how a forced-ok budget (Resume
// without grace) reports its re-pause.
func apply(b Budget, n Nano, now int64) (Budget, []Crossing, error) {
	if b.SpentNano > math.MaxInt64-n {
		return b, nil, fmt.Errorf("%s budget %s: spend overflows", b.Scope, b.ScopeID)
	}
	old := b
	b.SpentNano += n
	b.Status = statusFor(b.SpentNano, b.LimitNano, b.Mode)
	b.UpdatedAt = now
	b.fillUSD()
	var out []Crossing
	add := func(level int) {
		out = append(out, Crossing{Scope: b.Scope, ScopeID: b.ScopeID, Level: level, Mode: b.Mode, Paused: b.Status == StatusPaused})
	}
	if !reached80(old.SpentNano, old.LimitNano) && reached80(b.SpentNano, b.LimitNano) {
		add(80)
	}
	if rank(old.Status) < 2 && b.SpentNano >= b.LimitNano {
		add(100)
	}
	return b, out, nil
}

func (l *Ledger) publish(e Event) {
	if l.events != nil {
		l.events.Publish(e)
	}
}

// null stores an empty id as NULL, so "not applicable" is not a value.
func null(s string) any {
	if s == "" {
		return nil
	}
	return s
}
