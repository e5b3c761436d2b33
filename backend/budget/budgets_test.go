package budget

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestCapPausesAndPreflightChecksAgentMissionTeam(t *testing.T) {
	f := newFixture(t)
	for _, s := range []Scope{ScopeAgent, ScopeMission, ScopeTeam} {
		mustSet(t, f.l, s, string(s)[:1]+"1", 100, ModeCap)
	}
	if err := f.l.Preflight(ctx, abc); err != nil {
		t.Fatal(err)
	}
	x := charge(t, f.l, abc, 100)
	if len(x) != 6 {
		t.Fatalf("crossings %+v", x)
	}
	for _, c := range x {
		if !c.Paused || c.Mode != ModeCap {
			t.Fatalf("crossing %+v", c)
		}
	}
	// Each raise un-pauses one scope and exposes the next in order.
	for _, want := range []Scope{ScopeAgent, ScopeMission, ScopeTeam} {
		err := f.l.Preflight(ctx, abc)
		var p *PausedError
		if !errors.As(err, &p) || p.Scope != want || p.ScopeID != string(want)[:1]+"1" {
			t.Fatalf("Preflight = %v; want %s paused", err, want)
		}
		if p.Reason() != "budget_paused:"+string(want) {
			t.Fatalf("reason %q", p.Reason())
		}
		if b := mustSet(t, f.l, want, p.ScopeID, 1000, ""); b.Status != StatusOK || b.Mode != ModeCap {
			t.Fatalf("raised budget %+v", b)
		}
	}
	if err := f.l.Preflight(ctx, abc); err != nil {
		t.Fatal(err)
	}
	// A scope the run does not have is not checked.
	mustSet(t, f.l, ScopeTeam, "t1", 10, "")
	if err := f.l.Preflight(ctx, Scopes{AgentID: "a1"}); err != nil {
		t.Fatal(err)
	}
	if err := f.l.Preflight(ctx, Scopes{}); err != nil {
		t.Fatal(err)
	}
	if PauseComment(ScopeTeam) != "Auto-paused: team budget reached. Raise the cap (or resume) to continue." {
		t.Fatal(PauseComment(ScopeTeam))
	}
}

