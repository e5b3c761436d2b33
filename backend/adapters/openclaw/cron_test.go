package openclaw

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// testdata/cron_list.json is a real cron.list answer (openclaw 2026.9.6,
// TestRealCronJobsListsAddedJobs with CLAWBOO_CAPTURE_CRON=1): the
// Gateway's own heartbeat job and the test's three.
func TestParseCronJobsCapturedAnswer(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "cron_list.json"))
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := parseCronJobs(raw)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]CronJob{}
	for _, j := range jobs {
		byName[j.Name] = j
	}
	want := map[string]CronJob{
		"Heartbeat (main)": {
			ID: "4cfec0a3-6df3-4c9f-bf3e-304251f3b6bd", Name: "Heartbeat (main)", AgentID: "main",
			Kind: "every", Spec: "every 30m", Enabled: true, NextRunAt: 1796194060290,
		},
		"Weekday digest": {
			ID: "a4963b5a-1929-497c-89c8-d05cc542ccd8", Name: "Weekday digest", AgentID: "main",
			Kind: "cron", Spec: "0 9 * * 1-5", Timezone: "Europe/Berlin", Enabled: true, NextRunAt: 1796198400000,
			Description: "Sum up the week's pull requests", Message: "Summarise the open pull requests.",
		},
		"Reminder": {
			ID: "fefbeac2-0c2a-4610-aa7c-aa78010c3188", Name: "Reminder", AgentID: "main", Kind: "at",
			Spec: "at 2030-02-01T16:00:00.000Z", Enabled: true, NextRunAt: 1896192000000,
			Description: "Reminder: renew the certificate", Message: "Reminder: renew the certificate",
		},
		"Every ten minutes": {
			ID: "e65203f3-2f54-4387-b254-ed13153969e3", Name: "Every ten minutes", AgentID: "main",
			Kind: "every", Spec: "every 10m", Description: "tick", Message: "tick",
		},
	}
	if len(jobs) != len(want) {
		t.Fatalf("%d jobs, want %d: %+v", len(jobs), len(want), jobs)
	}
	for name, w := range want {
		if got := byName[name]; got != w {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, w)
		}
	}
}

