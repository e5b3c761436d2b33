// Package slug makes the readable part of an id from a name a person
// typed: "Code Reviewer" → "code-reviewer". Agents, teams and a person's
// ACP agents are named by it, so one rule says what such an id may hold.
//
// Invariants: the result holds only a-z, 0-9 and single dashes between
// them, is at most 40 characters, and is never empty (fallback stands in
// for a name with no letters or digits).
package slug

import "strings"

// Max is the longest slug.
const Max = 40

// Of is name's slug, or fallback when name has no ASCII letter or digit.
func Of(name, fallback string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if b.Len() >= Max {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	if s := strings.Trim(b.String(), "-"); s != "" {
		return s
	}
	return fallback
}
