package slug

import (
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	for name, want := range map[string]string{
		"Code Reviewer":         "code-reviewer",
		"  My Agent (beta) ":    "my-agent-beta",
		"Ünïcode & ümlauts":     "n-code-mlauts",
		"---":                   "fallback",
		"":                      "fallback",
		"a--b__c":               "a-b-c",
		strings.Repeat("x", 90): strings.Repeat("x", Max),
	} {
		if got := Of(name, "fallback"); got != want {
			t.Errorf("Of(%q) = %q, want %q", name, got, want)
		}
	}
	if got := Of(strings.Repeat("ab ", 30), "f"); len(got) > Max || strings.HasSuffix(got, "-") {
		t.Errorf("a long name's slug %q", got)
	}
}
