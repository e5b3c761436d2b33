package budget

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

// clock is a settable test clock; Unix milliseconds.
type clock struct{ ms atomic.Int64 }

func (c *clock) now() time.Time      { return time.UnixMilli(c.ms.Load()) }
func (c *clock) set(t time.Time)     { c.ms.Store(t.UnixMilli()) }
func (c *clock) add(d time.Duration) { c.ms.Add(d.Milliseconds()) }

type fixture struct {
	l      *Ledger
	st     *store.Store
	events *bus.Broker[Event]
	clock  *clock
	logs   *testkit.SyncBuffer
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// The agents and the mission the tests budget: a new budget must name
	// something that exists.
	for _, id := range []string{"a1", "a2", "other", "x"} {
		if err := st.InsertAgent(context.Background(), id, id, "clawboo-mock", 1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Writer().Exec(`INSERT INTO tasks (id, title, root_id, created_at, updated_at) VALUES ('m1', 'mission', 'm1', 1, 1)`); err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: st, events: bus.New[Event](0), clock: &clock{}, logs: &testkit.SyncBuffer{}}
	t.Cleanup(f.events.Close)
	f.clock.set(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	f.l = New(Options{Store: st, Events: f.events, Log: slog.New(slog.NewTextHandler(f.logs, nil)), Now: f.clock.now})
	return f
}

var ctx = context.Background()

var abc = Scopes{AgentID: "a1", MissionID: "m1", TeamID: "t1"}

func charge(t testing.TB, l *Ledger, s Scopes, n Nano) []Crossing {
	t.Helper()
	x, err := l.Charge(ctx, Charge{RunID: "r1", RuntimeID: "codex", Model: "gpt-5", Scopes: s, Kind: KindTokenEstimate, Nano: n})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func mustSet(t testing.TB, l *Ledger, scope Scope, id string, limit Nano, mode string) Budget {
	t.Helper()
	b, err := l.SetBudget(ctx, scope, id, limit, mode)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustGet(t testing.TB, l *Ledger, scope Scope, id string) Budget {
	t.Helper()
	b, err := l.Budget(ctx, scope, id)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestChargeWritesSpendRow(t *testing.T) {
	f := newFixture(t)
	c := Charge{
		RunID: "r1", RuntimeID: "claude-code", Model: "claude-sonnet-4-5", Scopes: Scopes{AgentID: "a1", TeamID: "t1"},
		Kind: KindReported, Nano: FromUSD(0.0123), InputTokens: 100, OutputTokens: 20,
	}
	if x, err := f.l.Charge(ctx, c); err != nil || len(x) != 0 {
		t.Fatalf("Charge = %v, %v", x, err)
	}
	if _, err := f.l.Charge(ctx, Charge{RunID: "r2", RuntimeID: "hermes", Kind: KindCharEstimate, Nano: 5}); err != nil {
		t.Fatal(err)
	}
	rows, err := f.st.Reader().Query(`SELECT run_id, at, nano, kind, runtime_id, COALESCE(agent_id, '-'), COALESCE(team_id, '-'),
		COALESCE(mission_id, '-'), COALESCE(model, '-'), input_tokens, output_tokens FROM spend ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var run, kind, rt, agent, team, mission, model string
		var at, nano, in, out int64
		if err := rows.Scan(&run, &at, &nano, &kind, &rt, &agent, &team, &mission, &model, &in, &out); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %d %d %s %s %s %s %s %s %d %d", run, at, nano, kind, rt, agent, team, mission, model, in, out))
	}
	at := f.clock.now().UnixMilli()
	want := []string{
		fmt.Sprintf("r1 %d 12300000 reported claude-code a1 t1 - claude-sonnet-4-5 100 20", at),
		fmt.Sprintf("r2 %d 5 char-estimate hermes - - - - 0 0", at),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("spend rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestChargeValidation(t *testing.T) {
	f := newFixture(t)
	ok := Charge{RunID: "r", RuntimeID: "codex", Kind: KindReported, Nano: 1}
	for name, mutate := range map[string]func(*Charge){
		"no run":          func(c *Charge) { c.RunID = "" },
		"no runtime":      func(c *Charge) { c.RuntimeID = "" },
		"unknown kind":    func(c *Charge) { c.Kind = "guess" },
		"negative amount": func(c *Charge) { c.Nano = -1 },
		"paid local":      func(c *Charge) { c.Kind = KindLocal },
		"negative tokens": func(c *Charge) { c.InputTokens = -1 },
	} {
		c := ok
		mutate(&c)
		if _, err := f.l.Charge(ctx, c); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
	if _, err := f.l.Charge(ctx, ok); err != nil {
		t.Fatal(err)
	}
}

func TestBudgetsOfAllScopesAccumulate(t *testing.T) {
	f := newFixture(t)
	for _, s := range []Scope{ScopeAgent, ScopeMission, ScopeTeam} {
		mustSet(t, f.l, s, string(s)[:1]+"1", 100*NanoPerUSD, ModeWarn)
	}
	mustSet(t, f.l, ScopeAgent, "other", NanoPerUSD, ModeCap)
	charge(t, f.l, abc, 7)
	charge(t, f.l, abc, 11)
	charge(t, f.l, Scopes{AgentID: "a1"}, 100)
	charge(t, f.l, Scopes{TeamID: "t1", MissionID: "m1"}, 1000)
	for _, tc := range []struct {
		scope Scope
		id    string
		want  Nano
	}{{ScopeAgent, "a1", 118}, {ScopeMission, "m1", 1018}, {ScopeTeam, "t1", 1018}, {ScopeAgent, "other", 0}} {
		if b := mustGet(t, f.l, tc.scope, tc.id); b.SpentNano != tc.want || b.SpentUSD != tc.want.USD() {
			t.Errorf("%s %s spent %d (%v); want %d", tc.scope, tc.id, b.SpentNano, b.SpentUSD, tc.want)
		}
	}
	// A zero charge (a local model) is recorded but moves nothing.
	if _, err := f.l.Charge(ctx, Charge{RunID: "r", RuntimeID: "native", Scopes: abc, Kind: KindLocal}); err != nil {
		t.Fatal(err)
	}
	if b := mustGet(t, f.l, ScopeAgent, "a1"); b.SpentNano != 118 {
		t.Fatalf("spent %d after a local charge", b.SpentNano)
	}
}

func TestCrossingsAreReportedOnce(t *testing.T) {
	f := newFixture(t)
	mustSet(t, f.l, ScopeAgent, "a1", NanoPerUSD, ModeWarn)
	steps := []struct {
		usd    float64
		levels []int
		status string
	}{
		{0.5, nil, StatusOK},
		{0.299999999, nil, StatusOK}, // one nano short of 80 %
		{0.000000001, []int{80}, StatusWarned},
		{0.1, nil, StatusWarned},
		{0.1, []int{100}, StatusExceeded},
		{5, nil, StatusExceeded}, // warn mode spends on and never pauses
	}
	for i, s := range steps {
		x := charge(t, f.l, Scopes{AgentID: "a1"}, FromUSD(s.usd))
		var levels []int
		for _, c := range x {
			if c.Scope != ScopeAgent || c.ScopeID != "a1" || c.Mode != ModeWarn || c.Paused {
				t.Fatalf("step %d: crossing %+v", i, c)
			}
			levels = append(levels, c.Level)
		}
		if fmt.Sprint(levels) != fmt.Sprint(s.levels) {
			t.Fatalf("step %d: levels %v; want %v", i, levels, s.levels)
		}
		if b := mustGet(t, f.l, ScopeAgent, "a1"); b.Status != s.status {
			t.Fatalf("step %d: status %s; want %s", i, b.Status, s.status)
		}
	}
	if err := f.l.Preflight(ctx, Scopes{AgentID: "a1"}); err != nil {
		t.Fatalf("warn mode refused a dispatch: %v", err)
	}
	// One charge that jumps past both thresholds reports both.
	mustSet(t, f.l, ScopeTeam, "t9", 10, ModeCap)
	x := charge(t, f.l, Scopes{TeamID: "t9"}, 25)
	if len(x) != 2 || x[0].Level != 80 || x[1].Level != 100 || !x[0].Paused || !x[1].Paused {
		t.Fatalf("crossings %+v", x)
	}
}

func TestChargeUnreported(t *testing.T) {
	f := newFixture(t)
	c := Charge{RunID: "r-hermes", RuntimeID: "hermes", Model: "mystery", Scopes: Scopes{AgentID: "a1"}}
	if _, err := f.l.ChargeUnreported(ctx, c, 4000, 401, false); err != nil {
		t.Fatal(err)
	}
	n, kind, err := f.l.RunSpend(ctx, "r-hermes")
	if want := TokenCost("mystery", 1000, 101); err != nil || n != want || kind != KindCharEstimate {
		t.Fatalf("RunSpend = %d, %s, %v; want %d char-estimate", n, kind, err, want)
	}
	if !strings.Contains(f.logs.String(), "spend_unreported") || !strings.Contains(f.logs.String(), "run_id=r-hermes") {
		t.Fatalf("no spend_unreported warning in %q", f.logs.String())
	}
	f.logs = &testkit.SyncBuffer{}
	f.l.log = slog.New(slog.NewTextHandler(f.logs, nil))
	c.RunID = "r-aborted"
	if _, err := f.l.ChargeUnreported(ctx, c, 10, 10, true); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(f.logs.String(), "spend_unreported") {
		t.Fatalf("an aborted run warned: %q", f.logs.String())
	}
	c.RunID, c.Model = "r-local", "ollama/llama3"
	if _, err := f.l.ChargeUnreported(ctx, c, 1e6, 1e6, true); err != nil {
		t.Fatal(err)
	}
	if n, kind, _ := f.l.RunSpend(ctx, "r-local"); n != 0 || kind != KindLocal {
		t.Fatalf("local unreported run = %d, %s", n, kind)
	}
}

func TestEventsArePublished(t *testing.T) {
	f := newFixture(t)
	sub := f.events.Subscribe(16)
	defer sub.Close()
	mustSet(t, f.l, ScopeAgent, "a1", 10, ModeCap)
	charge(t, f.l, Scopes{AgentID: "a1"}, 8)
	charge(t, f.l, Scopes{AgentID: "a1"}, 1)
	if err := f.l.DeleteBudget(ctx, ScopeAgent, "a1"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 4 {
		e := <-sub.C()
		s := fmt.Sprintf("%s %s/%s %s %d", e.Kind, e.Budget.Scope, e.Budget.ScopeID, e.Budget.Status, e.Budget.SpentNano)
		if e.Crossing != nil {
			s += fmt.Sprintf(" crossed %d", e.Crossing.Level)
		}
		got = append(got, s)
	}
	want := "budget agent/a1 ok 0|budget agent/a1 warned 8 crossed 80|budget agent/a1 warned 9|budget-deleted agent/a1  0"
	if strings.Join(got, "|") != want {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "|"), want)
	}
}

// The spend_unreported warning is logged once per runtime and model a
// window: the run that opens it is named, the next one counts the runs in
// between, and another runtime or model has its own window.
func TestChargeUnreportedWarnsOncePerWindow(t *testing.T) {
	f := newFixture(t)
	c := Charge{RuntimeID: "hermes", Model: "mystery", Scopes: Scopes{AgentID: "a1"}}
	for _, id := range []string{"r1", "r2", "r3"} {
		c.RunID = id
		if _, err := f.l.ChargeUnreported(ctx, c, 40, 40, false); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(f.logs.String(), "msg=spend_unreported"); n != 1 || !strings.Contains(f.logs.String(), "run_id=r1") {
		t.Fatalf("%d warnings for three runs in one window: %q", n, f.logs.String())
	}
	c.RunID, c.RuntimeID = "r-codex", "codex"
	if _, err := f.l.ChargeUnreported(ctx, c, 40, 40, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.logs.String(), "run_id=r-codex") {
		t.Fatalf("another runtime shares the window: %q", f.logs.String())
	}
	f.clock.add(UnreportedEvery)
	c.RunID, c.RuntimeID = "r4", "hermes"
	if _, err := f.l.ChargeUnreported(ctx, c, 40, 40, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.logs.String(), "run_id=r4") || !strings.Contains(f.logs.String(), "runs_not_logged=2") {
		t.Fatalf("the next window's warning: %q", f.logs.String())
	}
	for _, id := range []string{"r1", "r2", "r3", "r4"} {
		if n, kind, err := f.l.RunSpend(ctx, id); err != nil || n <= 0 || kind != KindCharEstimate {
			t.Fatalf("%s: every run is still charged: %v %s %v", id, n, kind, err)
		}
	}
}
