//go:build desktop

package app

import (
	"fmt"
	"slices"
	"strings"
)

// hostsLine is the tray's line for the live runs on other machines, by
// host name ("" when none): "On other machines: Build box 2 runs, GPU
// box 1 run". A host whose name cannot be read is "a removed host".
func hostsLine(perHost map[string]int, name func(id string) string) string {
	type entry struct {
		name string
		n    int
	}
	var es []entry
	for id, n := range perHost {
		if n <= 0 {
			continue
		}
		nm := name(id)
		if nm == "" {
			nm = "a removed host"
		}
		es = append(es, entry{nm, n})
	}
	if len(es) == 0 {
		return ""
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = fmt.Sprintf("%s %s", e.name, plural(e.n, "run"))
	}
	return "On other machines: " + strings.Join(parts, ", ")
}
