package backend

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/adapters/openclaw"
	"github.com/clawboo/desktop/backend/adapters/openclaw/gatewaytest"
	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
	"github.com/clawboo/desktop/backend/routines"
)

// routineWatchdog is the OpenClaw fire limit in this test: long enough for
// a turn on a busy machine, short enough to wait for a stalled one.
const routineWatchdog = 20 * time.Second

// A routine of an OpenClaw agent, on the real Gateway: the fire is a turn
// in the Gateway session routine:<id>, charged a character estimate; a
// turn the provider stalls is stopped by the watchdog; the Gateway's own
// cron jobs are listed read-only beside ours; no provider key or Gateway
// token reaches a schedule or a fire.
func TestRoutineOpenClawOnTheRealGateway(t *testing.T) {
	node, entry := gatewaytest.Require(t)
	fake := fakeresponses.New(
		fakeresponses.Text("routine-digest", "Digest: three pull requests merged."),
		fakeresponses.Rule{Match: "routine-stall", Steps: []fakeresponses.Step{{Text: "Working on it", Chunks: []string{"Working ", "on it"}, Delay: 10 * time.Minute}}},
		fakeresponses.Rule{Match: "routine-refused", Steps: []fakeresponses.Step{{Status: http.StatusUnauthorized}}},
	)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	g := startRealGateway(t, node, entry, srv.URL+"/v1")

	// The watchdog as configured; a loaded machine's Gateway can take
	// longer than the short one below to answer even a quick turn.
	rg := newRoutineRig(t, map[string]string{config.EnvRoutineOpenClawTimeout: "300000"})
	b, h := rg.b, rg.h
	if code := e2eDo(t, h, "PUT", "/api/openclaw/settings", map[string]any{"url": g.URL, "token": ocToken}, nil); code != http.StatusOK {
		t.Fatalf("settings %d", code)
	}
	a, _ := b.Registry.Get(executor.OpenClaw)
	c := a.(*openclaw.Adapter).Client()
	deadline := time.Now().Add(60 * time.Second)
	for c.State().Status != openclaw.StatusConnected && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if st := c.State(); st.Status != openclaw.StatusConnected {
		t.Fatalf("not connected: %+v", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	name, rt := "Claw", "openclaw"
	ag, err := b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}

	// One fire: a turn in the routine's own Gateway session.
	sc := rg.create(t, ag.ID, map[string]any{"title": "routine-digest", "description": "Sum up the merged pull requests."})
	f := rg.runNow(t, sc.ID, 2*time.Minute)
	if f.Outcome != routines.OutcomeSuccess || f.RunID == nil || f.TaskID != nil || f.Reason != "answered in the Gateway session" || f.CostUSD <= 0 {
		t.Fatalf("fire %+v\n%s", f, g.Log()[max(0, len(g.Log())-3000):])
	}
	run := rg.run(t, *f.RunID)
	if run.RuntimeID != string(executor.OpenClaw) || run.Status != "succeeded" || run.Summary != "Digest: three pull requests merged." ||
		run.AgentID == nil || *run.AgentID != ag.ID || run.CostKind == nil || *run.CostKind != "char-estimate" || run.CostUSD == nil || *run.CostUSD <= 0 {
		t.Fatalf("run %+v (kind %v, cost %v)", run, deref(run.CostKind), deref(run.CostUSD))
	}
	if d := *run.CostUSD - f.CostUSD; d > 1e-9 || d < -1e-9 {
		t.Fatalf("the fire cost %v is not its run's %v", f.CostUSD, *run.CostUSD)
	}
	var key string
	if err := b.Store.Reader().QueryRowContext(ctx, `SELECT COALESCE(session_key, '') FROM runs WHERE id = ?`, run.ID).Scan(&key); err != nil || key != "routine:"+sc.ID {
		t.Fatalf("session key %q (%v), want routine:%s", key, err, sc.ID)
	}
	if !strings.Contains(rg.logs.String(), "run="+run.ID+" reason=routine") {
		t.Fatal("the run was not started for the routine")
	}
	reqs := fake.Requests()
	if last := reqs[len(reqs)-1]; !strings.Contains(last.UserText, "routine-digest") || !strings.Contains(last.UserText, "Sum up the merged pull requests.") {
		t.Fatalf("the Gateway turn was %q", last.UserText)
	}

	// The provider stalls: the watchdog (now short) stops the turn, recorded failed.
	if got := b.door.OpenClawTimeout(); got != 5*time.Minute {
		t.Fatalf("watchdog from %s: %s", config.EnvRoutineOpenClawTimeout, got)
	}
	b.door.SetOpenClawTimeout(routineWatchdog)
	stalled := rg.create(t, ag.ID, map[string]any{"title": "routine-stall"})
	start := time.Now()
	sf := rg.runNow(t, stalled.ID, routineWatchdog+90*time.Second)
	if took := time.Since(start); sf.Outcome != routines.OutcomeFailed || !strings.Contains(sf.Reason, "stopped by the 20s watchdog") ||
		took < routineWatchdog || sf.RunID == nil {
		t.Fatalf("stalled fire after %s: %+v", took, sf)
	}
	if r := rg.run(t, *sf.RunID); r.Live() {
		t.Fatalf("the stalled run is still %s", r.Status)
	}
	if got := rg.get(t, stalled.ID); got.LastError == nil || !strings.Contains(*got.LastError, "watchdog") || got.Failures != 1 {
		t.Fatalf("after the watchdog %+v", got)
	}

	// A Gateway cron job, listed read-only beside ours with its spec.
	var added struct {
		ID string `json:"id"`
	}
	if err := c.Request(ctx, "cron.add", map[string]any{
		"name": "Weekday digest", "agentId": "main",
		"description":   "Sum up the week's pull requests",
		"schedule":      map[string]any{"kind": "cron", "expr": "0 9 * * 1-5", "tz": "Europe/Berlin"},
		"sessionTarget": "isolated", "wakeMode": "now", "delivery": map[string]any{"mode": "none"},
		"payload": map[string]any{"kind": "agentTurn", "message": "Summarise the open pull requests."},
	}, &added); err != nil || added.ID == "" {
		t.Fatalf("cron.add: %v (%q)", err, added.ID)
	}
	var list struct {
		Schedules []routines.Schedule
		Sources   []routines.SourceState
	}
	code, body := routineGet(t, h, "/api/schedules", &list)
	if code != http.StatusOK || len(list.Sources) != 2 || !list.Sources[1].OK || list.Sources[1].ID != routines.SourceGatewayCron ||
		list.Sources[1].Error != "" || !list.Sources[1].Writable {
		t.Fatalf("sources %d %+v", code, list.Sources)
	}
	var job *routines.Schedule
	ours := 0
	for i, s := range list.Schedules {
		switch {
		case s.ID == "openclaw:"+added.ID:
			job = &list.Schedules[i]
		case s.Source == routines.SourceRoutine && !s.ReadOnly:
			ours++
		}
	}
	if ours != 2 || job == nil || job.Source != routines.SourceGatewayCron || !job.ReadOnly || job.Spec != "0 9 * * 1-5" ||
		job.Timezone != "Europe/Berlin" || job.Name != "Weekday digest" || job.AgentID != "main" || job.NextRunAt == nil ||
		job.Status != routines.Idle || !strings.HasPrefix(job.Description, "At 09:00") {
		t.Fatalf("listing: %d of ours, job %+v\n%s", ours, job, body)
	}
	// Read-only: Clawboo's routes do not touch a Gateway job.
	for _, m := range []struct{ method, path string }{{"DELETE", ""}, {"POST", "/run"}} {
		if code := e2eDo(t, h, m.method, "/api/schedules/"+job.ID+m.path, nil, nil); code != http.StatusNotFound {
			t.Fatalf("%s on a Gateway job: %d", m.method, code)
		}
	}

	// The provider refuses (last: the Gateway then rests the key a minute):
	// the fire fails, and its reason holds no key.
	refused := rg.create(t, ag.ID, map[string]any{"title": "routine-refused"})
	if f := rg.runNow(t, refused.ID, 2*time.Minute); f.Outcome != routines.OutcomeFailed || f.RunID == nil {
		t.Fatalf("refused fire %+v", f)
	}

	// No key or token in a schedule, its listing or a fire.
	for _, p := range []string{
		"/api/schedules", "/api/schedules/" + sc.ID + "/fires", "/api/schedules/" + refused.ID + "/fires",
		"/api/schedules/" + stalled.ID + "/fires", "/api/schedules/" + refused.ID,
	} {
		_, body := routineGet(t, h, p, nil)
		for _, s := range []string{ocKey, ocToken} {
			if strings.Contains(body, s) {
				t.Fatalf("a secret in %s: %s", p, body)
			}
		}
	}
	var reasons string
	if err := b.Store.Reader().QueryRowContext(ctx, `SELECT COALESCE(group_concat(reason, '|'), '') FROM schedule_fires`).Scan(&reasons); err != nil ||
		strings.Contains(reasons, ocKey) || strings.Contains(reasons, ocToken) {
		t.Fatalf("fire reasons %v: %s", err, reasons)
	}
	closeOnce(t, b)
	noSecretOnDisk(t, b.Config.Home, ocToken, ocKey)
}

// routineGet is a GET through the handler, decoded into out when set,
// with the raw body.
func routineGet(t *testing.T, h http.Handler, path string, out any) (int, string) {
	t.Helper()
	req := httptest.NewRequest("GET", "http://127.0.0.1"+path, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if out != nil {
		e2eDo(t, h, "GET", path, nil, out)
	}
	return rec.Code, rec.Body.String()
}
