//go:build desktop

package app

import "testing"

func TestHostsLineNamesEachHostAndCountsItsRuns(t *testing.T) {
	names := map[string]string{"h1": "GPU box", "h2": "Build box"}
	name := func(id string) string { return names[id] }
	for _, c := range []struct {
		per  map[string]int
		want string
	}{
		{nil, ""},
		{map[string]int{"h1": 0}, ""},
		{map[string]int{"h1": 1}, "On other machines: GPU box 1 run"},
		{map[string]int{"h1": 1, "h2": 3}, "On other machines: Build box 3 runs, GPU box 1 run"},
		{map[string]int{"gone": 2}, "On other machines: a removed host 2 runs"},
	} {
		if got := hostsLine(c.per, name); got != c.want {
			t.Errorf("%v: %q, want %q", c.per, got, c.want)
		}
	}
}
