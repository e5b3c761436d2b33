package budget

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

var zero time.Time

func TestSpendSummaries(t *testing.T) {
	f := newFixture(t)
	add := func(run, runtime string, s Scopes, kind Kind, usd float64) {
		t.Helper()
		if _, err := f.l.Charge(ctx, Charge{RunID: run, RuntimeID: runtime, Scopes: s, Kind: kind, Nano: FromUSD(usd)}); err != nil {
			t.Fatal(err)
		}
	}
	// Late on 1 March and early on 2 March UTC: days are UTC days.
	f.clock.set(time.Date(2026, 3, 1, 23, 30, 0, 0, time.UTC))
	add("r1", "claude-code", Scopes{AgentID: "a1", TeamID: "t1"}, KindReported, 1)
	add("r1", "claude-code", Scopes{AgentID: "a1", TeamID: "t1"}, KindReported, 0.5)
	f.clock.add(time.Hour)
	add("r2", "codex", Scopes{AgentID: "a2", TeamID: "t1"}, KindTokenEstimate, 0.25)
	add("r3", "hermes", Scopes{}, KindCharEstimate, 0.1)
	f.clock.set(time.Date(2026, 3, 3, 10, 0, 0, 0, time.UTC))
	add("r4", "native", Scopes{AgentID: "a1"}, KindLocal, 0)
	add("r5", "codex", Scopes{AgentID: "a1", MissionID: "m1"}, KindTokenEstimate, 2)

	format := func(rows []SpendRow) string {
		var out []string
		for _, r := range rows {
			if r.USD != r.Nano.USD() {
				t.Fatalf("row %+v: USD and Nano disagree", r)
			}
			out = append(out, fmt.Sprintf("%s %s %d %v", r.Key, r.Nano, r.Runs, r.ByKind))
		}
		return strings.Join(out, "\n")
	}
	mar2 := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	r2at := time.Date(2026, 3, 2, 0, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		by           string
		since, until time.Time
		want         string
	}{
		{"agent", zero, zero, "a1 3.500000 3 map[local:0 reported:1.5 token-estimate:2]\na2 0.250000 1 map[token-estimate:0.25]\n 0.100000 1 map[char-estimate:0.1]"},
		{"team", zero, zero, " 2.100000 3 map[char-estimate:0.1 local:0 token-estimate:2]\nt1 1.750000 2 map[reported:1.5 token-estimate:0.25]"},
		{"mission", zero, zero, "m1 2.000000 1 map[token-estimate:2]\n 1.850000 4 map[char-estimate:0.1 local:0 reported:1.5 token-estimate:0.25]"},
		{"runtime", zero, zero, "codex 2.250000 2 map[token-estimate:2.25]\nclaude-code 1.500000 1 map[reported:1.5]\nhermes 0.100000 1 map[char-estimate:0.1]\nnative 0.000000 1 map[local:0]"},
		{"kind", zero, zero, "token-estimate 2.250000 2 map[token-estimate:2.25]\nreported 1.500000 1 map[reported:1.5]\nchar-estimate 0.100000 1 map[char-estimate:0.1]\nlocal 0.000000 1 map[local:0]"},
		{"day", zero, zero, "2026-03-01 1.500000 1 map[reported:1.5]\n2026-03-02 0.350000 2 map[char-estimate:0.1 token-estimate:0.25]\n2026-03-03 2.000000 2 map[local:0 token-estimate:2]"},
		{"model", zero, zero, " 3.850000 5 map[char-estimate:0.1 local:0 reported:1.5 token-estimate:2.25]"},
		{"day", mar2, zero, "2026-03-02 0.350000 2 map[char-estimate:0.1 token-estimate:0.25]\n2026-03-03 2.000000 2 map[local:0 token-estimate:2]"},
		{"day", zero, mar2, "2026-03-01 1.500000 1 map[reported:1.5]"},
		{"agent", r2at, mar2.Add(24 * time.Hour), "a2 0.250000 1 map[token-estimate:0.25]\n 0.100000 1 map[char-estimate:0.1]"},
		{"agent", r2at, r2at, ""}, // until is exclusive
	} {
		rows, err := f.l.Spend(ctx, tc.by, tc.since, tc.until)
		if err != nil {
			t.Fatalf("Spend(%s): %v", tc.by, err)
		}
		if got := format(rows); got != tc.want {
			t.Errorf("Spend(%s, %v, %v):\n%s\nwant:\n%s", tc.by, tc.since, tc.until, got, tc.want)
		}
	}
	if _, err := f.l.Spend(ctx, "day", mar2, mar2.Add(-time.Second)); err == nil {
		t.Fatal("a window that ends before it starts was accepted")
	}
}

func TestRunSpendDominantKind(t *testing.T) {
	f := newFixture(t)
	add := func(run string, kind Kind, n Nano) {
		t.Helper()
		if _, err := f.l.Charge(ctx, Charge{RunID: run, RuntimeID: "x", Kind: kind, Nano: n}); err != nil {
			t.Fatal(err)
		}
	}
	add("mixed", KindReported, 1)
	add("mixed", KindTokenEstimate, 5)
	add("tie", KindCharEstimate, 5)
	add("tie", KindReported, 5)
	add("count", KindReported, 0)
	add("count", KindLocal, 0)
	add("count", KindLocal, 0)
	add("local", KindLocal, 0)
	for _, tc := range []struct {
		run  string
		nano Nano
		kind Kind
	}{{"mixed", 6, KindTokenEstimate}, {"tie", 10, KindReported}, {"count", 0, KindLocal}, {"local", 0, KindLocal}, {"none", 0, ""}} {
		n, k, err := f.l.RunSpend(ctx, tc.run)
		if err != nil || n != tc.nano || k != tc.kind {
			t.Errorf("RunSpend(%s) = %d, %q, %v; want %d, %q", tc.run, n, k, err, tc.nano, tc.kind)
		}
	}
}

func BenchmarkCharge(b *testing.B) {
	f := newFixture(b)
	mustSet(b, f.l, ScopeAgent, "a1", 1<<60, ModeCap)
	mustSet(b, f.l, ScopeMission, "m1", 1<<60, ModeWarn)
	mustSet(b, f.l, ScopeTeam, "t1", 1<<60, ModeWarn)
	c := Charge{RunID: "r1", RuntimeID: "codex", Model: "gpt-5", Scopes: abc, Kind: KindTokenEstimate, Nano: 1234}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.l.Charge(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
}
