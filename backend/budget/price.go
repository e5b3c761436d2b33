package budget

import (
	"math"
	"math/bits"
	"strings"
)

// rate is a price in nano-USD per token, which is exactly USD per million
// tokens × 1000: integer for every list price, so estimates never drift.
type rate struct {
	key     string
	in, out int64
}

// Default rate for a model Clawboo has no price for: $3 / $15 per million
// input / output tokens, the shared default of the original product.
const (
	defaultIn  int64 = 3_000
	defaultOut int64 = 15_000
)

// pinned is the price list (USD per million tokens × 1000), read-only.
// Keys are lower case; "claude" names are matched with dots read as dashes
// (OpenRouter's "claude-haiku-4.5").
var pinned = [...]rate{
	{"claude-opus-4-6", 5_000, 25_000},
	{"claude-opus-4-5", 5_000, 25_000},
	{"claude-opus-4-1", 15_000, 75_000},
	{"claude-opus-4", 15_000, 75_000},
	{"claude-sonnet-4-6", 3_000, 15_000},
	{"claude-sonnet-4-5", 3_000, 15_000},
	{"claude-sonnet-4", 3_000, 15_000},
	{"claude-3-7-sonnet", 3_000, 15_000},
	{"claude-sonnet-3-7", 3_000, 15_000},
	{"claude-haiku-4-5", 1_000, 5_000},
	{"claude-3-5-haiku", 800, 4_000},
	{"claude-haiku-3-5", 800, 4_000},
	{"claude-3-haiku", 250, 1_250},
	{"gpt-4o", 2_500, 10_000},
	{"gpt-4o-mini", 150, 600},
	{"gpt-4.1", 2_000, 8_000},
	{"gpt-4.1-mini", 400, 1_600},
	{"gpt-4.1-nano", 100, 400},
	{"gpt-5", 1_250, 10_000},
	{"gpt-5-mini", 250, 2_000},
	{"gpt-5-nano", 50, 400},
	{"gpt-5-codex", 1_250, 10_000},
	{"gpt-5-pro", 15_000, 120_000},
	{"gpt-5.1", 1_250, 10_000},
	{"gpt-5.2", 1_750, 14_000},
	{"o3", 2_000, 8_000},
	{"o3-mini", 1_100, 4_400},
	{"o3-pro", 20_000, 80_000},
	{"o4-mini", 1_100, 4_400},
}

// lookup finds a model's rate: an exact match of the whole lower-cased
// name, then of the name after any provider prefix ("openai/gpt-4o"), then
// the longest key that prefixes that name (dated ids such as
// "claude-sonnet-4-5-20250929"), then the longest key contained anywhere
// in the name (Bedrock-style ids). Longest wins so "gpt-4o-mini" is never
// priced as "gpt-4o".
func lookup(model string) (rate, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if m == "" {
		return rate{}, false
	}
	if strings.Contains(m, "claude") {
		m = strings.ReplaceAll(m, ".", "-")
	}
	base := m[strings.LastIndexByte(m, '/')+1:]
	var prefix, sub rate
	for _, r := range pinned {
		switch {
		case r.key == m || r.key == base:
			return r, true
		case strings.HasPrefix(base, r.key):
			if len(r.key) > len(prefix.key) {
				prefix = r
			}
		case strings.Contains(m, r.key):
			if len(r.key) > len(sub.key) {
				sub = r
			}
		}
	}
	if prefix.key != "" {
		return prefix, true
	}
	return sub, sub.key != ""
}

// Price is a model's list price in USD per million input and output
// tokens; known is false (and the price the $3 / $15 default) when the
// model is not in the table.
func Price(model string) (inPerM, outPerM float64, known bool) {
	r, ok := lookup(model)
	if !ok {
		r = rate{in: defaultIn, out: defaultOut}
	}
	return float64(r.in) / 1000, float64(r.out) / 1000, ok
}

// TokenCost prices token counts at the model's rate (or the default rate),
// exactly in integer nano; negative counts count as zero and an absurd
// count saturates rather than wraps.
func TokenCost(model string, in, out int64) Nano {
	r, ok := lookup(model)
	if !ok {
		r = rate{in: defaultIn, out: defaultOut}
	}
	return Nano(satAdd(satMul(max(in, 0), r.in), satMul(max(out, 0), r.out)))
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
