package quota

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

// A 429 with no retry-after: a rejected "requests" window with no reset.
var noReset = executor.QuotaWindow{Window: "requests", Account: "openai", Status: "rejected"}

// TestARejectedWindowWithNoResetTimeStopsHoldingAfterFifteenMinutes (issue
// 26 §2.3): it used to hold its runtime forever, across restarts.
func TestARejectedWindowWithNoResetTimeStopsHoldingAfterFifteenMinutes(t *testing.T) {
	c := &fakeClock{t: time.Date(2026, 12, 3, 9, 0, 0, 0, time.Local)}
	path := filepath.Join(t.TempDir(), "q.db")
	s, closeDB := open(t, path, c)
	ctx := context.Background()
	s.Observe(ctx, "codex", noReset)
	h, err := s.Check(ctx, Ask{Runtime: "codex"})
	if err != nil || h == nil {
		t.Fatalf("a fresh rejection does not hold: %v %v", h, err)
	}
	if want := c.now().Add(NoResetHold).UnixMilli(); h.Until != want {
		t.Fatalf("held until %d, want %d (the window's own end)", h.Until, want)
	}
	ws := s.Windows()
	if len(ws) != 1 || ws[0].ClearsAt == nil || *ws[0].ClearsAt != h.Until || ws[0].ResetsAt != nil {
		t.Fatalf("windows %+v", ws)
	}
	// A restart keeps it, and its end.
	closeDB()
	s, _ = open(t, path, c)
	c.add(NoResetHold - time.Second)
	if h, _ := s.Check(ctx, Ask{Runtime: "codex"}); h == nil {
		t.Fatal("it stopped holding before its time")
	}
	c.add(time.Second)
	if h, _ := s.Check(ctx, Ask{Runtime: "codex"}); h != nil {
		t.Fatalf("still held after %s: %+v", NoResetHold, h)
	}
}

// TestASuccessfulCallClearsAGuessedHold: a later call on the account that
// went through ends the hold at once; a rejection whose provider named its
// reset is not touched.
func TestASuccessfulCallClearsAGuessedHold(t *testing.T) {
	c := &fakeClock{t: time.Now()}
	s, _ := open(t, filepath.Join(t.TempDir(), "q.db"), c)
	ctx := context.Background()
	s.Observe(ctx, "codex", noReset)
	named := executor.QuotaWindow{Window: "five_hour", Account: "openai", Status: "rejected", ResetsAt: c.now().Add(2 * time.Hour).UnixMilli()}
	s.Observe(ctx, "codex", named)
	s.Observe(ctx, "claude-code", noReset)
	// An answer on another window of the same account.
	s.Observe(ctx, "codex", executor.QuotaWindow{Window: "tokens", Account: "openai", Status: "allowed"})
	got := map[string]bool{}
	for _, w := range s.Windows() {
		got[w.Runtime+"/"+w.Window] = true
	}
	if got["codex/requests"] || !got["codex/five_hour"] || !got["claude-code/requests"] {
		t.Fatalf("after a success on codex: %v", got)
	}
	// A run that ended well clears its runtime's guessed holds.
	s.Succeeded(ctx, "claude-code", "")
	for _, w := range s.Windows() {
		if w.Runtime == "claude-code" {
			t.Fatalf("claude-code still holds %+v", w)
		}
	}
}

// TestAPersonClearsAWindowAndHeldWorkIsTriedAtOnce.
func TestAPersonClearsAWindowAndHeldWorkIsTriedAtOnce(t *testing.T) {
	c := &fakeClock{t: time.Now()}
	s, _ := open(t, filepath.Join(t.TempDir(), "q.db"), c)
	ctx := context.Background()
	s.Observe(ctx, "codex", executor.QuotaWindow{Window: "five_hour", Status: "rejected", Utilization: f(1)})
	h, _ := s.Check(ctx, Ask{Runtime: "codex"})
	if h == nil {
		t.Fatal("not held")
	}
	if _, err := s.Defer(ctx, Deferral{Kind: KindTask, TaskID: "task-1", Title: "one"}, *h); err != nil {
		t.Fatal(err)
	}
	var fired []Deferral
	dispatch := func(_ context.Context, d Deferral) error { fired = append(fired, d); return nil }
	if n := s.FireDue(ctx, dispatch); n != 0 {
		t.Fatal("fired early")
	}
	if err := s.Clear(ctx, "codex", "", "nope"); err != ErrNoWindow {
		t.Fatalf("clearing an unknown window: %v", err)
	}
	if err := s.Clear(ctx, "codex", "", "five_hour"); err != nil {
		t.Fatal(err)
	}
	if h, _ := s.Check(ctx, Ask{Runtime: "codex"}); h != nil || len(s.Windows()) != 0 {
		t.Fatalf("still held: %+v", h)
	}
	if n := s.FireDue(ctx, dispatch); n != 1 || fired[0].TaskID != "task-1" {
		t.Fatalf("the held task was not tried again at once: %d %+v", n, fired)
	}
}

// TestOneRuntimeCannotEvictAnothersWindows (issue 26 §2.5a): a flood from
// one runtime stays within its own share and never pushes out a rejected
// window that still holds.
func TestOneRuntimeCannotEvictAnothersWindows(t *testing.T) {
	c := &fakeClock{t: time.Now()}
	s, _ := open(t, filepath.Join(t.TempDir(), "q.db"), c)
	ctx := context.Background()
	s.Observe(ctx, "claude-code", executor.QuotaWindow{Window: "five_hour", Status: "allowed", Utilization: f(0.2)})
	s.Observe(ctx, "claude-code", executor.QuotaWindow{Window: "seven_day", Status: "rejected", ResetsAt: c.now().Add(time.Hour).UnixMilli()})
	s.Observe(ctx, "codex", executor.QuotaWindow{Window: "five_hour", Status: "rejected", ResetsAt: c.now().Add(time.Hour).UnixMilli()})
	for i := 0; i < 300; i++ {
		c.add(time.Millisecond)
		s.Observe(ctx, "codex", executor.QuotaWindow{Window: fmt.Sprintf("w%d", i), Status: "allowed"})
	}
	count := map[string]int{}
	keys := map[string]bool{}
	for _, w := range s.Windows() {
		count[w.Runtime]++
		keys[w.Runtime+"/"+w.Window] = true
	}
	if count["codex"] > MaxWindowsPerRuntime || count["claude-code"] != 2 || !keys["codex/five_hour"] || !keys["codex/w299"] {
		t.Fatalf("kept %v", count)
	}
}
