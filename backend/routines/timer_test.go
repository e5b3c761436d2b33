package routines

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 2, 8, 59, 30, 0, time.UTC)

func TestTimerArmsAtTheNextDueTimeAtMostAMinuteAhead(t *testing.T) {
	st, _ := newDB(t)
	clock := newFakeClock(t0)
	firer := newFirer(nil)
	s := newService(t, st, clock, firer, time.Hour)
	ctx := context.Background()
	// Due at 09:00, 30 s away: the timer sleeps exactly that long.
	sc, err := s.Create(ctx, NewSchedule{AgentID: "bot", Spec: "0 9 * * *", Timezone: "UTC", Template: tmpl})
	if err != nil {
		t.Fatal(err)
	}
	if sc.NextRunAt == nil || *sc.NextRunAt != t0.Add(30*time.Second).UnixMilli() || len(sc.NextRuns) != 5 {
		t.Fatalf("next = %v %v", sc.NextRunAt, sc.NextRuns)
	}
	s.Start()
	if d := <-clock.armed; d != 30*time.Second {
		t.Fatalf("armed for %v, want 30s", d)
	}
	clock.Advance(29 * time.Second)
	if firer.count() != 0 {
		t.Fatal("fired early")
	}
	clock.Advance(time.Second)
	req := waitFire(t, firer)
	if req.Schedule.ID != sc.ID || req.Manual {
		t.Fatalf("fired %+v", req)
	}
	fires := settled(t, s, sc.ID)
	if len(fires) != 1 || fires[0].Outcome != OutcomeSuccess || fires[0].DueAt != t0.Add(30*time.Second).UnixMilli() ||
		fires[0].RunID == nil || *fires[0].RunID != "run-"+fires[0].ID || fires[0].CostUSD != 1.5 || fires[0].EndedAt == nil {
		t.Fatalf("ledger %+v", fires)
	}
	got, _ := s.Get(ctx, sc.ID)
	if got.Status != Idle || got.NextRunAt == nil || *got.NextRunAt != time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC).UnixMilli() {
		t.Fatalf("after the fire: %s next %v", got.Status, got.NextRunAt)
	}
	// Tomorrow is a day away: the timer sleeps a minute, not a day.
	for {
		d := <-clock.armed
		if d == MaxSleep {
			break
		}
		if d > MaxSleep {
			t.Fatalf("armed for %v", d)
		}
	}
}

func TestTwoProcessesOnOneDatabaseFireEachDueTimeOnce(t *testing.T) {
	st, path := newDB(t)
	other := openStore(t, path)
	clock := newFakeClock(t0)
	var total atomic.Int64
	mk := func() *scriptedFirer {
		f := newFirer(func(int) FireResult { total.Add(1); return FireResult{Outcome: OutcomeSuccess} })
		return f
	}
	fa, fb := mk(), mk()
	a := newService(t, st, clock, fa, time.Hour)
	b := newService(t, other, clock, fb, time.Hour)
	ctx := context.Background()
	var ids []string
	for i := 0; i < 20; i++ {
		sc, err := a.Create(ctx, NewSchedule{AgentID: "bot", Spec: "* * * * *", Timezone: "UTC", Template: tmpl})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sc.ID)
	}
	now := t0.Add(30 * time.Second) // 09:00:00: every schedule is due
	start := make(chan struct{})
	done := make(chan struct{}, 2)
	for _, s := range []*Service{a, b} {
		go func() {
			<-start
			s.Tick(ctx, now)
			done <- struct{}{}
		}()
	}
	close(start)
	<-done
	<-done
	for _, id := range ids {
		fires := settled(t, a, id)
		if len(fires) != 1 {
			t.Fatalf("schedule %s fired %d times", id, len(fires))
		}
	}
	if n := total.Load(); n != 20 {
		t.Fatalf("%d fires for 20 due schedules", n)
	}
	t.Logf("process A fired %d, process B %d", fa.count(), fb.count())
}

