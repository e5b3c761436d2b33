package proc

import (
	"encoding/json"
	"os"
)

// CodexAuthUsable reports whether a Codex CLI credential file (auth.json)
// holds a ChatGPT login or an API key. It reads at most 1 MiB and never
// returns what it read. Both the runtime catalog (is Codex logged in?) and
// the Codex adapter (may this managed home run?) ask it.
func CodexAuthUsable(path string) bool {
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
