package supervisor

import (
	"context"
	"strconv"
	"time"

	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
)

// spent is what a run has cost so far, as charged while it ran.
type spent struct {
	nano     budget.Nano
	byKind   map[budget.Kind]budget.Nano
	charged  bool // at least one cost event was charged
	produced bool // the model answered: text (reasoning too) or a tool call
	outChars int64
	model    string
	in, out  int64
}

func (sp *spent) add(k budget.Kind, n budget.Nano) {
	if sp.byKind == nil {
		sp.byKind = map[budget.Kind]budget.Nano{}
	}
	sp.byKind[k] += n
	sp.nano += n
	sp.charged = true
}

// dominant is the kind that carried most of the cost (reported wins ties:
// it is the most exact).
func (sp *spent) dominant() budget.Kind {
	best, bestN := budget.Kind(""), budget.Nano(-1)
	for _, k := range []budget.Kind{budget.KindReported, budget.KindLocal, budget.KindTokenEstimate, budget.KindCharEstimate} {
		if n, ok := sp.byKind[k]; ok && n > bestN {
			best, bestN = k, n
		}
	}
	return best
}

// scopes are the budgets a run counts against.
func (l *liveRun) scopes() budget.Scopes {
	if l.task != nil {
		return l.task.scopes
	}
	if l.params.scopes != nil {
		return *l.params.scopes
	}
	return budget.Scopes{AgentID: l.params.AgentID, TeamID: l.params.TeamID}
}

// account charges a cost event to the ledger as it arrives, so spend is
// live during a run, and counts reply text for a run-end estimate. It
// returns the scope of a cap budget this charge paused.
func (l *liveRun) account(ev executor.Event, o *outcome) string {
	sp := &o.spend
	switch ev.Kind {
	case executor.KindTextDelta:
		sp.produced = true
		if ev.Channel != executor.ChannelReasoning {
			sp.outChars += int64(len(ev.Text))
		}
		return ""
	case executor.KindToolCall:
		sp.produced = true
		return ""
	case executor.KindStatus:
		// A runtime that reports no cost still says which model served
		// (OpenClaw's provider/model): its character estimate is priced
		// at that model.
		if ev.Model != "" {
			sp.model = ev.Model
		}
		return ""
	case executor.KindCost:
	default:
		return ""
	}
	if ev.Model != "" {
		sp.model = ev.Model
	}
	rep := budget.CostReport{CostUSD: ev.CostUSD, Model: sp.modelOr(l.params.Model), Local: ev.Local}
	if ev.Usage != nil {
		rep.InputTokens, rep.OutputTokens = ev.Usage.InputTokens, ev.Usage.OutputTokens
	}
	kind, nano := budget.Classify(rep)
	sp.add(kind, nano)
	sp.in += rep.InputTokens
	sp.out += rep.OutputTokens
	led := l.s.opts.Budget
	if led == nil {
		return ""
	}
	crossings, err := led.Charge(context.Background(), budget.Charge{
		RunID: l.id, RuntimeID: string(l.adapter.ID()), Model: rep.Model, Scopes: l.scopes(),
		Kind: kind, Nano: nano, InputTokens: rep.InputTokens, OutputTokens: rep.OutputTokens,
	})
	if err != nil {
		l.s.opts.Log.Error("spend not recorded", "run", l.id, "err", err)
		return ""
	}
	return l.crossed(crossings)
}

func (sp *spent) modelOr(def string) string {
	if sp.model != "" {
		return sp.model
	}
	return def
}

// crossed reports budget thresholds: warnings become a note on the task,
// a paused cap is returned for the caller to stop the run.
func (l *liveRun) crossed(cs []budget.Crossing) string {
	paused := ""
	for _, c := range cs {
		if c.Paused {
			paused = string(c.Scope)
			continue
		}
		l.s.opts.Log.Warn("budget threshold crossed", "run", l.id, "scope", c.Scope, "id", c.ScopeID, "level", c.Level)
		if l.task != nil && l.s.opts.Board != nil {
			body := "Budget warning: the " + string(c.Scope) + " budget (" + c.ScopeID + ") has reached " +
				strconv.Itoa(c.Level) + "% of its limit."
			_, _ = l.s.opts.Board.AddComment(context.Background(), l.task.task.ID, newSystemComment(body))
		}
	}
	return paused
}

