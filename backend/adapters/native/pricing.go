package native

import (
	"regexp"
	"strings"

	"github.com/clawboo/desktop/backend/llm"
)

// price is USD per million tokens.
type price struct{ in, out float64 }

// pinned is the short table of models whose price we vouch for; every
// other model is priced by the host's estimate (costUsd null).
var pinned = map[string]price{
	"claude-haiku-4-5":           {1, 5},
	"claude-sonnet-4-6":          {3, 15},
	"gpt-4o-mini":                {0.15, 0.6},
	"gpt-4o":                     {2.5, 10},
	"openai/gpt-4o-mini":         {0.15, 0.6},
	"anthropic/claude-haiku-4.5": {1, 5},
}

var dateSuffix = regexp.MustCompile(`-\d{8}$`)

// turnPrice is one response's charge: usd nil means "not ours to say" (the
// host estimates), local marks a free local model. It is the one place to
// switch to llm's price table once that lands.
func turnPrice(provider, model string, u llm.Usage) (usd *float64, local bool) {
	if provider == "ollama" && !ollamaCloud(model) {
		zero := 0.0
		return &zero, true
	}
	p, ok := pinned[dateSuffix.ReplaceAllString(model, "")]
	if !ok {
		return nil, false
	}
	// Cache reads bill at a tenth of input, cache writes at 1.25×.
	in := float64(u.InputTokens) + 0.1*float64(u.CacheReadTokens) + 1.25*float64(u.CacheWriteTokens)
	v := (in*p.in + float64(u.OutputTokens)*p.out) / 1e6
	return &v, false
}

// ollamaCloud reports an Ollama tag that runs on Ollama's cloud (and is
// billed there), such as gpt-oss:120b-cloud.
func ollamaCloud(model string) bool {
	_, tag, ok := strings.Cut(model, ":")
	return ok && (tag == "cloud" || strings.HasSuffix(tag, "-cloud"))
}