func TestSetBudget(t *testing.T) {
	f := newFixture(t)
	// Spend before a budget exists is counted when it is created.
	charge(t, f.l, Scopes{AgentID: "a1", TeamID: "t1"}, 850)
	b := mustSet(t, f.l, ScopeAgent, "a1", 1000, "")
	if b.SpentNano != 850 || b.Status != StatusWarned || b.Mode != ModeWarn || b.LimitUSD != 1e-6 {
		t.Fatalf("new budget %+v", b)
	}
	for _, tc := range []struct {
		limit      Nano
		mode, want string
	}{
		{800, ModeCap, StatusPaused},
		{2000, "", StatusOK}, // raising above spend un-pauses; mode kept
		{1000, "", StatusWarned},
		{850, ModeWarn, StatusExceeded},
	} {
		b := mustSet(t, f.l, ScopeAgent, "a1", tc.limit, tc.mode)
		if b.Status != tc.want || b.LimitNano != tc.limit || b.SpentNano != 850 {
			t.Fatalf("SetBudget(%d, %q) = %+v; want %s", tc.limit, tc.mode, b, tc.want)
		}
	}
	mustSet(t, f.l, ScopeTeam, "t1", 5000, ModeCap)
	list, err := f.l.Budgets(ctx)
	if err != nil || len(list) != 2 || list[0].Scope != ScopeAgent || list[1].Scope != ScopeTeam || list[1].SpentNano != 850 {
		t.Fatalf("Budgets = %+v, %v", list, err)
	}
	if err := f.l.DeleteBudget(ctx, ScopeAgent, "a1"); err != nil {
		t.Fatal(err)
	}
	if err := f.l.DeleteBudget(ctx, ScopeAgent, "a1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := f.l.Budget(ctx, ScopeAgent, "a1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted budget: %v", err)
	}
	if _, err := f.st.Writer().Exec(`INSERT INTO tasks (id, title, parent_id, root_id, depth, created_at, updated_at) VALUES ('child1', 'c', 'm1', 'm1', 1, 1, 1)`); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"unknown scope": func() error { _, err := f.l.SetBudget(ctx, "tenant", "x", 1, ""); return err }(),
		"empty id":      func() error { _, err := f.l.SetBudget(ctx, ScopeAgent, "", 1, ""); return err }(),
		"zero limit":    func() error { _, err := f.l.SetBudget(ctx, ScopeAgent, "x", 0, ""); return err }(),
		"negative":      func() error { _, err := f.l.SetBudget(ctx, ScopeAgent, "x", -5, ""); return err }(),
		"unknown mode":  func() error { _, err := f.l.SetBudget(ctx, ScopeAgent, "x", 1, "hard"); return err }(),
		"delete scope":  f.l.DeleteBudget(ctx, "tenant", "x"),
		"resume grace":  func() error { _, _, err := f.l.Resume(ctx, ScopeTeam, "t1", -1); return err }(),
		"bad grouping":  func() error { _, err := f.l.Spend(ctx, "weekday", zero, zero); return err }(),
		"run spend":     func() error { _, _, err := f.l.RunSpend(ctx, ""); return err }(),
		// A budget names something that exists, by an id that is an id.
		"NUL in id":     func() error { _, err := f.l.SetBudget(ctx, ScopeTeam, "t\x00", 1, ""); return err }(),
		"newline in id": func() error { _, err := f.l.SetBudget(ctx, ScopeTeam, "t\nx", 1, ""); return err }(),
		"long id":       func() error { _, err := f.l.SetBudget(ctx, ScopeTeam, strings.Repeat("t", 129), 1, ""); return err }(),
		"no such agent": func() error { _, err := f.l.SetBudget(ctx, ScopeAgent, "ghost", 1, ""); return err }(),
		"no such task":  func() error { _, err := f.l.SetBudget(ctx, ScopeMission, "ghost", 1, ""); return err }(),
		"not a mission": func() error { _, err := f.l.SetBudget(ctx, ScopeMission, "child1", 1, ""); return err }(),
	} {
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
}

func TestResume(t *testing.T) {
	f := newFixture(t)
	mustSet(t, f.l, ScopeAgent, "a1", NanoPerUSD, ModeCap)
	charge(t, f.l, Scopes{AgentID: "a1"}, NanoPerUSD)

	// Without grace: ok until the next charge, which re-pauses and says so.
	b, repause, err := f.l.Resume(ctx, ScopeAgent, "a1", 0)
	if err != nil || !repause || b.Status != StatusOK || b.LimitNano != NanoPerUSD {
		t.Fatalf("Resume(0) = %+v, %v, %v", b, repause, err)
	}
	if err := f.l.Preflight(ctx, Scopes{AgentID: "a1"}); err != nil {
		t.Fatalf("resumed budget refused: %v", err)
	}
	if _, err := f.l.Charge(ctx, Charge{RunID: "r", RuntimeID: "native", Scopes: Scopes{AgentID: "a1"}, Kind: KindLocal}); err != nil {
		t.Fatal(err)
	}
	if b := mustGet(t, f.l, ScopeAgent, "a1"); b.Status != StatusOK {
		t.Fatalf("a $0 charge re-paused: %+v", b)
	}
	x := charge(t, f.l, Scopes{AgentID: "a1"}, 1)
	if len(x) != 1 || x[0].Level != 100 || !x[0].Paused {
		t.Fatalf("re-pause crossings %+v", x)
	}
	var p *PausedError
	if err := f.l.Preflight(ctx, Scopes{AgentID: "a1"}); !errors.As(err, &p) {
		t.Fatalf("Preflight after re-pause: %v", err)
	}

	// With grace: the limit becomes spent + grace.
	spent := NanoPerUSD + 1
	b, repause, err = f.l.Resume(ctx, ScopeAgent, "a1", NanoPerUSD/2)
	if err != nil || repause || b.LimitNano != spent+NanoPerUSD/2 || b.Status != StatusOK {
		t.Fatalf("Resume(0.5) = %+v, %v, %v", b, repause, err)
	}
	if x := charge(t, f.l, Scopes{AgentID: "a1"}, NanoPerUSD/2); len(x) != 2 || !x[1].Paused {
		t.Fatalf("grace used up: %+v", x)
	}
	// Small grace leaves it warned.
	if b, _, _ := f.l.Resume(ctx, ScopeAgent, "a1", 1); b.Status != StatusWarned || b.LimitNano != b.SpentNano+1 {
		t.Fatalf("Resume(1 nano) = %+v", b)
	}
	// Under the limit there is nothing to lift.
	before := mustGet(t, f.l, ScopeAgent, "a1")
	if b, repause, err := f.l.Resume(ctx, ScopeAgent, "a1", NanoPerUSD); err != nil || repause || b.LimitNano != before.LimitNano || b.Status != StatusWarned {
		t.Fatalf("Resume under limit = %+v, %v, %v", b, repause, err)
	}
	if _, _, err := f.l.Resume(ctx, ScopeTeam, "nope", 1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Resume of no budget: %v", err)
	}
}

