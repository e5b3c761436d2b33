package budget

import (
	"math"
	"testing"
)

func TestPrice(t *testing.T) {
	for _, tc := range []struct {
		model   string
		in, out float64
		known   bool
	}{
		{"claude-haiku-4-5", 1, 5, true},
		{"claude-haiku-4-5-20251001", 1, 5, true},
		{"anthropic/claude-haiku-4.5", 1, 5, true},
		{"claude-3-5-haiku-20241022", 0.8, 4, true},
		{"claude-opus-4-20250514", 15, 75, true},
		{"claude-opus-4-1-20250805", 15, 75, true},
		{"claude-opus-4-5", 5, 25, true},
		{"claude-opus-4-6", 5, 25, true},
		{"claude-sonnet-4-5-20250929", 3, 15, true},
		{"claude-sonnet-4-6", 3, 15, true},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", 3, 15, true},
		{"gpt-4o", 2.5, 10, true},
		{"GPT-4o-2024-08-06", 2.5, 10, true},
		{"gpt-4o-mini", 0.15, 0.6, true},
		{"gpt-4o-mini-2024-07-18", 0.15, 0.6, true},
		{"openai/gpt-4o-mini", 0.15, 0.6, true},
		{"gpt-5", 1.25, 10, true},
		{"gpt-5-mini", 0.25, 2, true},
		{"gpt-5-codex", 1.25, 10, true},
		{"gpt-5.1-codex", 1.25, 10, true},
		{"gpt-5-pro", 15, 120, true},
		{"o4-mini", 1.1, 4.4, true},
		{"o4-mini-2025-04-16", 1.1, 4.4, true},
		{"fake-model", 3, 15, false},
		{"llama3.1:8b", 3, 15, false},
		{"", 3, 15, false},
	} {
		in, out, known := Price(tc.model)
		if in != tc.in || out != tc.out || known != tc.known {
			t.Errorf("Price(%q) = %v, %v, %v; want %v, %v, %v", tc.model, in, out, known, tc.in, tc.out, tc.known)
		}
	}
}

func TestTokenCost(t *testing.T) {
	for _, tc := range []struct {
		model   string
		in, out int64
		want    Nano
	}{
		{"gpt-4o", 1_000_000, 1_000_000, 12_500_000_000},
		{"gpt-4o-mini", 1, 1, 750},
		{"claude-haiku-4-5", 2_000, 500, 4_500_000},
		{"unknown-model", 1_000_000, 1_000_000, 18 * NanoPerUSD},
		{"", 1_000, 0, 3_000_000},
		{"gpt-4o", -5, -5, 0},
		{"gpt-4o", math.MaxInt64, 1, math.MaxInt64},
	} {
		if got := TokenCost(tc.model, tc.in, tc.out); got != tc.want {
			t.Errorf("TokenCost(%q, %d, %d) = %d; want %d", tc.model, tc.in, tc.out, got, tc.want)
		}
	}
	if got := CharCost("nope", 10, 3); got != TokenCost("nope", 3, 1) {
		t.Errorf("CharCost = %d", got)
	}
}

func TestCharTokens(t *testing.T) {
	for _, tc := range []struct{ chars, want int64 }{
		{-5, 0},
		{0, 0},
		{1, 1},
		{3, 1},
		{4, 1},
		{5, 2},
		{8, 2},
		{9, 3},
		{math.MaxInt64, math.MaxInt64/4 + 1},
	} {
		if got := CharTokens(tc.chars); got != tc.want {
			t.Errorf("CharTokens(%d) = %d; want %d", tc.chars, got, tc.want)
		}
	}
}

func TestIsLocal(t *testing.T) {
	for _, tc := range []struct {
		provider, model string
		want            bool
	}{
		{"ollama", "llama3.1:8b", true},
		{"Ollama", "qwen3", true},
		{"", "ollama/llama3", true},
		{"", "OLLAMA/mistral:latest", true},
		{"ollama", "gpt-oss:120b-cloud", false},
		{"ollama", "glm-4.6:cloud", false},
		{"", "ollama/deepseek-v3.1:671b-cloud", false},
		{"", "ollama/minimax-m2:cloud", false},
		{"anthropic", "claude-haiku-4-5", false},
		{"openrouter", "meta/llama-3-ollama", false},
		{"", "llama3", false},
	} {
		if got := IsLocal(tc.provider, tc.model); got != tc.want {
			t.Errorf("IsLocal(%q, %q) = %v; want %v", tc.provider, tc.model, got, tc.want)
		}
	}
}

