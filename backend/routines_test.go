package backend

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/routines"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/internal/testkit"
)

// routineRig is a backend with the mock runtime on and one mock agent,
// driven through its API handler.
type routineRig struct {
	b     *Backend
	h     http.Handler
	agent agents.Agent
	logs  *testkit.SyncBuffer
}

func newRoutineRig(t *testing.T, env map[string]string) *routineRig {
	t.Helper()
	home := t.TempDir()
	env["HOME"], env["PATH"], env["CLAWBOO_ENABLE_MOCK_RUNTIME"] = home, os.Getenv("PATH"), "1"
	logs := &testkit.SyncBuffer{}
	b := e2eBackendLogged(t, home, env, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	name, rt := "Nightly", "clawboo-mock"
	ag, err := b.Agents.Create(context.Background(), agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	return &routineRig{b: b, h: authed(b), agent: ag, logs: logs}
}

// create makes a schedule through the API (due at 02:00, so only run now
// fires it).
func (rg *routineRig) create(t *testing.T, agentID string, tmpl map[string]any) routines.Schedule {
	t.Helper()
	var out struct {
		Schedule routines.Schedule
		Error    string
	}
	if code := e2eDo(t, rg.h, "POST", "/api/schedules", map[string]any{"agentId": agentID, "spec": "0 2 * * *", "template": tmpl}, &out); code != http.StatusCreated {
		t.Fatalf("create schedule: %d %s", code, out.Error)
	}
	return out.Schedule
}

func (rg *routineRig) get(t *testing.T, id string) routines.Schedule {
	t.Helper()
	var out struct{ Schedule routines.Schedule }
	if code := e2eDo(t, rg.h, "GET", "/api/schedules/"+id, nil, &out); code != http.StatusOK {
		t.Fatalf("get schedule: %d", code)
	}
	return out.Schedule
}

// runNow fires the schedule through the API and waits for the fire to end.
func (rg *routineRig) runNow(t *testing.T, id string, within time.Duration) routines.Fire {
	t.Helper()
	var started struct {
		Fire  routines.Fire
		Error string
	}
	if code := e2eDo(t, rg.h, "POST", "/api/schedules/"+id+"/run", nil, &started); code != http.StatusAccepted {
		t.Fatalf("run now: %d %s", code, started.Error)
	}
	deadline := time.Now().Add(within)
	for {
		var page struct{ Fires []routines.Fire }
		e2eDo(t, rg.h, "GET", "/api/schedules/"+id+"/fires?limit=5", nil, &page)
		for _, f := range page.Fires {
			if f.ID == started.Fire.ID && f.Outcome != routines.OutcomeRunning {
				return f
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("fire %s still running after %s: %+v", started.Fire.ID, within, page.Fires)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (rg *routineRig) tasks(t *testing.T) []board.Task {
	t.Helper()
	list, err := rg.b.Board.List(context.Background(), board.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func (rg *routineRig) run(t *testing.T, id string) store.Run {
	t.Helper()
	r, err := rg.b.Store.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A routine through the whole backend: run now makes a task from the
// template, the task runner runs it on the mock agent, the fire ends
// success with its run and task; three failed fires in a row disarm it.
func TestRoutineMockEndToEnd(t *testing.T) {
	rg := newRoutineRig(t, map[string]string{})
	// The mock reads a directive at the start of a line; the task's
	// message opens "Task <id>: <title>", so the directive goes in the
	// description, which has lines of its own.
	sc := rg.create(t, rg.agent.ID, map[string]any{"title": "Nightly report", "description": "!ok nightly done", "kind": "research"})
	if sc.TeamID != nil || sc.Status != routines.Idle || sc.NextRunAt == nil {
		t.Fatalf("created %+v", sc)
	}
	f := rg.runNow(t, sc.ID, time.Minute)
	if f.Outcome != routines.OutcomeSuccess || f.RunID == nil || f.TaskID == nil || !f.Manual || f.CostUSD <= 0 ||
		f.Reason != "task done" {
		t.Fatalf("fire %+v", f)
	}
	task, err := rg.b.Board.Get(context.Background(), *f.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if task.Title != "Nightly report" || task.Kind != board.Research || task.Status != board.Done ||
		task.AssigneeAgentID == nil || *task.AssigneeAgentID != rg.agent.ID {
		t.Fatalf("task %+v", task)
	}
	run := rg.run(t, *f.RunID)
	if run.Status != store.RunSucceeded || run.AgentID == nil || *run.AgentID != rg.agent.ID || run.TaskID == nil ||
		*run.TaskID != task.ID || run.Summary != "nightly done" {
		t.Fatalf("run %+v", run)
	}
	if !strings.Contains(rg.logs.String(), "run="+run.ID+" reason=routine") {
		t.Fatalf("the run was not started for the routine:\n%s", rg.logs.String())
	}
	after := rg.get(t, sc.ID)
	if after.Status != routines.Idle || after.LastOutcome == nil || *after.LastOutcome != routines.OutcomeSuccess || after.Failures != 0 ||
		after.LastRunAt == nil || after.NextRunAt == nil || *after.NextRunAt != *sc.NextRunAt {
		t.Fatalf("after success %+v", after)
	}

	// A template whose run fails: armed after one and two, error after three.
	bad := rg.create(t, rg.agent.ID, map[string]any{"title": "Failing job", "description": "!error boom", "kind": "research"})
	for i := 1; i <= routines.FailuresToError; i++ {
		f := rg.runNow(t, bad.ID, time.Minute)
		if f.Outcome != routines.OutcomeFailed || f.TaskID == nil || f.RunID == nil || !strings.Contains(f.Reason, "run failed") {
			t.Fatalf("failing fire %d: %+v", i, f)
		}
		got := rg.get(t, bad.ID)
		want := routines.Idle
		if i == routines.FailuresToError {
			want = routines.Error
		}
		if got.Status != want || got.Failures != i || got.LastError == nil || !strings.Contains(*got.LastError, "run failed") {
			t.Fatalf("after failure %d: %+v (last error %v)", i, got, deref(got.LastError))
		}
		if i < routines.FailuresToError && got.NextRunAt == nil {
			t.Fatalf("disarmed after %d failures", i)
		}
	}
	if got := rg.get(t, bad.ID); got.NextRunAt != nil || len(got.NextRuns) != 0 || !strings.Contains(*got.LastError, "boom") {
		t.Fatalf("in error: %+v (last error %q)", got, deref(got.LastError))
	}
	// Resume clears the failures and re-arms.
	var resumed struct{ Schedule routines.Schedule }
	if code := e2eDo(t, rg.h, "PATCH", "/api/schedules/"+bad.ID, map[string]any{"action": "resume"}, &resumed); code != http.StatusOK ||
		resumed.Schedule.Status != routines.Idle || resumed.Schedule.Failures != 0 || resumed.Schedule.NextRunAt == nil || resumed.Schedule.LastError != nil {
		t.Fatalf("resume: %d %+v", code, resumed.Schedule)
	}
}

// A paused cap budget on the agent skips the fire: no task, no failure.
func TestRoutineBudgetPausedSkips(t *testing.T) {
	rg := newRoutineRig(t, map[string]string{})
	ctx := context.Background()
	sc := rg.create(t, rg.agent.ID, map[string]any{"title": "Nightly report", "description": "!ok fine", "kind": "research"})
	// The agent has spent (a chat turn); a cap under the spend pauses it at once.
	h, err := rg.b.Supervisor.Start(ctx, supervisor.StartParams{RuntimeID: executor.Mock, AgentID: rg.agent.ID, Message: "!ok hello"})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if r, err := h.Wait(wctx); err != nil || r.Status != store.RunSucceeded {
		t.Fatalf("the agent's chat turn: %+v %v", r, err)
	}
	if bg, err := rg.b.Budget.SetBudget(ctx, budget.ScopeAgent, rg.agent.ID, 1, budget.ModeCap); err != nil || bg.Status != budget.StatusPaused {
		t.Fatalf("budget: %+v %v", bg, err)
	}
	before := len(rg.tasks(t))
	f := rg.runNow(t, sc.ID, 30*time.Second)
	if f.Outcome != routines.OutcomeSkipped || f.TaskID != nil || f.RunID != nil ||
		!strings.Contains(f.Reason, "skipped: the agent budget for "+rg.agent.ID+" is paused") {
		t.Fatalf("skipped fire %+v", f)
	}
	if n := len(rg.tasks(t)); n != before {
		t.Fatalf("a skipped fire made a task: %d tasks, %d before", n, before)
	}
	got := rg.get(t, sc.ID)
	if got.Failures != 0 || got.Status != routines.Idle || got.LastOutcome == nil || *got.LastOutcome != routines.OutcomeSkipped ||
		got.LastError != nil || got.NextRunAt == nil {
		t.Fatalf("after the skip %+v", got)
	}
}

// maxUsd becomes a cap budget on the fire's task (its mission).
func TestRoutineMaxUSDCapsTheTask(t *testing.T) {
	rg := newRoutineRig(t, map[string]string{})
	sc := rg.create(t, rg.agent.ID, map[string]any{"title": "Capped", "description": "!ok capped", "kind": "research", "maxUsd": 0.5})
	if sc.Template.MaxUSD != 0.5 {
		t.Fatalf("template %+v", sc.Template)
	}
	f := rg.runNow(t, sc.ID, time.Minute)
	if f.Outcome != routines.OutcomeSuccess || f.TaskID == nil {
		t.Fatalf("fire %+v", f)
	}
	bg, err := rg.b.Budget.Budget(context.Background(), budget.ScopeMission, *f.TaskID)
	if err != nil || bg.Mode != budget.ModeCap || bg.LimitNano != budget.FromUSD(0.5) || bg.LimitUSD != 0.5 || bg.SpentNano <= 0 {
		t.Fatalf("mission budget of %s: %+v %v", *f.TaskID, bg, err)
	}
	// Spent on it is the fire's cost.
	if d := bg.SpentUSD - f.CostUSD; d > 1e-9 || d < -1e-9 {
		t.Fatalf("budget spent %v, fire cost %v", bg.SpentUSD, f.CostUSD)
	}
	// Without maxUsd no mission budget is made.
	plain := rg.create(t, rg.agent.ID, map[string]any{"title": "Uncapped", "description": "!ok", "kind": "research"})
	f = rg.runNow(t, plain.ID, time.Minute)
	if _, err := rg.b.Budget.Budget(context.Background(), budget.ScopeMission, *f.TaskID); err == nil {
		t.Fatal("a mission budget without maxUsd")
	}
}

// A routine of an agent in one team is that team's; the team's paused cap
// budget skips its fire as the agent's does.
func TestRoutineTeamBudgetPausedSkips(t *testing.T) {
	rg := newRoutineRig(t, map[string]string{})
	ctx := context.Background()
	team := mockTeam(t, rg.b, 1)
	lead := *team.LeaderAgentID
	sc := rg.create(t, lead, map[string]any{"title": "Team digest", "description": "!ok digest", "kind": "research"})
	if sc.TeamID == nil || *sc.TeamID != team.ID {
		t.Fatalf("the schedule's team is %v, want %s", deref(sc.TeamID), team.ID)
	}
	h, err := rg.b.Supervisor.Start(ctx, supervisor.StartParams{RuntimeID: executor.Mock, AgentID: lead, TeamID: team.ID, Message: "!ok hello"})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if r, err := h.Wait(wctx); err != nil || r.Status != store.RunSucceeded {
		t.Fatalf("the team's turn: %+v %v", r, err)
	}
	if bg, err := rg.b.Budget.SetBudget(ctx, budget.ScopeTeam, team.ID, 1, budget.ModeCap); err != nil || bg.Status != budget.StatusPaused {
		t.Fatalf("budget: %+v %v", bg, err)
	}
	before := len(rg.tasks(t))
	f := rg.runNow(t, sc.ID, 30*time.Second)
	if f.Outcome != routines.OutcomeSkipped || f.TaskID != nil || !strings.Contains(f.Reason, "the team budget for "+team.ID+" is paused") {
		t.Fatalf("skipped fire %+v", f)
	}
	if n := len(rg.tasks(t)); n != before {
		t.Fatalf("a skipped fire made a task: %d tasks, %d before", n, before)
	}
	if got := rg.get(t, sc.ID); got.Failures != 0 || got.Status != routines.Idle {
		t.Fatalf("after the skip %+v", got)
	}
}

// Clawboo closing during a fire records it interrupted (not a failure);
// the next start finds the schedule armed and its history intact.
func TestRoutineCloseDuringAFireIsInterrupted(t *testing.T) {
	env := map[string]string{}
	rg := newRoutineRig(t, env)
	home := rg.b.Config.Home
	sc := rg.create(t, rg.agent.ID, map[string]any{"title": "Slow", "description": "!silent 60000", "kind": "research"})
	var started struct{ Fire routines.Fire }
	if code := e2eDo(t, rg.h, "POST", "/api/schedules/"+sc.ID+"/run", nil, &started); code != http.StatusAccepted {
		t.Fatalf("run now %d", code)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		f, err := rg.b.Routines.Fire(context.Background(), started.Fire.ID)
		if err == nil && f.RunID != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fire never started its run: %+v %v", f, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	closeOnce(t, rg.b)

	b := e2eBackendLogged(t, home, env, nil)
	f, err := b.Routines.Fire(context.Background(), started.Fire.ID)
	if err != nil || f.Outcome != routines.OutcomeInterrupted || f.EndedAt == nil || f.RunID == nil || f.TaskID == nil ||
		!strings.Contains(f.Reason, "shut down") {
		t.Fatalf("after the restart: %+v %v", f, err)
	}
	got, err := b.Routines.Get(context.Background(), sc.ID)
	if err != nil || got.Status != routines.Idle || got.Failures != 0 || got.NextRunAt == nil ||
		got.LastOutcome == nil || *got.LastOutcome != routines.OutcomeInterrupted {
		t.Fatalf("schedule after the restart: %+v %v", got, err)
	}
	// Run now works again: no running fire was left behind.
	if _, err := b.Routines.RunNow(context.Background(), sc.ID); err != nil {
		t.Fatalf("run now after the restart: %v", err)
	}
}