// The fields a job gets once it has run (none run in tests: the
// Gateway's scheduler is off there), as the schema (CronJobStateSchema)
// names them, plus bounds and kinds the captured answer lacks.
func TestParseCronJobsStateBoundsAndKinds(t *testing.T) {
	long := strings.Repeat("é", 600)
	page := map[string]any{"jobs": []any{
		map[string]any{
			"id": "j1", "name": "nightly", "enabled": true, "description": long, "futureField": []int{1},
			"schedule":         map[string]any{"kind": "cron", "expr": " 0 2 * * * ", "staggerMs": 0},
			"payload":          map[string]any{"kind": "agentTurn", "message": "bump deps\x00\x1b[31m"},
			"state":            map[string]any{"nextRunAtMs": 5, "lastRunAtMs": 3, "lastStatus": "error", "lastError": "boom\n" + long},
			"effectiveAgentId": "ops",
		},
		map[string]any{
			"id": "j2", "name": "n2", "enabled": true, "agentId": "a2", "effectiveAgentId": "ignored",
			"schedule":    map[string]any{"kind": "on-exit", "command": "./watch.sh"},
			"payload":     map[string]any{"kind": "command", "argv": []string{"make", "check"}},
			"nextRunAtMs": 9, "lastRunAtMs": 8, "lastRunStatus": "ok",
			"state": map[string]any{"nextRunAtMs": 1, "lastRunAtMs": 1, "lastRunStatus": "error"},
		},
		map[string]any{
			"id": "j3", "name": "n3", "schedule": map[string]any{"kind": "stream", "command": []string{"node", "ev.mjs"}},
			"payload": map[string]any{"kind": "heartbeat"}, "state": map[string]any{},
		},
		map[string]any{
			"id": "j4", "name": "n4", "enabled": true, "schedule": map[string]any{"kind": "lunar", "phase": "full"},
			"state": map[string]any{},
		},
		map[string]any{"id": "j5", "name": "n5", "enabled": true, "schedule": map[string]any{"kind": "every", "everyMs": 90_500}},
	}}
	raw, _ := json.Marshal(page)
	jobs, err := parseCronJobs(raw)
	if err != nil {
		t.Fatal(err)
	}
	j := jobs[0]
	if j.Spec != "0 2 * * *" || j.AgentID != "ops" || j.NextRunAt != 5 || j.LastRunAt != 3 || j.LastStatus != "error" ||
		j.Message != "bump deps[31m" || j.Timezone != "" {
		t.Errorf("j1 = %+v", j)
	}
	for _, s := range []string{j.Description, j.LastError} {
		if n := utf8.RuneCountInString(s); n != maxCronText || !strings.HasSuffix(s, "…") {
			t.Errorf("%d runes (%q…), want cut at %d", n, s[:20], maxCronText)
		}
	}
	if j := jobs[1]; j.Spec != "on-exit ./watch.sh" || j.AgentID != "a2" || j.NextRunAt != 9 || j.LastRunAt != 8 ||
		j.LastStatus != "ok" || j.Message != "make check" || j.Description != "make check" {
		t.Errorf("j2 = %+v (top-level fields win over state)", j)
	}
	if j := jobs[2]; j.Spec != "stream node ev.mjs" || !j.Enabled || j.Message != "" {
		t.Errorf("j3 = %+v (no enabled field: enabled)", j)
	}
	if j := jobs[3]; j.Kind != "lunar" || j.Spec != "lunar" {
		t.Errorf("j4 = %+v (an unknown kind is shown by name)", j)
	}
	if j := jobs[4]; j.Spec != "every 1m30.5s" {
		t.Errorf("j5 = %+v", j)
	}
	if got := humanMs(86_400_000); got != "1d" {
		t.Errorf("humanMs(1 day) = %q", got)
	}
}

