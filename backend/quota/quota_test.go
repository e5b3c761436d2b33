package quota

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
)

// fakeClock is a fake fakeClock the tests step.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func open(t *testing.T, path string, c *fakeClock) (*Service, func()) {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	closeDB := func() { once.Do(func() { _ = st.Close() }) }
	t.Cleanup(closeDB)
	s, err := New(context.Background(), Options{
		Store: st, Now: c.now, Events: bus.New[Event](0),
		Name: func(r string) string { return map[string]string{"claude-code": "Claude Code"}[r] },
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, closeDB
}

func f(v float64) *float64 { return &v }

func TestLedgerKeepsTheLatestWindowAcrossARestart(t *testing.T) {
	c := &fakeClock{t: time.Date(2026, 12, 2, 12, 0, 0, 0, time.Local)}
	path := filepath.Join(t.TempDir(), "q.db")
	s, closeDB := open(t, path, c)
	ctx := context.Background()
	reset := c.now().Add(2 * time.Hour).UnixMilli()
	if !s.Observe(ctx, "claude-code", executor.QuotaWindow{Window: "five_hour", Status: "allowed", Utilization: f(0.5), ResetsAt: reset}) {
		t.Fatal("a good window was refused")
	}
	c.add(time.Minute)
	s.Observe(ctx, "claude-code", executor.QuotaWindow{Window: "five_hour", Status: "allowed_warning", Utilization: f(0.91), ResetsAt: reset})
	for _, bad := range []executor.QuotaWindow{
		{Window: "Five Hour", Status: "allowed"},
		{Window: "five_hour", Status: "maybe"},
		{Window: strings.Repeat("x", 41), Status: "allowed"},
		{Window: "", Status: "allowed"},
	} {
		if s.Observe(ctx, "claude-code", bad) {
			t.Errorf("malformed window %+v was kept", bad)
		}
	}
	if s.Observe(ctx, "claude code;drop", executor.QuotaWindow{Window: "five_hour", Status: "allowed"}) {
		t.Error("a malformed runtime id was kept")
	}
	closeDB()
	s2, _ := open(t, path, c)
	ws := s2.Windows()
	if len(ws) != 1 || ws[0].Status != "allowed_warning" || *ws[0].Utilization != 0.91 || *ws[0].ResetsAt != reset || ws[0].Reset {
		t.Fatalf("after a restart: %+v", ws)
	}
	c.add(2 * time.Hour)
	if ws := s2.Windows(); !ws[0].Reset {
		t.Fatalf("past its reset the window reads as reset: %+v", ws[0])
	}
}

func TestLedgerIsBounded(t *testing.T) {
	c := &fakeClock{t: time.Now()}
	s, _ := open(t, filepath.Join(t.TempDir(), "q.db"), c)
	for i := 0; i < MaxWindows+30; i++ {
		c.add(time.Millisecond)
		s.Observe(context.Background(), "native", executor.QuotaWindow{
			Window:  "w" + strings.Repeat("x", i%30) + string(rune('a'+i%26)),
			Account: strings.Repeat("acct", 100) + string(rune('a'+i/26)), Status: "allowed",
		})
	}
	ws := s.Windows()
	if len(ws) > MaxWindows {
		t.Fatalf("%d windows kept", len(ws))
	}
	for _, w := range ws {
		if len(w.Account) > maxAccount {
			t.Fatalf("account of %d bytes kept", len(w.Account))
		}
	}
}

func TestGovernorHoldsAtTheThresholdAndQuotaBudgets(t *testing.T) {
	c := &fakeClock{t: time.Date(2026, 12, 2, 12, 0, 0, 0, time.Local)}
	s, _ := open(t, filepath.Join(t.TempDir(), "q.db"), c)
	ctx := context.Background()
	reset := time.Date(2026, 12, 2, 14, 20, 0, 0, time.Local).UnixMilli()
	s.Observe(ctx, "claude-code", executor.QuotaWindow{Window: "five_hour", Status: "allowed_warning", Utilization: f(0.97), ResetsAt: reset})
	s.Observe(ctx, "claude-code", executor.QuotaWindow{Window: "seven_day", Status: "allowed", Utilization: f(0.85), ResetsAt: reset + 86_400_000})
	h, err := s.Check(ctx, Ask{Runtime: "claude-code"})
	if err != nil || h == nil {
		t.Fatalf("97 %% over the default 95 %% holds: %v %v", h, err)
	}
	if h.Reason != "Claude Code five-hour window at 97 %, resets 14:20" || h.Until != reset || h.Window.Window != "five_hour" {
		t.Fatalf("hold %+v", h)
	}
	if h, _ := s.Check(ctx, Ask{Runtime: "codex"}); h != nil {
		t.Fatalf("another runtime is not held: %+v", h)
	}
	if err := s.SetThreshold(ctx, 98); err != nil {
		t.Fatal(err)
	}
	if h, _ := s.Check(ctx, Ask{Runtime: "claude-code", TeamID: "t1"}); h != nil {
		t.Fatalf("under a 98 %% threshold nothing holds: %+v", h)
	}
	for _, bad := range []float64{0, -1, 101} {
		if err := s.SetThreshold(ctx, bad); err == nil {
			t.Errorf("threshold %v accepted", bad)
		}
	}
	// A quota budget: at most 80 % of the weekly window for team t1.
	if _, err := s.SetLimit(ctx, Limit{Scope: "team", ScopeID: "t1", Window: "seven_day", MaxPercent: 80}); err != nil {
		t.Fatal(err)
	}
	h, _ = s.Check(ctx, Ask{Runtime: "claude-code", TeamID: "t1"})
	if h == nil || h.Window.Window != "seven_day" || !strings.Contains(h.Reason, "weekly window at 85 %, over the team's quota budget of 80 %") {
		t.Fatalf("the team's quota budget holds its work: %+v", h)
	}
	if h, _ := s.Check(ctx, Ask{Runtime: "claude-code", TeamID: "t2"}); h != nil {
		t.Fatalf("another team is not held: %+v", h)
	}
	for _, bad := range []Limit{
		{Scope: "mission", ScopeID: "x", Window: "seven_day", MaxPercent: 50},
		{Scope: "team", ScopeID: "t1", Window: "seven day", MaxPercent: 50},
		{Scope: "team", ScopeID: "t1", Window: "seven_day", MaxPercent: 0},
		{Scope: "team", ScopeID: "", Window: "seven_day", MaxPercent: 5},
	} {
		if _, err := s.SetLimit(ctx, bad); err == nil {
			t.Errorf("limit %+v accepted", bad)
		}
	}
	if err := s.DeleteLimit(ctx, "team", "t1", "", "seven_day"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteLimit(ctx, "team", "t1", "", "seven_day"); err != ErrNotFound {
		t.Fatalf("second delete: %v", err)
	}
	// Rejected holds whatever the utilization; past its reset nothing holds.
	s.Observe(ctx, "codex", executor.QuotaWindow{Window: "five_hour", Status: "rejected", ResetsAt: reset})
	if h, _ := s.Check(ctx, Ask{Runtime: "codex"}); h == nil || !strings.Contains(h.Reason, "five-hour window rejected, resets 14:20") {
		t.Fatalf("rejected: %+v", h)
	}
	c.add(2*time.Hour + 21*time.Minute)
	if h, _ := s.Check(ctx, Ask{Runtime: "codex"}); h != nil {
		t.Fatalf("after the reset: %+v", h)
	}
	// No reset time: tried again in 15 minutes.
	s.Observe(ctx, "codex", executor.QuotaWindow{Window: "five_hour", Status: "rejected"})
	if h, _ := s.Check(ctx, Ask{Runtime: "codex"}); h == nil || h.Until != c.now().Add(15*time.Minute).UnixMilli() {
		t.Fatalf("no reset: %+v", h)
	}
}

func TestDeferralsFireOnceAtTheirTime(t *testing.T) {
	c := &fakeClock{t: time.Date(2026, 12, 2, 12, 0, 0, 0, time.Local)}
	path := filepath.Join(t.TempDir(), "q.db")
	s, closeDB := open(t, path, c)
	ctx := context.Background()
	hold := Hold{Runtime: "claude-code", Window: Window{Window: "five_hour"}, Until: c.now().Add(time.Hour).UnixMilli(), Reason: "held"}
	d1, err := s.Defer(ctx, Deferral{Kind: KindTask, TaskID: "task-1", Title: "one"}, hold)
	if err != nil {
		t.Fatal(err)
	}
	// A second deferral of the same task replaces the first.
	later := hold
	later.Until += 60_000
	d1b, err := s.Defer(ctx, Deferral{Kind: KindTask, TaskID: "task-1", Title: "one"}, later)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Defer(ctx, Deferral{Kind: KindTeamTurn, TeamID: "team", AgentID: "lead", Message: "go on"}, hold); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Defer(ctx, Deferral{Kind: KindTask}, hold); err == nil {
		t.Fatal("a task deferral without a task was kept")
	}
	list, _ := s.Deferred(ctx)
	if len(list) != 2 || list[1].ID != d1b.ID || list[1].ID == d1.ID {
		t.Fatalf("deferrals: %+v", list)
	}
	var mu sync.Mutex
	var got []Deferral
	dispatch := func(_ context.Context, d Deferral) error { mu.Lock(); got = append(got, d); mu.Unlock(); return nil }
	if n := s.FireDue(ctx, dispatch); n != 0 {
		t.Fatalf("%d fired before their time", n)
	}
	c.add(time.Hour)
	if n := s.FireDue(ctx, dispatch); n != 1 || got[0].Kind != KindTeamTurn || got[0].Message != "go on" {
		t.Fatalf("at the reset the team turn fires: %d %+v", n, got)
	}
	// A restart keeps what has not fired; it fires once.
	closeDB()
	s2, _ := open(t, path, c)
	c.add(time.Minute)
	if n := s2.FireDue(ctx, dispatch); n != 1 || got[1].TaskID != "task-1" {
		t.Fatalf("after a restart: %d %+v", n, got)
	}
	if n := s2.FireDue(ctx, dispatch); n != 0 {
		t.Fatalf("fired twice: %d", n)
	}
	// Cancel drops a deferral; the timer loop fires one that is due.
	d3, _ := s2.Defer(ctx, Deferral{Kind: KindTask, TaskID: "task-3"}, Hold{Runtime: "codex", Until: c.now().UnixMilli() + 5})
	if err := s2.Cancel(ctx, d3.ID); err != nil {
		t.Fatal(err)
	}
	if err := s2.Cancel(ctx, d3.ID); err != ErrNotFound {
		t.Fatalf("second cancel: %v", err)
	}
	_, _ = s2.Defer(ctx, Deferral{Kind: KindTask, TaskID: "task-4"}, Hold{Runtime: "codex", Until: c.now().UnixMilli()})
	runCtx, stop := context.WithCancel(ctx)
	fired := make(chan Deferral, 1)
	go s2.Run(runCtx, func(_ context.Context, d Deferral) error { fired <- d; return nil })
	select {
	case d := <-fired:
		if d.TaskID != "task-4" {
			t.Fatalf("fired %+v", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the timer did not fire a due deferral")
	}
	stop()
}

func TestTightestWindowForTheTray(t *testing.T) {
	c := &fakeClock{t: time.Date(2026, 12, 2, 12, 0, 0, 0, time.Local)}
	s, _ := open(t, filepath.Join(t.TempDir(), "q.db"), c)
	ctx := context.Background()
	if got := s.Tightest(); got != "" {
		t.Fatalf("no windows: %q", got)
	}
	reset := time.Date(2026, 12, 2, 14, 20, 0, 0, time.Local).UnixMilli()
	s.Observe(ctx, "claude-code", executor.QuotaWindow{Window: "five_hour", Status: "allowed", Utilization: f(0.42), ResetsAt: reset})
	s.Observe(ctx, "claude-code", executor.QuotaWindow{Window: "seven_day", Status: "allowed", Utilization: f(0.61), ResetsAt: reset})
	if got := s.Tightest(); got != "Claude Code weekly window at 61 %, resets 14:20" {
		t.Fatalf("tightest: %q", got)
	}
	c.add(3 * time.Hour)
	if got := s.Tightest(); got != "" {
		t.Fatalf("after every reset: %q", got)
	}
}

// A held task run keeps what it was asked (its message, lines and all)
// and its place in its chain across a restart; a huge message is cut to
// the bound on a character boundary.
func TestDeferralKeepsTheHeldRunsMessageAndChain(t *testing.T) {
	c := &fakeClock{t: time.Date(2026, 12, 2, 12, 0, 0, 0, time.Local)}
	path := filepath.Join(t.TempDir(), "q.db")
	s, closeDB := open(t, path, c)
	ctx := context.Background()
	hold := Hold{Runtime: "codex", Window: Window{Window: "seven_day"}, Until: c.now().Add(time.Hour).UnixMilli(), Reason: "held"}
	msg := "Fix these findings:\n1. main.go:3 crash\n2. «unicode» stays"
	if _, err := s.Defer(ctx, Deferral{Kind: KindTask, TaskID: "task-1", Message: msg, Generation: 2, Fixes: 1, ContinueSession: true}, hold); err != nil {
		t.Fatal(err)
	}
	huge := "a" + strings.Repeat("é", maxMessage) // two bytes each: the bound falls inside one
	if _, err := s.Defer(ctx, Deferral{Kind: KindTeamTurn, TeamID: "team", AgentID: "lead", Message: huge}, hold); err != nil {
		t.Fatal(err)
	}
	closeDB()
	s2, _ := open(t, path, c)
	list, err := s2.Deferred(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("deferrals: %v %+v", err, list)
	}
	var task, turn Deferral
	for _, d := range list {
		if d.Kind == KindTask {
			task = d
		} else {
			turn = d
		}
	}
	if task.Message != msg || task.Generation != 2 || task.Fixes != 1 || !task.ContinueSession {
		t.Fatalf("the task's deferral: %+v", task)
	}
	if len(turn.Message) != maxMessage-1 || !utf8.ValidString(turn.Message) || turn.Generation != 0 || turn.ContinueSession {
		t.Fatalf("the bounded turn: %d bytes, valid %v, %+v", len(turn.Message), utf8.ValidString(turn.Message), turn.Generation)
	}
}
