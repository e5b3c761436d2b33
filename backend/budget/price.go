package budget

import (
	"math"
	"math/bits"
	"strings"

	"github.com/clawboo/desktop/backend/config"
)

// Default rate for a model Clawboo has no price for: $3 / $15 per million
// input / output tokens, the shared default of the original product.
const (
	defaultIn  int64 = 3_000
	defaultOut int64 = 15_000
)

// rate is config's price of a model, or the default rate (ok false).
func rate(model string) (in, out int64, ok bool) {
	if r, ok := config.RateOf(model); ok {
		return r.In, r.Out, true
	}
	return defaultIn, defaultOut, false
}

// Price is a model's list price in USD per million input and output
// tokens; known is false (and the price the $3 / $15 default) when the
// model is not in the table.
func Price(model string) (inPerM, outPerM float64, known bool) {
	in, out, ok := rate(model)
	return float64(in) / 1000, float64(out) / 1000, ok
}

// TokenCost prices token counts at the model's rate (or the default rate),
// exactly in integer nano; negative counts count as zero and an absurd
// count saturates rather than wraps.
func TokenCost(model string, in, out int64) Nano {
	rin, rout, _ := rate(model)
	return Nano(satAdd(satMul(max(in, 0), rin), satMul(max(out, 0), rout)))
}

// CharTokens estimates tokens from characters, four to a token, rounded
// up: ceil(max(0, chars) / 4).
func CharTokens(chars int64) int64 {
	if chars <= 0 {
		return 0
	}
	t := chars / 4
	if chars%4 != 0 {
		t++
	}
	return t
}

// CharCost is the char-estimate for a run that reported nothing: input
// characters (context and message) and output characters (the reply) as
// tokens, priced at the model's rate.
func CharCost(model string, inChars, outChars int64) Nano {
	return TokenCost(model, CharTokens(inChars), CharTokens(outChars))
}

// IsLocal reports whether a model runs on the user's own Ollama and so
// costs nothing: the "ollama" provider or an "ollama/…" model id, unless
// the tag marks one of Ollama's cloud models ("…-cloud" or ":cloud"),
// which are billed.
func IsLocal(provider, model string) bool {
	p := strings.ToLower(strings.TrimSpace(provider))
	m := strings.ToLower(strings.TrimSpace(model))
	if p != "ollama" && !strings.HasPrefix(m, "ollama/") {
		return false
	}
	return !strings.HasSuffix(m, "-cloud") && !strings.HasSuffix(m, ":cloud")
}

// CostReport is one cost event as the runner sees it: the runtime's USD
// (nil = unknown), its token usage, the model and provider, and whether
// the adapter marked the turn local.
type CostReport struct {
	CostUSD      *float64
	InputTokens  int64
	OutputTokens int64
	Model        string
	Provider     string
	Local        bool
}

// Classify turns one cost event into a charge:
//   - the adapter's local flag, or IsLocal, → local at $0 (a local turn's
//     reported 0 is local, not reported);
//   - a reported USD that is finite and not negative → reported, rounded
//     to the nearest nano;
//   - otherwise (no USD, or a nonsensical one) → token-estimate, the usage
//     priced at the model's rate or the $3 / $15 default. An event with
//     neither USD nor usage is a token-estimate of $0.
func Classify(r CostReport) (Kind, Nano) {
	if r.Local || IsLocal(r.Provider, r.Model) {
		return KindLocal, 0
	}
	if c := r.CostUSD; c != nil && !math.IsNaN(*c) && !math.IsInf(*c, 0) && *c >= 0 {
		return KindReported, FromUSD(*c)
	}
	return KindTokenEstimate, TokenCost(r.Model, r.InputTokens, r.OutputTokens)
}

// satMul multiplies non-negative a and b, saturating at MaxInt64.
func satMul(a, b int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lo)
}

// satAdd adds non-negative a and b, saturating at MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// atLeast reports a*ma >= b*mb exactly for non-negative operands, so the
// 80 % threshold (spent*5 >= limit*4) needs no float and cannot overflow.
func atLeast(a, ma, b, mb int64) bool {
	ah, al := bits.Mul64(uint64(a), uint64(ma))
	bh, bl := bits.Mul64(uint64(b), uint64(mb))
	return ah > bh || (ah == bh && al >= bl)
}
