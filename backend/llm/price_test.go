package llm

import "testing"

func TestPriceTurn(t *testing.T) {
	u := Usage{InputTokens: 1_000_000, OutputTokens: 100_000}
	cases := []struct {
		provider, model string
		want            float64 // -1: nil
		local           bool
	}{
		{"anthropic", "claude-haiku-4-5", 1 + 0.5, false},
		{"anthropic", "claude-haiku-4-5-20251001", 1.5, false},
		{"anthropic", "claude-sonnet-4-6", 3 + 1.5, false},
		{"openai", "gpt-4o-mini", 0.15 + 0.06, false},
		{"openai", "gpt-4o-2024-08-06", -1, false}, // not a -YYYYMMDD suffix
		{"openai", "gpt-4o", 2.5 + 1, false},
		{"openrouter", "openai/gpt-4o-mini", 0.21, false},
		{"openrouter", "anthropic/claude-haiku-4.5", 1.5, false},
		{"google", "gemini-2.0-flash", -1, false},
		{"anthropic", "claude-opus-9", -1, false},
		{"ollama", "llama3.2", 0, true},
		{"ollama", "gpt-oss:120b-cloud", -1, false},
		{"ollama", "kimi-k2:cloud", -1, false},
	}
	for _, c := range cases {
		usd, local := PriceTurn(c.provider, c.model, u)
		if local != c.local {
			t.Errorf("%s/%s local = %v", c.provider, c.model, local)
		}
		switch {
		case c.want < 0 && usd != nil:
			t.Errorf("%s/%s = %v, want nil", c.provider, c.model, *usd)
		case c.want >= 0 && (usd == nil || abs(*usd-c.want) > 1e-9):
			t.Errorf("%s/%s = %v, want %v", c.provider, c.model, usd, c.want)
		}
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
