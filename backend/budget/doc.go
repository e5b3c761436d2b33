// Package budget owns the cost ledger, cost estimates, budgets and the kill
// switch's state: every charge a run makes, the budgets those charges count
// against, and the queries the UI and API read.
//
// Invariants:
//   - Money is integer nano-USD (Nano) everywhere it is stored or added, so
//     per-turn amounts sum without rounding loss; float USD appears only at
//     the edges (a runtime's reported cost in, a display value out).
//   - Every charge is one spend row plus the same amount added to each
//     matching budget, in one IMMEDIATE transaction (its own, or the run
//     ledger batch that writes the run's result, for a BatchCharge): a
//     budget's spent_nano always equals the sum of the spend rows of its
//     scope (a budget created after spending began is back-filled from the
//     ledger).
//   - Thresholds are exact: warned when spent*5 >= limit*4 (80 %), over when
//     spent >= limit (100 %), compared in 128-bit integers.
//   - Status follows spend: ok → warned → exceeded (warn mode) or paused (cap
//     mode). Warn mode never pauses. The only status that disagrees with the
//     spend is the "ok" a Resume without grace forces; the next positive
//     charge re-pauses it and reports the 100 % crossing again.
//   - A crossing is reported by exactly the charge that tips it, even under
//     concurrent charges, because the writer serialises transactions.
//   - A charge of zero (a local model) writes its spend row but moves no
//     budget.
//   - Nothing here stores or logs prompts or secrets: only ids, model names,
//     token counts and amounts.
//   - No package-level mutable state; the price table is read-only data.
package budget

import (
	"math"
	"strconv"
	"strings"
)

// Kind says how a charge's amount was obtained, so the UI can tell real
// money from estimates.
type Kind string

// Charge kinds, as stored in spend.kind.
const (
	KindReported      Kind = "reported"       // the runtime's own USD
	KindLocal         Kind = "local"          // a free local model, always $0
	KindTokenEstimate Kind = "token-estimate" // tokens × the model's price
	KindCharEstimate  Kind = "char-estimate"  // characters ÷ 4 as tokens, then priced
)

// Valid reports whether k is one of the four kinds.
func (k Kind) Valid() bool {
	switch k {
	case KindReported, KindLocal, KindTokenEstimate, KindCharEstimate:
		return true
	}
	return false
}

// Scope is what a budget limits.
type Scope string

// Budget scopes. A mission is the root task of a delegation tree.
const (
	ScopeAgent   Scope = "agent"
	ScopeMission Scope = "mission"
	ScopeTeam    Scope = "team"
)

// Valid reports whether s is one of the three scopes.
func (s Scope) Valid() bool {
	return s == ScopeAgent || s == ScopeMission || s == ScopeTeam
}

// Scopes names the budgets one run counts against; an empty id means the
// scope does not apply (an ad-hoc run has no mission).
type Scopes struct {
	AgentID   string `json:"agentId,omitempty"`
	MissionID string `json:"missionId,omitempty"`
	TeamID    string `json:"teamId,omitempty"`
}

// each lists the applicable scopes in preflight order: agent, mission, team.
func (s Scopes) each() []scopeRef {
	out := make([]scopeRef, 0, 3)
	for _, r := range []scopeRef{{ScopeAgent, s.AgentID}, {ScopeMission, s.MissionID}, {ScopeTeam, s.TeamID}} {
		if r.id != "" {
			out = append(out, r)
		}
	}
	return out
}

type scopeRef struct {
	scope Scope
	id    string
}

// Nano is an amount in nano-USD (1e-9 USD). Integer so that a million
// one-nano charges add up to exactly one milli-dollar.
type Nano int64

// NanoPerUSD is one dollar in Nano.
const NanoPerUSD Nano = 1_000_000_000

// FromUSD converts dollars to Nano, rounded to the nearest nano. NaN and
// negative infinity give 0 and +Inf saturates; negative finite amounts stay
// negative so that validation can refuse them rather than hide them.
func FromUSD(usd float64) Nano {
	if math.IsNaN(usd) {
		return 0
	}
	v := math.Round(usd * 1e9)
	switch {
	case v >= math.MaxInt64:
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	}
	return Nano(v)
}

// USD is the amount in dollars, for display and JSON; never add these up.
func (n Nano) USD() float64 { return float64(n) / 1e9 }

// String is the exact decimal amount in dollars with at least six
// decimals ("0.250000", "0.000000001"), for JSON and logs.
func (n Nano) String() string {
	neg := n < 0
	u := uint64(n)
	if neg {
		u = -u
	}
	whole := strconv.FormatUint(u/1e9, 10)
	frac := strconv.FormatUint(u%1e9, 10)
	frac = strings.Repeat("0", 9-len(frac)) + frac
	frac = strings.TrimRight(frac, "0")
	if len(frac) < 6 {
		frac += strings.Repeat("0", 6-len(frac))
	}
	if neg {
		whole = "-" + whole
	}
	return whole + "." + frac
}