func usd(v float64) *float64 { return &v }

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    CostReport
		kind Kind
		nano Nano
	}{
		{"reported USD", CostReport{CostUSD: usd(0.0123), Model: "claude-sonnet-4-5"}, KindReported, 12_300_000},
		{"reported zero", CostReport{CostUSD: usd(0), Model: "claude-sonnet-4-5"}, KindReported, 0},
		{"reported beats usage", CostReport{CostUSD: usd(1), InputTokens: 1e6, Model: "gpt-4o"}, KindReported, NanoPerUSD},
		{"local flag", CostReport{CostUSD: usd(0), Local: true, InputTokens: 10}, KindLocal, 0},
		{"ollama provider", CostReport{Provider: "ollama", Model: "llama3", InputTokens: 1e6, OutputTokens: 1e6}, KindLocal, 0},
		{"ollama model id", CostReport{Model: "ollama/qwen3", InputTokens: 5}, KindLocal, 0},
		{"ollama cloud tag unpriced", CostReport{Provider: "ollama", Model: "gpt-oss:120b-cloud", InputTokens: 1000, OutputTokens: 1000}, KindTokenEstimate, 18_000_000},
		{"ollama cloud reported", CostReport{Provider: "ollama", Model: "glm-4.6:cloud", CostUSD: usd(0.5)}, KindReported, NanoPerUSD / 2},
		{"tokens at the model's price", CostReport{Model: "gpt-4o", InputTokens: 1000, OutputTokens: 100}, KindTokenEstimate, 3_500_000},
		{"unknown model at $3/$15", CostReport{Model: "mystery-1", InputTokens: 1_000_000, OutputTokens: 1_000_000}, KindTokenEstimate, 18 * NanoPerUSD},
		{"no model at $3/$15", CostReport{InputTokens: 1_000_000}, KindTokenEstimate, 3 * NanoPerUSD},
		{"negative USD is unknown", CostReport{CostUSD: usd(-1), Model: "gpt-4o", InputTokens: 1000}, KindTokenEstimate, 2_500_000},
		{"NaN USD is unknown", CostReport{CostUSD: usd(math.NaN()), Model: "gpt-4o", InputTokens: 1000}, KindTokenEstimate, 2_500_000},
		{"nothing at all", CostReport{}, KindTokenEstimate, 0},
	} {
		kind, nano := Classify(tc.r)
		if kind != tc.kind || nano != tc.nano {
			t.Errorf("%s: Classify = %s, %d; want %s, %d", tc.name, kind, nano, tc.kind, tc.nano)
		}
	}
}

func TestNanoConversions(t *testing.T) {
	for _, tc := range []struct {
		usd  float64
		want Nano
	}{
		{1e-9, 1},
		{0.1 + 0.2, 300_000_000},
		{1.5, 1_500_000_000},
		{4e-10, 0},
		{6e-10, 1},
		{-1, -NanoPerUSD},
		{math.NaN(), 0},
		{math.Inf(1), math.MaxInt64},
	} {
		if got := FromUSD(tc.usd); got != tc.want {
			t.Errorf("FromUSD(%v) = %d; want %d", tc.usd, got, tc.want)
		}
	}
	for _, tc := range []struct {
		n    Nano
		want string
	}{
		{0, "0.000000"},
		{1, "0.000000001"},
		{1_500_000_000, "1.500000"},
		{123_456_789, "0.123456789"},
		{12_345_600, "0.0123456"},
		{-500_000_000, "-0.500000"},
		{math.MinInt64, "-9223372036.854775808"},
	} {
		if got := tc.n.String(); got != tc.want {
			t.Errorf("Nano(%d).String() = %q; want %q", int64(tc.n), got, tc.want)
		}
	}
	// A million one-nano charges are exactly a milli-dollar; float drifts.
	var sum Nano
	var f float64
	for range 1_000_000 {
		sum += FromUSD(1e-9)
		f += 1e-9
	}
	if sum != 1_000_000 || sum.USD() != 0.001 {
		t.Fatalf("sum = %d (%v)", sum, sum.USD())
	}
	if f == 0.001 {
		t.Fatal("float64 summed a million 1e-9 exactly; this test no longer shows the drift Nano avoids")
	}
}

func TestThresholdsAreExact(t *testing.T) {
	for _, tc := range []struct {
		spent, limit Nano
		mode, want   string
	}{
		{7, 10, ModeCap, StatusOK},
		{8, 10, ModeCap, StatusWarned},
		{9, 10, ModeWarn, StatusWarned},
		{10, 10, ModeWarn, StatusExceeded},
		{10, 10, ModeCap, StatusPaused},
		{2, 3, ModeCap, StatusOK}, // 80 % of 3 is 2.4: 2 is under it
		{3, 3, ModeCap, StatusPaused},
		{799_999_999, NanoPerUSD, ModeWarn, StatusOK},
		{800_000_000, NanoPerUSD, ModeWarn, StatusWarned},
		{math.MaxInt64 - 1, math.MaxInt64, ModeCap, StatusWarned}, // no overflow
		{math.MaxInt64 / 2, math.MaxInt64, ModeCap, StatusOK},
	} {
		if got := statusFor(tc.spent, tc.limit, tc.mode); got != tc.want {
			t.Errorf("statusFor(%d, %d, %s) = %s; want %s", tc.spent, tc.limit, tc.mode, got, tc.want)
		}
	}
}