func TestNoFloatDrift(t *testing.T) {
	f := newFixture(t)
	mustSet(t, f.l, ScopeAgent, "a1", 1000*NanoPerUSD, ModeWarn)
	var fsum float64
	for i := range 400 {
		usd := 0.1
		if i%2 == 1 {
			usd = 1e-9
		}
		fsum += usd
		charge(t, f.l, Scopes{AgentID: "a1"}, FromUSD(usd))
	}
	want := 20*NanoPerUSD + 200
	if b := mustGet(t, f.l, ScopeAgent, "a1"); b.SpentNano != want {
		t.Fatalf("spent %d; want %d", b.SpentNano, want)
	}
	if n, _, _ := f.l.RunSpend(ctx, "r1"); n != want {
		t.Fatalf("run spend %d; want %d", n, want)
	}
	if fsum == want.USD() {
		t.Fatal("float64 summed exactly; this test no longer shows the drift Nano avoids")
	}
}

func TestConcurrentChargesAreExact(t *testing.T) {
	f := newFixture(t)
	const workers, each, amount = 16, 25, Nano(1000)
	total := workers * each * amount
	mustSet(t, f.l, ScopeAgent, "a1", total/2, ModeCap)
	mustSet(t, f.l, ScopeMission, "m1", total/2, ModeWarn)
	mustSet(t, f.l, ScopeTeam, "t1", total, ModeCap)
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				x, err := f.l.Charge(ctx, Charge{RunID: fmt.Sprintf("r%d-%d", w, i), RuntimeID: "codex", Scopes: abc, Kind: KindReported, Nano: amount})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, c := range x {
					seen[fmt.Sprintf("%s %d %v", c.Scope, c.Level, c.Paused)]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	want := map[string]int{
		"agent 80 false": 1, "agent 100 true": 1, "mission 80 false": 1, "mission 100 false": 1,
		"team 80 false": 1, "team 100 true": 1,
	}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("crossings %v; want %v", seen, want)
	}
	for _, s := range []Scope{ScopeAgent, ScopeMission, ScopeTeam} {
		if b := mustGet(t, f.l, s, string(s)[:1]+"1"); b.SpentNano != total {
			t.Fatalf("%s spent %d; want %d", s, b.SpentNano, total)
		}
	}
	rows, err := f.l.Spend(ctx, "kind", zero, zero)
	if err != nil || len(rows) != 1 || rows[0].Nano != total || rows[0].Runs != workers*each {
		t.Fatalf("Spend = %+v, %v", rows, err)
	}
}
