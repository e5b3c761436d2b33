package config

import "strings"

// The models' list prices: the one table, read by the ledger's estimates
// (backend/budget) and by the native loop's per-turn cost (backend/llm).

// ModelRate is a model's list price in nano-USD per token, which is
// exactly USD per million tokens × 1000: integer for every list price, so
// estimates never drift.
type ModelRate struct {
	Key     string
	In, Out int64
}

// pinned is the price list (USD per million tokens × 1000), read-only.
// Keys are lower case; "claude" names are matched with dots read as dashes
// (OpenRouter's "claude-haiku-4.5").
var pinned = [...]ModelRate{
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

// RateOf finds a model's rate: an exact match of the whole lower-cased
// name, then of the name after any provider prefix ("openai/gpt-4o"), then
// the longest key that prefixes that name (dated ids such as
// "claude-sonnet-4-5-20250929"), then the longest key contained anywhere
// in the name (Bedrock-style ids). Longest wins so "gpt-4o-mini" is never
// priced as "gpt-4o".
func RateOf(model string) (ModelRate, bool) {
	m, base := modelName(model)
	if m == "" {
		return ModelRate{}, false
	}
	var prefix, sub ModelRate
	for _, r := range pinned {
		switch {
		case r.Key == m || r.Key == base:
			return r, true
		case strings.HasPrefix(base, r.Key):
			if len(r.Key) > len(prefix.Key) {
				prefix = r
			}
		case strings.Contains(m, r.Key):
			if len(r.Key) > len(sub.Key) {
				sub = r
			}
		}
	}
	if prefix.Key != "" {
		return prefix, true
	}
	return sub, sub.Key != ""
}

// modelName is how the table reads a model's name: lower case, dots as
// dashes in "claude" names (OpenRouter's "claude-haiku-4.5"), and base,
// the name after any provider prefix ("openai/gpt-4o" → "gpt-4o").
func modelName(model string) (m, base string) {
	m = strings.ToLower(strings.TrimSpace(model))
	if strings.Contains(m, "claude") {
		m = strings.ReplaceAll(m, ".", "-")
	}
	return m, m[strings.LastIndexByte(m, '/')+1:]
}

// withoutSnapshot drops a -YYYYMMDD snapshot date (claude-haiku-4-5-20251001
// is priced as the model it snapshots); any other suffix stays.
func withoutSnapshot(name string) string {
	const n = len("-20251001")
	if len(name) <= n || name[len(name)-n] != '-' {
		return name
	}
	for _, c := range name[len(name)-n+1:] {
		if c < '0' || c > '9' {
			return name
		}
	}
	return name[:len(name)-n]
}

// ExactRateOf finds a model's rate only when the name is a model of the
// table: the whole name after any provider prefix ("openai/gpt-4o-mini"),
// dots read as dashes in "claude" names, and a -YYYYMMDD snapshot suffix
// dropped. Where a cost is stated as the model's own (the native loop's
// per-turn price), a guess is never passed off as one: RateOf's prefix and
// substring matches are for estimates.
func ExactRateOf(model string) (ModelRate, bool) {
	_, base := modelName(model)
	base = withoutSnapshot(base)
	for _, r := range pinned {
		if r.Key == base {
			return r, true
		}
	}
	return ModelRate{}, false
}
