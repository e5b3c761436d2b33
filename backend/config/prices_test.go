package config

import "testing"

// One table, two ways to read it: an estimate may take the nearest model
// (a dated id, a longer name), a stated price only the model itself.
func TestExactRateNeverGuessesWhereRateOfEstimates(t *testing.T) {
	for _, c := range []struct {
		model         string
		exact, approx string // the key found, "" for none
	}{
		{"claude-haiku-4-5", "claude-haiku-4-5", "claude-haiku-4-5"},
		{"claude-haiku-4-5-20251001", "claude-haiku-4-5", "claude-haiku-4-5"},
		{"anthropic/claude-haiku-4.5", "claude-haiku-4-5", "claude-haiku-4-5"},
		{"openai/gpt-4o-mini", "gpt-4o-mini", "gpt-4o-mini"},
		{"GPT-4o", "gpt-4o", "gpt-4o"},
		{"gpt-4o-2024-08-06", "", "gpt-4o"},                   // not a -YYYYMMDD snapshot
		{"claude-haiku-4-5-2025100", "", "claude-haiku-4-5"},  // seven digits
		{"claude-haiku-4-5-2025a001", "", "claude-haiku-4-5"}, // not all digits
		{"-20251001", "", ""},
		{"gpt-5.4", "", "gpt-5"},
		{"us.anthropic.claude-sonnet-4-5-v1:0", "", "claude-sonnet-4-5"},
		{"gemini-2.0-flash", "", ""},
		{"", "", ""},
	} {
		e, eok := ExactRateOf(c.model)
		a, aok := RateOf(c.model)
		if e.Key != c.exact || eok != (c.exact != "") {
			t.Errorf("ExactRateOf(%q) = %q %v, want %q", c.model, e.Key, eok, c.exact)
		}
		if a.Key != c.approx || aok != (c.approx != "") {
			t.Errorf("RateOf(%q) = %q %v, want %q", c.model, a.Key, aok, c.approx)
		}
	}
	if r, _ := ExactRateOf("claude-sonnet-4-6"); r.In != 3_000 || r.Out != 15_000 {
		t.Fatalf("%+v", r)
	}
}
