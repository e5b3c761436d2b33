package llm

import (
	"regexp"
	"strings"
)

// price is USD per million tokens.
type price struct{ in, out float64 }

// pinnedPrice is the reference's pinned table (native/pricing.ts); a model
// outside it has no price and the caller estimates.
func pinnedPrice(model string) (price, bool) {
	switch model {
	case "claude-haiku-4-5", "anthropic/claude-haiku-4.5":
		return price{1, 5}, true
	case "claude-sonnet-4-6":
		return price{3, 15}, true
	case "gpt-4o-mini", "openai/gpt-4o-mini":
		return price{0.15, 0.6}, true
	case "gpt-4o":
		return price{2.5, 10}, true
	}
	return price{}, false
}

// dateSuffix is a snapshot date (claude-haiku-4-5-20251001), priced as the
// model it snapshots.
var dateSuffix = regexp.MustCompile(`-\d{8}$`)

// PriceTurn is one response's cost in USD. Pinned models are priced from
// input and output tokens (the reference prices nothing else); any other
// model gives nil and the caller marks the cost estimated. Ollama runs
// locally: exactly 0 with local true, except its cloud-hosted tags
// (-cloud, :cloud), which are neither free nor local.
func PriceTurn(provider, model string, u Usage) (usd *float64, local bool) {
	if provider == "ollama" {
		if strings.HasSuffix(model, "-cloud") || strings.HasSuffix(model, ":cloud") {
			return nil, false
		}
		zero := 0.0
		return &zero, true
	}
	p, ok := pinnedPrice(dateSuffix.ReplaceAllString(model, ""))
	if !ok {
		return nil, false
	}
	v := (float64(u.InputTokens)*p.in + float64(u.OutputTokens)*p.out) / 1e6
	return &v, false
}