func TestMissedFiresCoalesceWithinGraceElseOneMissedRow(t *testing.T) {
	st, _ := newDB(t)
	clock := newFakeClock(t0)
	firer := newFirer(nil)
	s := newService(t, st, clock, firer, time.Hour)
	ctx := context.Background()
	every10, _ := s.Create(ctx, NewSchedule{AgentID: "bot", Spec: "*/10 * * * *", Timezone: "UTC", Template: tmpl})
	daily, _ := s.Create(ctx, NewSchedule{AgentID: "bot", Spec: "0 9 * * *", Timezone: "UTC", Template: tmpl})

	// Closed for 40 minutes: the */10 schedule missed four times (09:00,
	// 09:10, 09:20, 09:30), all within the hour's grace: one fire.
	clock.Advance(40 * time.Minute)
	s.Tick(ctx, clock.Now())
	fires := settled(t, s, every10.ID)
	if len(fires) != 1 || fires[0].Outcome != OutcomeSuccess || !strings.Contains(fires[0].Reason, "4 due times") {
		t.Fatalf("coalesced: %+v", fires)
	}
	settled(t, s, daily.ID)
	if firer.count() != 2 {
		t.Fatalf("%d fires, want one per schedule", firer.count())
	}
	got, _ := s.Get(ctx, every10.ID)
	if *got.NextRunAt != time.Date(2026, 12, 2, 9, 40, 0, 0, time.UTC).UnixMilli() {
		t.Fatalf("next %v: re-armed from now, not from the missed time", time.UnixMilli(*got.NextRunAt))
	}

	// Closed for three days: beyond the grace window, one missed row for
	// the daily schedule and no fire.
	clock.Advance(72 * time.Hour)
	before := firer.count()
	s.Tick(ctx, clock.Now())
	fires = settled(t, s, daily.ID)
	if fires[0].Outcome != OutcomeMissed || !strings.Contains(fires[0].Reason, "missed 3 times") || !strings.Contains(fires[0].Reason, "one-hour grace") {
		t.Fatalf("missed: %+v", fires[0])
	}
	if n := firer.count() - before; n != 0 {
		t.Fatalf("%d fires after the grace window", n)
	}
	got, _ = s.Get(ctx, daily.ID)
	if got.Status != Idle || got.LastOutcome == nil || *got.LastOutcome != OutcomeMissed || time.UnixMilli(*got.NextRunAt).Before(clock.Now()) {
		t.Fatalf("after missing: %+v", got)
	}
}

func TestThreeFailuresInARowMoveToErrorUntilResumed(t *testing.T) {
	st, _ := newDB(t)
	clock := newFakeClock(t0)
	firer := newFirer(func(int) FireResult { return FireResult{Outcome: OutcomeFailed, Reason: "verify failed"} })
	s := newService(t, st, clock, firer, time.Hour)
	ctx := context.Background()
	sc, _ := s.Create(ctx, NewSchedule{AgentID: "bot", Spec: "* * * * *", Timezone: "UTC", Template: tmpl})
	for i := 1; i <= 3; i++ {
		clock.Advance(time.Minute)
		s.Tick(ctx, clock.Now())
		settled(t, s, sc.ID)
		got, _ := s.Get(ctx, sc.ID)
		if got.Failures != i {
			t.Fatalf("after %d failures: %+v", i, got)
		}
		if i < 3 && (got.Status != Idle || got.NextRunAt == nil) {
			t.Fatalf("a failed fire must leave it armed: %+v", got)
		}
		if i == 3 && (got.Status != Error || got.NextRunAt != nil || got.LastError == nil || !strings.Contains(*got.LastError, "verify failed")) {
			t.Fatalf("third failure: %+v", got)
		}
	}
	clock.Advance(10 * time.Minute)
	s.Tick(ctx, clock.Now())
	if firer.count() != 3 {
		t.Fatalf("an error schedule fired: %d", firer.count())
	}
	if _, err := s.Resume(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	got, err := s.Resume(ctx, sc.ID)
	if err != nil || got.Status != Idle || got.Failures != 0 || got.NextRunAt == nil || got.LastError != nil {
		t.Fatalf("resume: %+v %v", got, err)
	}
}

func TestSkippedFireIsNotAFailure(t *testing.T) {
	st, _ := newDB(t)
	clock := newFakeClock(t0)
	firer := newFirer(func(int) FireResult {
		return FireResult{Outcome: OutcomeSkipped, Reason: "skipped: the agent budget for bot is paused"}
	})
	s := newService(t, st, clock, firer, time.Hour)
	ctx := context.Background()
	sc, _ := s.Create(ctx, NewSchedule{AgentID: "bot", Spec: "* * * * *", Timezone: "UTC", Template: tmpl})
	for i := 0; i < 4; i++ {
		clock.Advance(time.Minute)
		s.Tick(ctx, clock.Now())
		settled(t, s, sc.ID)
	}
	got, _ := s.Get(ctx, sc.ID)
	if got.Status != Idle || got.Failures != 0 || got.NextRunAt == nil || *got.LastOutcome != OutcomeSkipped {
		t.Fatalf("skips: %+v", got)
	}
	fires, _, _ := s.Fires(ctx, sc.ID, "", 10)
	if len(fires) != 4 || !strings.Contains(fires[0].Reason, "budget") {
		t.Fatalf("ledger %+v", fires)
	}
}
