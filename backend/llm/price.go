package llm

import (
	"strings"

	"github.com/clawboo/desktop/backend/config"
)

// PriceTurn is one response's cost in USD. A model of config's price table
// (the one table, which the ledger's estimates read too), matched exactly
// (config.ExactRateOf), is priced from input and output tokens; any other
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
	r, ok := config.ExactRateOf(model)
	if !ok {
		return nil, false
	}
	v := (float64(u.InputTokens)*float64(r.In) + float64(u.OutputTokens)*float64(r.Out)) / 1e9
	return &v, false
}
