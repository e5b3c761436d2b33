package backend

import (
	"context"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/quota"
	"github.com/clawboo/desktop/backend/store"
)

// quotaRig is a backend with the mock runtime and a quota clock the test
// steps past a window's reset.
type quotaRig struct {
	b    *Backend
	home string
	h    http.Handler
	mu   sync.Mutex
	now  time.Time
}

func (q *quotaRig) clock() time.Time { q.mu.Lock(); defer q.mu.Unlock(); return q.now }
func (q *quotaRig) step(d time.Duration) {
	q.mu.Lock()
	q.now = q.now.Add(d)
	q.mu.Unlock()
}

func newQuotaRig(t testing.TB) *quotaRig {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "PATH": os.Getenv("PATH"), "CLAWBOO_ENABLE_MOCK_RUNTIME": "1", config.EnvVault: "file"}
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(home, getenv)
	if err != nil {
		t.Fatal(err)
	}
	q := &quotaRig{now: time.Now()}
	b, err := New(context.Background(), Options{
		Config: cfg, Getenv: getenv, QuotaClock: q.clock,
		Environ: func() []string { return []string{"HOME=" + home, "PATH=" + env["PATH"]} },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	q.b, q.h, q.home = b, authed(b), home
	return q
}

func (q *quotaRig) agent(t testing.TB, name, runtime string, fallback *string) agents.Agent {
	t.Helper()
	in := agents.Input{Name: &name, Runtime: &runtime}
	if fallback != nil {
		in.FallbackRuntime = agents.Optional[string]{Set: true, Value: fallback}
	}
	ag, err := q.b.Agents.Create(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return ag
}

func (q *quotaRig) task(t testing.TB, title, desc, agentID string) board.Task {
	t.Helper()
	task, err := q.b.Board.Create(context.Background(), board.NewTask{Title: title, Description: desc, Kind: board.Research, AssigneeAgentID: agentID})
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// waitTask waits until the task reaches status.
func (q *quotaRig) waitTask(t *testing.T, id string, status board.Status) board.Task {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		task, err := q.b.Board.Get(context.Background(), id)
		if err == nil && task.Status == status && (task.RunID == nil || !q.b.Supervisor.IsLive(*task.RunID)) {
			return task
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is %s, not %s", id, task.Status, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type quotaAnswer struct {
	Threshold float64
	Windows   []quota.Window
	Silent    []map[string]string
	Deferred  []quota.Deferral
}

func (q *quotaRig) ledger(t *testing.T) quotaAnswer {
	t.Helper()
	var out quotaAnswer
	if code := e2eDo(t, q.h, "GET", "/api/quota", nil, &out); code != http.StatusOK {
		t.Fatalf("GET /api/quota: %d", code)
	}
	return out
}

// A window a run reports lands in the ledger; a task asked of a runtime
// over the threshold is deferred with its reason and starts by itself once
// the window has reset.
func TestQuotaDefersATaskAndStartsItAtTheReset(t *testing.T) {
	q := newQuotaRig(t)
	ag := q.agent(t, "Worker", "clawboo-mock", nil)
	var res runAnswer
	if code := e2eDo(t, q.h, "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"message": "!quota five_hour 97 allowed_warning 3600\n!ok"}, &res); code != http.StatusOK || !res.OK {
		t.Fatalf("reporting run: %d %+v", code, res)
	}
	l := q.ledger(t)
	if len(l.Windows) != 1 || l.Windows[0].Runtime != "clawboo-mock" || l.Windows[0].Window != "five_hour" || *l.Windows[0].Utilization != 0.97 ||
		l.Windows[0].Status != "allowed_warning" || l.Threshold != 95 {
		t.Fatalf("ledger after the run: %+v", l)
	}
	if len(l.Silent) == 0 || l.Silent[0]["runtime"] != "openclaw" {
		t.Fatalf("OpenClaw is said to report no windows: %+v", l.Silent)
	}
	task := q.task(t, "Summarise the notes", "!ok summarised", ag.ID)
	var refused struct {
		OK       bool
		Reason   string
		Error    string
		Deferred struct {
			ID    string
			Until int64
		}
	}
	code := e2eDo(t, q.h, "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"taskId": task.ID}, &refused)
	if code != http.StatusUnprocessableEntity || refused.Reason != "quota" || refused.Deferred.ID == "" ||
		!strings.HasPrefix(refused.Error, "Mock (fault injection) five-hour window at 97 %, resets ") || !strings.HasSuffix(refused.Error, "; deferred until then") {
		t.Fatalf("the task run is deferred: %d %+v", code, refused)
	}
	if got, _ := q.b.Board.Get(context.Background(), task.ID); got.Status != board.Todo || got.RunID != nil {
		t.Fatalf("a deferred task is not claimed: %+v", got)
	}
	l = q.ledger(t)
	if len(l.Deferred) != 1 || l.Deferred[0].TaskID != task.ID || l.Deferred[0].Title != "Summarise the notes" || l.Deferred[0].Window != "five_hour" {
		t.Fatalf("deferred work listed: %+v", l.Deferred)
	}
	// Not yet: the timer leaves it alone before the reset.
	if n := q.b.Quota.FireDue(context.Background(), q.b.door.Resume); n != 0 {
		t.Fatalf("%d deferrals fired before the reset", n)
	}
	q.step(61 * time.Minute)
	q.b.Quota.FireDue(context.Background(), q.b.door.Resume) // (or the timer itself)
	q.waitTask(t, task.ID, board.Done)
	if runs, _ := q.b.Store.TaskRuns(context.Background(), task.ID, 10); len(runs) != 1 || runs[0].Status != store.RunSucceeded {
		t.Fatalf("one run, after the reset: %+v", runs)
	}
	if l := q.ledger(t); len(l.Deferred) != 0 || !l.Windows[0].Reset {
		t.Fatalf("after the reset: %+v", l)
	}
}

// runAnswer is the part of a run's answer these tests read.
type runAnswer struct {
	OK         bool
	RunID      string
	RuntimeID  string
	RoutedFrom string
	Why        string
	Status     string
	Error      string
}

// With a fallback runtime set, work is routed there instead of waiting.
func TestQuotaRoutesToTheAgentsFallbackRuntime(t *testing.T) {
	q := newQuotaRig(t)
	mock := "clawboo-mock"
	ag := q.agent(t, "Coder", "claude-code", &mock)
	q.b.Quota.Observe(context.Background(), "claude-code", executor.QuotaWindow{
		Window: "five_hour", Status: "rejected",
		ResetsAt: q.clock().Add(time.Hour).UnixMilli(),
	})
	task := q.task(t, "Read the logs", "!ok read", ag.ID)
	var res runAnswer
	code := e2eDo(t, q.h, "POST", "/api/runtimes/claude-code/run", map[string]any{"taskId": task.ID}, &res)
	if code != http.StatusOK || !res.OK || res.RuntimeID != "clawboo-mock" || res.RoutedFrom != "claude-code" ||
		!strings.Contains(res.Why, "Claude Code five-hour window rejected") || !strings.HasSuffix(res.Why, "routed to Mock (fault injection)") {
		t.Fatalf("routed: %d %+v", code, res)
	}
	if l := q.ledger(t); len(l.Deferred) != 0 {
		t.Fatalf("a routed task is not deferred: %+v", l.Deferred)
	}
	// The fallback must differ from the agent's own runtime.
	own := "claude-code"
	if _, err := q.b.Agents.Update(context.Background(), ag.ID, agents.Input{FallbackRuntime: agents.Optional[string]{Set: true, Value: &own}}); err == nil {
		t.Fatal("a fallback equal to the agent's runtime was accepted")
	}
}

// A task run that hits a rejected window mid-run gives its task back with
// its session kept, and at the reset the task starts again and resumes it.
func TestQuotaPausesATaskMidRunAndResumesItsSession(t *testing.T) {
	q := newQuotaRig(t)
	ag := q.agent(t, "Worker", "clawboo-mock", nil)
	task := q.task(t, "Long job", "!session sess-42\n!ok first half\n!quota five_hour 100 rejected 600\n!silent 5000\n!ok never", ag.ID)
	var res runAnswer
	code := e2eDo(t, q.h, "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"taskId": task.ID}, &res)
	if code != http.StatusOK || res.Status != string(store.RunAborted) || res.Error != "quota:five_hour" {
		t.Fatalf("the run stops on the rejected window: %d %+v", code, res)
	}
	paused := q.waitTask(t, task.ID, board.Todo)
	comments, err := q.b.Board.Comments(context.Background(), task.ID)
	if err != nil {
		t.Fatal(err)
	}
	last := comments[len(comments)-1].Body
	if !strings.HasPrefix(last, "Paused: Mock (fault injection) five-hour window at 100 % (rejected), resets ") || !strings.HasSuffix(last, "continuing its session.") {
		t.Fatalf("the task says why it waits: %q (%+v)", last, paused)
	}
	l := q.ledger(t)
	if len(l.Deferred) != 1 || l.Deferred[0].TaskID != task.ID {
		t.Fatalf("the paused task is deferred: %+v", l.Deferred)
	}
	// The person trims the task meanwhile; the next run must still resume.
	rest := "!ok second half"
	if _, err := q.b.Board.Update(context.Background(), task.ID, board.Patch{Description: &rest}); err != nil {
		t.Fatal(err)
	}
	q.step(11 * time.Minute)
	q.b.Quota.FireDue(context.Background(), q.b.door.Resume)
	q.waitTask(t, task.ID, board.Done)
	runs, err := q.b.Store.TaskRuns(context.Background(), task.ID, 10)
	if err != nil || len(runs) != 2 || runs[0].ID == res.RunID || runs[0].Status != store.RunSucceeded {
		t.Fatalf("a second run, newest first: %v %+v", err, runs)
	}
	evs, err := q.b.Store.ListEvents(context.Background(), runs[0].ID, 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	var resumed bool
	for _, e := range evs {
		resumed = resumed || strings.Contains(string(e.Data), "resuming sess-42")
	}
	if !resumed {
		t.Fatalf("the second run did not resume the session: %+v", evs)
	}
}

// A team turn asked of a runtime whose window is rejected is deferred and
// said in the room; at the reset the member takes it, and the key the
// person typed was never stored with the deferral.
func TestQuotaDefersATeamTurnAndTakesItAtTheReset(t *testing.T) {
	rg := newTeamRig(t)
	const key = "sk-ant-api03-SENTINEL-quota-6c2e9a1d7f"
	rg.b.Quota.Observe(context.Background(), "clawboo-mock", executor.QuotaWindow{
		Window: "five_hour", Status: "rejected",
		ResetsAt: time.Now().Add(1500 * time.Millisecond).UnixMilli(),
	})
	var refused struct{ Reason, Error string }
	code := e2eDo(t, rg.h, "POST", "/api/teams/"+rg.team.ID+"/chat", map[string]any{"message": "!ok on it\nuse " + key}, &refused)
	if code != http.StatusUnprocessableEntity || refused.Reason != "quota" || !strings.Contains(refused.Error, "five-hour window rejected") {
		t.Fatalf("the turn is deferred: %d %+v", code, refused)
	}
	rg.waitPost(t, "saying the turn waits", func(p wirePost) bool {
		return p.Kind == "system" && strings.Contains(p.Body, "did not take a turn") && strings.Contains(p.Body, "deferred until then")
	})
	ds, err := rg.b.Quota.Deferred(context.Background())
	if err != nil || len(ds) != 1 || ds[0].Kind != quota.KindTeamTurn || ds[0].AgentID != rg.ids["Lead"] {
		t.Fatalf("deferred: %+v %v", ds, err)
	}
	if strings.Contains(ds[0].Message, key) || !strings.Contains(ds[0].Message, "!ok on it") {
		t.Fatalf("the deferral's message: %q", ds[0].Message)
	}
	// The timer itself takes it at the reset (no clock stepped here).
	rg.waitPost(t, "the lead's resumed turn", func(p wirePost) bool { return p.AuthorAgentID == rg.ids["Lead"] && strings.Contains(p.Body, "on it") })
	rg.waitPost(t, "saying the held turn is taken", func(p wirePost) bool { return strings.Contains(p.Body, "is taking the turn the quota held back") })
	var stored int
	_ = rg.b.Store.Reader().QueryRow(`SELECT COUNT(*) FROM quota_deferrals WHERE payload LIKE '%SENTINEL%'`).Scan(&stored)
	if stored != 0 {
		t.Fatal("the key was stored with a deferral")
	}
}

// TestQuotaWindowClearedByAPersonStartsTheHeldTask (issue 26 §2.3): a
// rejected window with no reset time holds a task; DELETE
// /api/quota/windows/… clears it and the task starts at once.
func TestQuotaWindowClearedByAPersonStartsTheHeldTask(t *testing.T) {
	q := newQuotaRig(t)
	ag := q.agent(t, "Worker", "clawboo-mock", nil)
	// The run that reports the rejection does not end well (so its own
	// success does not clear the window it reported).
	var res runAnswer
	_ = e2eDo(t, q.h, "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"message": "!quota requests 100 rejected\n!error provider said 429"}, &res)
	l := q.ledger(t)
	if len(l.Windows) != 1 || l.Windows[0].ResetsAt != nil || l.Windows[0].ClearsAt == nil {
		t.Fatalf("ledger: %+v", l.Windows)
	}
	task := q.task(t, "Summarise the notes", "!ok summarised", ag.ID)
	var refused struct{ Reason, Error string }
	if code := e2eDo(t, q.h, "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"taskId": task.ID}, &refused); code != http.StatusUnprocessableEntity ||
		refused.Reason != "quota" || !strings.Contains(refused.Error, "unless a call succeeds sooner") {
		t.Fatalf("not held: %d %+v", code, refused)
	}
	var nf struct{ Error string }
	if code := e2eDo(t, q.h, "DELETE", "/api/quota/windows/clawboo-mock/five_hour", nil, &nf); code != http.StatusNotFound || !strings.Contains(nf.Error, "no five_hour window") {
		t.Fatalf("unknown window: %d %+v", code, nf)
	}
	if code := e2eDo(t, q.h, "DELETE", "/api/quota/windows/clawboo-mock/requests", nil, nil); code != http.StatusNoContent {
		t.Fatalf("clear: %d", code)
	}
	if l := q.ledger(t); len(l.Windows) != 0 {
		t.Fatalf("still in the ledger: %+v", l.Windows)
	}
	q.waitTask(t, task.ID, board.Done) // the deferral timer was woken: no clock step
}
