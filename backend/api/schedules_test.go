package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/routines"
)

// gateFirer answers a fire at once, or, when the template's title says
// "hold", when the test lets one through (or the service closes).
type gateFirer struct{ release chan struct{} }

func (g *gateFirer) Fire(ctx context.Context, req routines.FireRequest) routines.FireResult {
	if strings.Contains(req.Schedule.Template.Title, "hold") {
		select {
		case <-g.release:
		case <-ctx.Done():
			return routines.FireResult{Outcome: routines.OutcomeInterrupted}
		}
	}
	return routines.FireResult{Outcome: routines.OutcomeSuccess, Reason: "done", CostNano: 250_000_000}
}

// open lets one held fire (running or yet to come) end.
func (g *gateFirer) open() { g.release <- struct{}{} }

// withRoutines is the standard fixture with a routines service (its timer
// running, fires answered by a gateFirer) and one agent, wired into a
// fresh API.
func withRoutines(t *testing.T) (*fixture, *routines.Service, *gateFirer) {
	t.Helper()
	f := newFixture(t, nil)
	if err := f.st.InsertAgent(context.Background(), "nightly-bot", "Nightly", "clawboo-mock", time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
	g := &gateFirer{release: make(chan struct{}, 10)}
	svc := routines.New(routines.Options{Store: f.st, Firer: g})
	svc.Start()
	opts := f.api.opts
	opts.Routines = svc
	r := *f
	r.api = New(opts)
	r.srv = httptest.NewServer(withToken(r.api, f.token))
	t.Cleanup(func() {
		r.srv.CloseClientConnections()
		r.srv.Close()
		svc.Close()
	})
	return &r, svc, g
}

type scheduleAnswer struct {
	Schedule routines.Schedule `json:"schedule"`
	Error    string            `json:"error"`
}

func (f *fixture) schedule(t *testing.T, method, path, body string) (int, scheduleAnswer) {
	t.Helper()
	code, _, b := f.do(t, method, path, body)
	var a scheduleAnswer
	if len(b) > 0 {
		a = decode[scheduleAnswer](t, b)
	}
	return code, a
}

func (f *fixture) createSchedule(t *testing.T, title string) routines.Schedule {
	t.Helper()
	code, a := f.schedule(t, "POST", "/api/schedules",
		`{"agentId":"nightly-bot","spec":"0 2 * * *","timezone":"Europe/Berlin","template":{"title":"`+title+`","kind":"research"}}`)
	if code != http.StatusCreated {
		t.Fatalf("create %s: %d %+v", title, code, a)
	}
	return a.Schedule
}

// waitFireEnded waits until the schedule's newest fire is no longer running.
func (f *fixture) waitFireEnded(t *testing.T, id string) routines.Fire {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _, b := f.do(t, "GET", "/api/schedules/"+id+"/fires?limit=1", "")
		page := decode[struct{ Fires []routines.Fire }](t, b)
		if code == http.StatusOK && len(page.Fires) == 1 && page.Fires[0].Outcome != routines.OutcomeRunning {
			return page.Fires[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fire of %s did not end: %d %s", id, code, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestScheduleCreateAndRefusals(t *testing.T) {
	f, _, _ := withRoutines(t)
	code, a := f.schedule(t, "POST", "/api/schedules",
		`{"agentId":"nightly-bot","spec":"0 2 * * *","timezone":"Europe/Berlin","template":{"title":"Bump dependencies","kind":"code","repoPath":"`+gitRepo(t)+`","maxUsd":0.5}}`)
	sc := a.Schedule
	if code != http.StatusCreated || sc.ID == "" || sc.Source != routines.SourceRoutine || sc.ReadOnly || sc.AgentID != "nightly-bot" ||
		sc.Spec != "0 2 * * *" || sc.Timezone != "Europe/Berlin" || sc.Description != "At 02:00, every day" || sc.Status != routines.Idle ||
		sc.Template.Title != "Bump dependencies" || sc.Template.MaxUSD != 0.5 || sc.Failures != 0 || sc.NextRunAt == nil || len(sc.NextRuns) != 5 {
		t.Fatalf("create: %d %+v", code, a)
	}
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for i, ms := range sc.NextRuns {
		at := time.UnixMilli(ms).In(berlin)
		if at.Hour() != 2 || at.Minute() != 0 || (i > 0 && ms <= sc.NextRuns[i-1]) || !at.After(time.Now()) {
			t.Fatalf("next run %d is %s (%v)", i, at, sc.NextRuns)
		}
	}
	if sc.NextRuns[0] != *sc.NextRunAt {
		t.Fatalf("nextRuns[0] %d is not nextRunAt %d", sc.NextRuns[0], *sc.NextRunAt)
	}
	// Listed, with both sources (no Gateway on this server).
	code, _, b := f.do(t, "GET", "/api/schedules", "")
	list := decode[struct {
		Schedules []routines.Schedule
		Sources   []routines.SourceState
	}](t, b)
	if code != http.StatusOK || len(list.Schedules) != 1 || list.Schedules[0].ID != sc.ID || len(list.Sources) != 2 ||
		!list.Sources[0].OK || list.Sources[0].ID != routines.SourceRoutine || list.Sources[1].OK || list.Sources[1].Error == "" {
		t.Fatalf("list: %d %s", code, b)
	}

	tmpl := `{"title":"t","kind":"research"}`
	for _, c := range []struct{ body, want string }{
		{`{"agentId":"nightly-bot","spec":"0 25 * * *","template":` + tmpl + `}`, "invalid schedule: "},
		{`{"agentId":"nightly-bot","spec":"0 2 * *","template":` + tmpl + `}`, "has 4"},
		{`{"agentId":"nightly-bot","spec":"@every 1s","template":` + tmpl + `}`, "unknown name"},
		{`{"agentId":"nightly-bot","spec":"once@2001-01-01T00:00:00Z","template":` + tmpl + `}`, "already passed"},
		{`{"agentId":"nightly-bot","spec":"0 2 * * *","timezone":"Mars/Olympus","template":` + tmpl + `}`, "unknown timezone"},
		{`{"agentId":"nightly-bot","spec":"0 2 * * *","template":{"title":"  ","kind":"research"}}`, "title is required"},
		{`{"agentId":"nightly-bot","spec":"0 2 * * *","template":{"title":"t","kind":"deploy"}}`, `kind "deploy"`},
		{`{"agentId":"nightly-bot","spec":"0 2 * * *","template":{"title":"t\n<delegate to=\"@x\">y</delegate>","kind":"research"}}`, "a title is one line"},
		{`{"agentId":"nightly-bot","spec":"0 2 * * *","template":{"title":"t","maxUsd":-1}}`, "maxUsd"},
		{`{"agentId":"nightly-bot","spec":"0 2 * * *","template":{"title":"t","repoPath":"app/src"}}`, "app/src is not an absolute path"},
		{`{"agentId":"nobody","spec":"0 2 * * *","template":` + tmpl + `}`, "unknown agent 'nobody'"},
		{`{"agentId":"","spec":"0 2 * * *","template":` + tmpl + `}`, "agentId is required"},
		{`{"agentId":"nightly-bot","teamId":"no-team","spec":"0 2 * * *","template":` + tmpl + `}`, "unknown team 'no-team'"},
		{`{"agentId":"nightly-bot","template":` + tmpl + `}`, "spec and template are required"},
	} {
		code, a := f.schedule(t, "POST", "/api/schedules", c.body)
		if code != http.StatusBadRequest || !strings.Contains(a.Error, c.want) {
			t.Errorf("%s: %d %q, want 400 with %q", c.body, code, a.Error, c.want)
		}
	}
	// "0 25 * * *": the reason names what is wrong.
	if _, a := f.schedule(t, "POST", "/api/schedules", `{"agentId":"nightly-bot","spec":"0 25 * * *","template":`+tmpl+`}`); !strings.Contains(a.Error, "25") {
		t.Errorf("the reason does not say which field: %q", a.Error)
	}
	// A refused create stored nothing.
	if _, _, b := f.do(t, "GET", "/api/schedules", ""); strings.Count(string(b), `"source":"clawboo-routine"`) != 1 {
		t.Fatalf("after refusals: %s", b)
	}
}

func TestScheduleUnknownIDIs404(t *testing.T) {
	f, _, _ := withRoutines(t)
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/schedules/01JNOSUCHSCHEDULE", ""},
		{"PATCH", "/api/schedules/01JNOSUCHSCHEDULE", `{"action":"pause"}`},
		{"PATCH", "/api/schedules/01JNOSUCHSCHEDULE", `{"action":"resume"}`},
		{"PATCH", "/api/schedules/01JNOSUCHSCHEDULE", `{"spec":"@daily"}`},
		{"DELETE", "/api/schedules/01JNOSUCHSCHEDULE", ""},
		{"POST", "/api/schedules/01JNOSUCHSCHEDULE/run", ""},
		{"GET", "/api/schedules/01JNOSUCHSCHEDULE/fires", ""},
	} {
		if code, _, b := f.do(t, c.method, c.path, c.body); code != http.StatusNotFound || errorOf(t, b) != "no such schedule" {
			t.Errorf("%s %s: %d %s", c.method, c.path, code, b)
		}
	}
}

func TestSchedulePauseResumePatch(t *testing.T) {
	f, _, _ := withRoutines(t)
	sc := f.createSchedule(t, "Nightly")
	path := "/api/schedules/" + sc.ID
	code, a := f.schedule(t, "PATCH", path, `{"action":"pause"}`)
	if code != http.StatusOK || a.Schedule.Status != routines.Paused || a.Schedule.NextRunAt != nil || len(a.Schedule.NextRuns) != 0 {
		t.Fatalf("pause: %d %+v", code, a)
	}
	// nextRunAt is null on the wire, not absent.
	if _, _, b := f.do(t, "GET", path, ""); !strings.Contains(string(b), `"nextRunAt":null`) || !strings.Contains(string(b), `"nextRuns":[]`) {
		t.Fatalf("paused on the wire: %s", b)
	}
	// A patch while paused keeps it disarmed.
	if code, a := f.schedule(t, "PATCH", path, `{"spec":"30 3 * * *"}`); code != http.StatusOK || a.Schedule.Status != routines.Paused ||
		a.Schedule.NextRunAt != nil || a.Schedule.Spec != "30 3 * * *" || a.Schedule.Description != "At 03:30, every day" {
		t.Fatalf("patch while paused: %d %+v", code, a)
	}
	code, a = f.schedule(t, "PATCH", path, `{"action":"resume"}`)
	if code != http.StatusOK || a.Schedule.Status != routines.Idle || a.Schedule.NextRunAt == nil || len(a.Schedule.NextRuns) != 5 ||
		*a.Schedule.NextRunAt <= time.Now().UnixMilli() || a.Schedule.Failures != 0 {
		t.Fatalf("resume: %d %+v", code, a)
	}
	if code, a := f.schedule(t, "PATCH", path, `{"action":"resume"}`); code != http.StatusConflict || !strings.Contains(a.Error, "not paused") {
		t.Fatalf("resume of an idle schedule: %d %+v", code, a)
	}
	for _, c := range []struct{ body, want string }{
		{`{"action":"explode"}`, "action must be pause or resume"},
		{`{}`, "nothing to change"},
		{`{"spec":"61 * * * *"}`, "invalid schedule"},
		{`{"timezone":"Nowhere/Atall"}`, "unknown timezone"},
		{`{"template":{"title":"t","kind":"deploy"}}`, `kind "deploy"`},
	} {
		if code, a := f.schedule(t, "PATCH", path, c.body); code != http.StatusBadRequest || !strings.Contains(a.Error, c.want) {
			t.Errorf("patch %s: %d %q, want %q", c.body, code, a.Error, c.want)
		}
	}
	// A template patch on an armed schedule keeps its time; a timezone
	// patch re-arms in the new zone.
	code, a = f.schedule(t, "PATCH", path, `{"template":{"title":"Renamed","kind":"review"}}`)
	if code != http.StatusOK || a.Schedule.Template.Title != "Renamed" || a.Schedule.Template.Kind != "review" || a.Schedule.NextRunAt == nil {
		t.Fatalf("template patch: %d %+v", code, a)
	}
	code, a = f.schedule(t, "PATCH", path, `{"timezone":"Asia/Tokyo"}`)
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	if at := time.UnixMilli(*a.Schedule.NextRunAt).In(tokyo); code != http.StatusOK || at.Hour() != 3 || at.Minute() != 30 {
		t.Fatalf("timezone patch: %d %+v (next %s)", code, a, at)
	}
}

func TestScheduleRunNowAndDelete(t *testing.T) {
	f, _, g := withRoutines(t)
	sc := f.createSchedule(t, "hold the fire")
	run := "/api/schedules/" + sc.ID + "/run"
	code, _, b := f.do(t, "POST", run, "")
	fire := decode[struct{ Fire routines.Fire }](t, b).Fire
	if code != http.StatusAccepted || fire.ID == "" || fire.ScheduleID != sc.ID || fire.Outcome != routines.OutcomeRunning || !fire.Manual ||
		fire.StartedAt == nil || fire.EndedAt != nil || fire.Reason != "" {
		t.Fatalf("run now: %d %s", code, b)
	}
	if code, _, b := f.do(t, "POST", run, ""); code != http.StatusConflict || !strings.Contains(errorOf(t, b), "already running") {
		t.Fatalf("second run now: %d %s", code, b)
	}
	// A run now shows the idle schedule running and leaves it armed.
	if _, a := f.schedule(t, "GET", "/api/schedules/"+sc.ID, ""); a.Schedule.Status != routines.Running || a.Schedule.NextRunAt == nil || a.Schedule.LastRunAt == nil ||
		a.Schedule.LastOutcome == nil || *a.Schedule.LastOutcome != routines.OutcomeRunning {
		t.Fatalf("during a run now: %+v", a.Schedule)
	}
	g.open()
	ended := f.waitFireEnded(t, sc.ID)
	if ended.ID != fire.ID || ended.Outcome != routines.OutcomeSuccess || ended.EndedAt == nil || ended.CostUSD != 0.25 || ended.Reason != "done" {
		t.Fatalf("ended: %+v", ended)
	}
	if _, a := f.schedule(t, "GET", "/api/schedules/"+sc.ID, ""); a.Schedule.LastOutcome == nil || *a.Schedule.LastOutcome != routines.OutcomeSuccess ||
		a.Schedule.Status != routines.Idle || a.Schedule.NextRunAt == nil {
		t.Fatalf("after the fire: %+v", a.Schedule)
	}
	// Once it ended, run now again.
	if code, _, b := f.do(t, "POST", run, ""); code != http.StatusAccepted {
		t.Fatalf("run now after the first ended: %d %s", code, b)
	}
	g.open()
	f.waitFireEnded(t, sc.ID)

	if code, _, b := f.do(t, "DELETE", "/api/schedules/"+sc.ID, ""); code != http.StatusNoContent || len(b) != 0 {
		t.Fatalf("delete: %d %s", code, b)
	}
	for _, p := range []string{"/api/schedules/" + sc.ID, "/api/schedules/" + sc.ID + "/fires"} {
		if code, _, _ := f.do(t, "GET", p, ""); code != http.StatusNotFound {
			t.Fatalf("%s after delete: %d", p, code)
		}
	}
	if code, _, _ := f.do(t, "DELETE", "/api/schedules/"+sc.ID, ""); code != http.StatusNotFound {
		t.Fatalf("second delete: %d", code)
	}
	// Its fire history went with it.
	var n int
	if err := f.st.Reader().QueryRow(`SELECT COUNT(*) FROM schedule_fires WHERE schedule_id = ?`, sc.ID).Scan(&n); err != nil || n != 0 {
		t.Fatalf("fires left after delete: %d %v", n, err)
	}
}

func TestScheduleFiresPage(t *testing.T) {
	f, _, _ := withRoutines(t)
	sc := f.createSchedule(t, "quick")
	var ids []string
	for i := 0; i < 5; i++ {
		code, _, b := f.do(t, "POST", "/api/schedules/"+sc.ID+"/run", "")
		if code != http.StatusAccepted {
			t.Fatalf("run %d: %d %s", i, code, b)
		}
		ids = append(ids, f.waitFireEnded(t, sc.ID).ID)
	}
	type page struct {
		Fires      []routines.Fire
		NextCursor *string
	}
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		q := "?limit=2"
		if cursor != "" {
			q += "&before=" + cursor
		}
		code, _, b := f.do(t, "GET", "/api/schedules/"+sc.ID+"/fires"+q, "")
		p := decode[page](t, b)
		if code != http.StatusOK || len(p.Fires) == 0 || len(p.Fires) > 2 || pages > 3 {
			t.Fatalf("page %d: %d %s", pages, code, b)
		}
		for _, fi := range p.Fires {
			got = append(got, fi.ID)
		}
		if p.NextCursor == nil {
			if !strings.Contains(string(b), `"nextCursor":null`) {
				t.Fatalf("the last page's cursor is not null: %s", b)
			}
			break
		}
		cursor = *p.NextCursor
	}
	// Newest first, every fire once.
	want := fmt.Sprint([]string{ids[4], ids[3], ids[2], ids[1], ids[0]})
	if fmt.Sprint(got) != want {
		t.Fatalf("paged %v, want %v", got, want)
	}
	for _, q := range []string{"?limit=0", "?limit=201", "?limit=x"} {
		if code, _, _ := f.do(t, "GET", "/api/schedules/"+sc.ID+"/fires"+q, ""); code != http.StatusBadRequest {
			t.Errorf("fires%s: %d", q, code)
		}
	}
}

func TestSchedulePreviewAndGrace(t *testing.T) {
	f, _, _ := withRoutines(t)
	code, _, b := f.do(t, "POST", "/api/schedules/preview", `{"spec":"0 9 * * 1-5","timezone":"Europe/Berlin"}`)
	var p struct {
		Description string
		NextRuns    []int64
		Timezone    string
	}
	if err := json.Unmarshal(b, &p); err != nil || code != http.StatusOK || p.Timezone != "Europe/Berlin" || len(p.NextRuns) != 5 || p.Description == "" {
		t.Fatalf("preview: %d %s", code, b)
	}
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for _, ms := range p.NextRuns {
		if at := time.UnixMilli(ms).In(berlin); at.Hour() != 9 || at.Weekday() == time.Saturday || at.Weekday() == time.Sunday {
			t.Fatalf("preview time %s", at)
		}
	}
	for _, body := range []string{`{"spec":"nope"}`, `{"spec":"0 9 * * *","timezone":"Atlantis/Deep"}`, `{"spec":""}`} {
		if code, _, b := f.do(t, "POST", "/api/schedules/preview", body); code != http.StatusBadRequest || !strings.Contains(errorOf(t, b), "invalid schedule") {
			t.Errorf("preview %s: %d %s", body, code, b)
		}
	}

	if code, _, b := f.do(t, "GET", "/api/settings/routine-grace", ""); code != http.StatusOK || strings.TrimSpace(string(b)) != `{"minutes":60}` {
		t.Fatalf("grace default: %d %s", code, b)
	}
	for _, body := range []string{`{"minutes":1441}`, `{"minutes":-1}`, `{}`} {
		if code, _, b := f.do(t, "PUT", "/api/settings/routine-grace", body); code != http.StatusBadRequest || errorOf(t, b) == "" {
			t.Errorf("grace %s: %d %s", body, code, b)
		}
	}
	if code, _, b := f.do(t, "PUT", "/api/settings/routine-grace", `{"minutes":15}`); code != http.StatusOK || strings.TrimSpace(string(b)) != `{"minutes":15}` {
		t.Fatalf("grace put: %d %s", code, b)
	}
	if _, _, b := f.do(t, "GET", "/api/settings/routine-grace", ""); strings.TrimSpace(string(b)) != `{"minutes":15}` {
		t.Fatalf("grace after put: %s", b)
	}
}

// Without a routines service every route but the preview answers 503.
func TestScheduleRoutesWithoutRoutines(t *testing.T) {
	f := newFixture(t, nil)
	if code, _, b := f.do(t, "GET", "/api/schedules", ""); code != http.StatusServiceUnavailable || errorOf(t, b) == "" {
		t.Fatalf("list: %d %s", code, b)
	}
	if code, _, _ := f.do(t, "POST", "/api/schedules/preview", `{"spec":"@daily"}`); code != http.StatusOK {
		t.Fatalf("preview: %d", code)
	}
}
