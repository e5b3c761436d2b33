package native

import "github.com/clawboo/desktop/backend/llm"

// turnPrice is one response's charge: usd nil means "not ours to say" (the
// host estimates), local marks a free local model. It is llm's pinned
// price table, kept behind one function so the loop names a single place.
func turnPrice(provider, model string, u llm.Usage) (usd *float64, local bool) {
	return llm.PriceTurn(provider, model, u)
}
