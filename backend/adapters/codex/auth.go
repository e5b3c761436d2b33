package codex

import (
	"encoding/json"
	"os"
)

// AuthUsable reports whether a Codex CLI credential file (auth.json) holds
// a ChatGPT login or an API key. It reads at most 1 MiB and never returns
// what it read. The format is Codex's, so it lives with the adapter; the
// runtime catalog asks it too (is Codex logged in?), as the adapter does
// (may this managed home run?).
func AuthUsable(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 1<<20 {
		return false
	}
	var f struct {
		APIKey *string          `json:"OPENAI_API_KEY"`
		Tokens *json.RawMessage `json:"tokens"`
	}
	if json.Unmarshal(b, &f) != nil {
		return false
	}
	if f.APIKey != nil && *f.APIKey != "" {
		return true
	}
	return f.Tokens != nil && string(*f.Tokens) != "null" && len(*f.Tokens) > 2
}