// settleCost fills the run's cost: what was charged while it ran, or, when
// the runtime reported nothing but the model answered, an estimate from
// characters (which the ledger records and, unless the run was aborted,
// warns about). The estimate is returned to be written in the batch that
// writes the run's result (finish), so a run that reported no cost still
// costs one commit. A run that never reached a model (no key, a provider
// refusal, a crash before any output) produced nothing and costs nothing:
// no estimate, no spend row and no spend_unreported warning, which is kept
// for runs whose output came without a cost.
func (l *liveRun) settleCost(o *outcome, f *store.RunFinish) *budget.BatchCharge {
	sp := &o.spend
	var pending *budget.BatchCharge
	if !sp.charged && !sp.produced {
		zero := 0.0
		f.CostUSD = &zero
		return nil
	}
	if !sp.charged {
		model := sp.modelOr(l.params.Model)
		in := int64(len(l.params.Message) + len(l.params.Context))
		aborted := o.budgetStop != "" || o.abandoned || o.notStarted ||
			(o.done != nil && o.done.Reason == executor.DoneAborted)
		kind, nano := budget.KindCharEstimate, budget.CharCost(model, in, sp.outChars)
		if budget.IsLocal("", model) {
			kind, nano = budget.KindLocal, 0
		}
		if led := l.s.opts.Budget; led != nil {
			var err error
			pending, err = led.UnreportedInBatch(budget.Charge{
				RunID: l.id, RuntimeID: string(l.adapter.ID()), Model: model, Scopes: l.scopes(),
			}, in, sp.outChars, aborted)
			if err != nil {
				l.s.opts.Log.Error("spend estimate not recorded", "run", l.id, "err", err)
			}
		}
		sp.byKind = map[budget.Kind]budget.Nano{kind: nano}
		sp.nano = nano
	}
	usd := sp.nano.USD()
	f.CostUSD = &usd
	f.CostKind = string(sp.dominant())
	if f.InputTokens == 0 && f.OutputTokens == 0 {
		f.InputTokens, f.OutputTokens = sp.in, sp.out
	}
	return pending
}

// chargeInBatch is the finish op's hook for a run-end estimate: it writes
// the charge in the journal's batch and, when the charge paused a cap
// budget, records the run as paused in f (the copy this attempt writes;
// nothing is left to stop). finish calls settleCharge after the commit.
func (l *liveRun) chargeInBatch(pending *budget.BatchCharge, o *outcome, settled *store.RunFinish) func(*store.Batch, *store.RunFinish) error {
	return func(b *store.Batch, f *store.RunFinish) error {
		crossings, err := pending.Write(b)
		if err != nil {
			return err
		}
		if o.budgetStop == "" && !o.timedOut {
			for _, c := range crossings {
				if c.Paused {
					f.Status, f.Error = store.RunAborted, "budget_paused:"+string(c.Scope)
				}
			}
		}
		*settled = *f
		return nil
	}
}

// settleCharge reports a run-end charge once it is durable: the batch
// committed it (saved), or, when the run's result could not be saved, the
// charge is tried on its own so the spend is not lost with the row.
func (l *liveRun) settleCharge(pending *budget.BatchCharge, o *outcome, saved bool) {
	var crossings []budget.Crossing
	if saved {
		crossings = pending.Committed()
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var err error
		crossings, err = l.s.opts.Budget.Charge(ctx, pending.Charge())
		cancel()
		if err != nil {
			l.s.opts.Log.Error("spend estimate not recorded", "run", l.id, "err", err)
			return
		}
	}
	if scope := l.crossed(crossings); scope != "" && o.budgetStop == "" {
		o.budgetStop = scope
	}
}
