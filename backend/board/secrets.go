package board

import (
	"encoding/json"
	"sort"
	"strings"
)

// MaxSecrets bounds the secrets one task may name.
const MaxSecrets = 16

// secretNames checks and normalises a task's secret names: environment
// variable names (A–Z, 0–9 and _, starting with a letter, at most 58
// characters), trimmed, without repeats, sorted, at most MaxSecrets. Only
// names are ever stored: the values stay in the vault. Which names the
// host keeps for itself (PATH, GIT_*, …) and whether each is stored are
// the API's checks, which know the vault and the process rules.
func secretNames(in []string) ([]string, error) {
	seen := map[string]bool{}
	out := []string{}
	for _, raw := range in {
		n := strings.TrimSpace(raw)
		if !envName(n) {
			// Not echoed: a value may have been pasted where a name goes.
			return nil, rule("invalid", "a secret is named like an environment variable (A–Z, 0–9 and _, starting with a letter, at most 58 characters)")
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if len(out) > MaxSecrets {
		return nil, rule("invalid", "a task may name at most %d secrets", MaxSecrets)
	}
	sort.Strings(out)
	return out, nil
}

func envName(n string) bool {
	ok := len(n) >= 1 && len(n) <= 58 && n[0] >= 'A' && n[0] <= 'Z'
	for i := 1; ok && i < len(n); i++ {
		c := n[i]
		ok = c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
	}
	return ok
}

func encodeSecrets(names []string) string {
	b, _ := json.Marshal(names)
	return string(b)
}

// decodeSecrets reads the column; anything unreadable is no secrets (a
// task then runs without them rather than with a guess).
func decodeSecrets(raw string) []string {
	var names []string
	if json.Unmarshal([]byte(raw), &names) != nil || names == nil {
		return []string{}
	}
	return names
}