func TestParseCronJobsMalformed(t *testing.T) {
	for _, tc := range []struct{ name, raw, want string }{
		{"not JSON", `{"jobs": [`, "not a page of jobs"},
		{"an array", `[]`, "not a page of jobs"},
		{"null", `null`, "no jobs list"},
		{"no jobs", `{"total": 0}`, "no jobs list"},
		{"jobs null", `{"jobs": null}`, "no jobs list"},
		{"jobs an object", `{"jobs": {}}`, "not a page of jobs"},
		{"a job a string", `{"jobs": ["x"]}`, "job 0: not a job"},
		{"no id", `{"jobs": [{"name": "a", "schedule": {"kind": "cron", "expr": "* * * * *"}}]}`, "no id"},
		{"id a number", `{"jobs": [{"id": 7, "schedule": {"kind": "cron", "expr": "* * * * *"}}]}`, "not a job"},
		{"no schedule", `{"jobs": [{"id": "a"}]}`, "job a has no schedule"},
		{"schedule a string", `{"jobs": [{"id": "a", "schedule": "0 9 * * *"}]}`, "not an object"},
		{"no kind", `{"jobs": [{"id": "a", "schedule": {"expr": "* * * * *"}}]}`, "no kind"},
		{"cron without expr", `{"jobs": [{"id": "a", "schedule": {"kind": "cron"}}]}`, "no expression"},
		{"every without interval", `{"jobs": [{"id": "a", "schedule": {"kind": "every", "everyMs": 0}}]}`, "no interval"},
		{"at without time", `{"jobs": [{"id": "a", "schedule": {"kind": "at"}}]}`, "no time"},
		{"more without offset", `{"jobs": [], "hasMore": true}`, "no next offset"},
		{"second job bad", `{"jobs": [{"id": "a", "schedule": {"kind": "at", "at": "x"}}, {"id": ""}]}`, "job 1"},
	} {
		_, err := parseCronJobs(json.RawMessage(tc.raw))
		if err == nil || !strings.HasPrefix(err.Error(), "cron.list: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// cronPageJSON is a cron.list page of n jobs from offset of total.
func cronPageJSON(offset, n, total int, revision string) map[string]any {
	jobs := []any{}
	for i := offset; i < offset+n && i < total; i++ {
		jobs = append(jobs, map[string]any{
			"id": "job-" + strconv.Itoa(i), "name": "n", "enabled": true,
			"schedule": map[string]any{"kind": "cron", "expr": "0 * * * *"}, "state": map[string]any{},
		})
	}
	p := map[string]any{
		"jobs": jobs, "total": total, "offset": offset, "limit": n, "snapshotRevision": revision,
		"hasMore": offset+len(jobs) < total, "nextOffset": nil,
	}
	if offset+len(jobs) < total {
		p["nextOffset"] = offset + len(jobs)
	}
	return p
}

func TestCronJobsReadsEveryPageAndRestartsWhenTheListChanges(t *testing.T) {
	d := newDouble(t)
	var calls atomic.Int32
	d.handle("cron.list", func(c *dconn, id string, p json.RawMessage) {
		var q struct{ Offset, Limit int }
		_ = json.Unmarshal(p, &q)
		rev := "r1"
		if calls.Add(1) > 2 {
			rev = "r2" // a job was added after the second page
		}
		total := 5
		if rev == "r2" {
			total = 6
		}
		c.ok(id, cronPageJSON(q.Offset, q.Limit, total, rev))
	})
	c := d.client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	jobs, err := c.cronJobs(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 6 || jobs[0].ID != "job-0" || jobs[5].ID != "job-5" {
		t.Fatalf("jobs = %+v, want job-0..job-5 from the second snapshot", jobs)
	}
	reqs := d.requests("cron.list")
	if len(reqs) != 6 { // r1: 0, 2; r2 at 4 → restart: 0, 2, 4
		t.Errorf("%d cron.list requests, want 6", len(reqs))
	}
	if param(t, reqs[0].Params, "includeDisabled") != true || param(t, reqs[0].Params, "limit") != float64(2) {
		t.Errorf("first request %s, want includeDisabled and limit 2", reqs[0].Params)
	}
	// The double's hello grants no scopes: not knowably writable.
	if c.CanWriteCron() {
		t.Error("CanWriteCron true without granted scopes")
	}
}

func TestCronJobsRefusesAPageThatDoesNotAdvance(t *testing.T) {
	d := newDouble(t)
	d.handle("cron.list", func(c *dconn, id string, _ json.RawMessage) {
		c.ok(id, map[string]any{"jobs": []any{}, "hasMore": true, "nextOffset": 0})
	})
	c := d.client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.CronJobs(ctx); err == nil || !strings.Contains(err.Error(), "does not advance") {
		t.Fatalf("err = %v, want a page that does not advance", err)
	}
	d.handle("cron.list", func(c *dconn, id string, _ json.RawMessage) { c.fail(id, "INVALID_REQUEST", "missing scope") })
	if _, err := c.CronJobs(ctx); err == nil || !strings.Contains(err.Error(), "missing scope") {
		t.Fatalf("err = %v, want the Gateway's refusal", err)
	}
}

func TestCanWriteCronNeedsAdminAndTheMethod(t *testing.T) {
	var h hello
	_ = json.Unmarshal([]byte(`{"auth": {"role": "operator", "scopes": ["operator.read", "operator.admin"]},
		"features": {"methods": ["cron.list", "cron.add"]}}`), &h)
	c := NewClient(ClientOptions{})
	c.conn, c.granted = &wsConn{}, grantedBy(h)
	if !c.CanWriteCron() {
		t.Error("admin and cron.add: want writable")
	}
	c.granted.methods = []string{"cron.list"}
	if c.CanWriteCron() {
		t.Error("no cron.add: want read-only")
	}
	c.granted = grantedBy(hello{})
	if c.CanWriteCron() {
		t.Error("nothing granted: want read-only")
	}
	c.conn = nil
	if c.CanWriteCron() {
		t.Error("not connected: want read-only")
	}
}
