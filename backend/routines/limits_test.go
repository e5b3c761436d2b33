package routines

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestARoutinesAgentMustBeInItsTeam (issue 26 §2.5e): a schedule's team
// must hold its agent, said with their names.
func TestARoutinesAgentMustBeInItsTeam(t *testing.T) {
	st, _ := newDB(t)
	ctx := context.Background()
	if err := st.InsertAgent(ctx, "lead", "Lead", "clawboo-mock", 1); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO teams (id, name, leader_agent_id, created_at, updated_at) VALUES ('docs', 'Docs', 'lead', 0, 0)`,
		`INSERT INTO team_members (team_id, agent_id, added_at) VALUES ('docs', 'lead', 0)`,
	} {
		if _, err := st.Writer().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	s := newService(t, st, newFakeClock(t0), newFirer(nil), time.Hour)
	_, err := s.Create(ctx, NewSchedule{AgentID: "bot", TeamID: "docs", Spec: "0 9 * * *", Timezone: "UTC", Template: tmpl})
	if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "Nightly Bot is not in the team Docs") {
		t.Fatalf("an outsider's schedule: %v", err)
	}
	if _, err := s.Create(ctx, NewSchedule{AgentID: "lead", TeamID: "docs", Spec: "0 9 * * *", Timezone: "UTC", Template: tmpl}); err != nil {
		t.Fatalf("the team's own agent: %v", err)
	}
	if _, err := s.Create(ctx, NewSchedule{AgentID: "bot", TeamID: "nope", Spec: "0 9 * * *", Timezone: "UTC", Template: tmpl}); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("an unknown team: %v", err)
	}
}

// TestSchedulesAreCapped: 2,150 were accepted once; now MaxSchedules.
func TestSchedulesAreCapped(t *testing.T) {
	st, _ := newDB(t)
	s := newService(t, st, newFakeClock(t0), newFirer(nil), time.Hour)
	ctx := context.Background()
	for i := 0; i < MaxSchedules; i++ {
		if _, err := s.Create(ctx, NewSchedule{AgentID: "bot", Spec: fmt.Sprintf("%d 9 * * *", i%60), Timezone: "UTC", Template: tmpl}); err != nil {
			t.Fatalf("schedule %d: %v", i, err)
		}
	}
	_, err := s.Create(ctx, NewSchedule{AgentID: "bot", Spec: "0 9 * * *", Timezone: "UTC", Template: tmpl})
	if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), fmt.Sprintf("at most %d routines", MaxSchedules)) {
		t.Fatalf("one too many: %v", err)
	}
}

// TestFiresAreRateLimitedNotDropped: 150 every-minute schedules once made
// 211 tasks in 75 s. The timer begins at most MaxFiresPerMinute fires in a
// minute; the rest stay due and begin when the minute frees up.
func TestFiresAreRateLimitedNotDropped(t *testing.T) {
	st, _ := newDB(t)
	clock := newFakeClock(t0)
	firer := newFirer(nil)
	s := newService(t, st, clock, firer, time.Hour)
	ctx := context.Background()
	const n = MaxFiresPerMinute + 10
	for i := 0; i < n; i++ {
		if _, err := s.Create(ctx, NewSchedule{AgentID: "bot", Spec: "0 10 * * *", Timezone: "UTC", Template: tmpl}); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(time.Hour + time.Minute) // 10:00:30: 10:00 is due for all of them
	s.Tick(ctx, clock.Now())
	waitCount(t, firer, MaxFiresPerMinute)
	s.Tick(ctx, clock.Now())
	if at, ok, _ := s.earliestDue(ctx); !ok || at.Before(clock.Now().Add(59*time.Second)) {
		t.Fatalf("the timer would wake at %v, before the minute frees up", at)
	}
	if got := firer.count(); got != MaxFiresPerMinute {
		t.Fatalf("%d fires in the first minute, want %d", got, MaxFiresPerMinute)
	}
	clock.Advance(time.Minute)
	s.Tick(ctx, clock.Now())
	waitCount(t, firer, n)
}

func waitCount(t *testing.T, f *scriptedFirer, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for f.count() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d fires, want %d", f.count(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
