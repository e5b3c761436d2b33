package openclaw

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The Gateway's own cron jobs, read from the real Gateway. Its test
// environment sets OPENCLAW_SKIP_CRON=1: the scheduler is off (cron.status
// says enabled: false and no wake is armed), but the store is live, so
// cron.add stores a job, computes its next time and cron.list lists it,
// and no job ever runs.

// captureEnv set to 1 rewrites testdata/cron_list.json from this run.
const captureEnv = "CLAWBOO_CAPTURE_CRON"

// addCronJob adds a job with cron.add and removes it when the test ends.
func addCronJob(t *testing.T, c *Client, job map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var added struct {
		ID string `json:"id"`
	}
	if err := c.Request(ctx, "cron.add", job, &added); err != nil || added.ID == "" {
		t.Fatalf("cron.add %v: %v (id %q)", job["name"], err, added.ID)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.Request(ctx, "cron.remove", map[string]any{"id": added.ID}, nil); err != nil {
			t.Errorf("cron.remove %s: %v", added.ID, err)
		}
	})
	return added.ID
}

// nextWeekday9 is the next 09:00 Monday to Friday in loc after now.
func nextWeekday9(now time.Time, loc *time.Location) time.Time {
	n := now.In(loc)
	d := time.Date(n.Year(), n.Month(), n.Day(), 9, 0, 0, 0, loc)
	for !d.After(now) || d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
		d = time.Date(d.Year(), d.Month(), d.Day()+1, 9, 0, 0, 0, loc)
	}
	return d
}

func TestRealCronJobsListsAddedJobs(t *testing.T) {
	e := newRealEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The connection is granted operator.admin, so it may write jobs.
	if err := e.c.Request(ctx, "agents.list", nil, nil); err != nil {
		t.Fatal(err)
	}
	if !e.c.CanWriteCron() {
		e.c.mu.Lock()
		g := e.c.granted
		e.c.mu.Unlock()
		t.Fatalf("CanWriteCron is false on a connection granted %v", g.scopes)
	}
	var status struct {
		Enabled     bool   `json:"enabled"`
		NextWakeAt  *int64 `json:"nextWakeAtMs"`
		StorageKind string `json:"storage"`
	}
	if err := e.c.Request(ctx, "cron.status", map[string]any{}, &status); err != nil {
		t.Fatal(err)
	}
	if status.Enabled || status.NextWakeAt != nil {
		t.Fatalf("cron.status with OPENCLAW_SKIP_CRON=1: %+v, want the scheduler off", status)
	}

	before := time.Now()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skipf("no tz database: %v", err)
	}
	digest := addCronJob(t, e.c, map[string]any{
		"name": "Weekday digest", "agentId": "main",
		"description":   "Sum up the week's pull requests",
		"schedule":      map[string]any{"kind": "cron", "expr": "0 9 * * 1-5", "tz": "Europe/Berlin"},
		"sessionTarget": "isolated", "wakeMode": "now", "delivery": map[string]any{"mode": "none"},
		"payload": map[string]any{"kind": "agentTurn", "message": "Summarise the open pull requests."},
	})
	every := addCronJob(t, e.c, map[string]any{
		"name": "Every ten minutes", "enabled": false,
		"schedule":      map[string]any{"kind": "every", "everyMs": 600_000},
		"sessionTarget": "main", "wakeMode": "next-heartbeat",
		"payload": map[string]any{"kind": "systemEvent", "text": "tick"},
	})
	once := addCronJob(t, e.c, map[string]any{
		"name": "Reminder", "deleteAfterRun": true,
		"schedule":      map[string]any{"kind": "at", "at": "2030-02-01T16:00:00Z"},
		"sessionTarget": "main", "wakeMode": "now",
		"payload": map[string]any{"kind": "systemEvent", "text": "Reminder: renew the certificate"},
	})

	jobs, err := e.c.CronJobs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Two jobs a page: the same list, read over several pages.
	paged, err := e.c.cronJobs(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	// (The Gateway adds its own heartbeat job lazily, so the two lists
	// may differ by that one.)
	byID, pagedIDs := map[string]CronJob{}, map[string]bool{}
	for _, j := range jobs {
		byID[j.ID] = j
	}
	for _, j := range paged {
		if pagedIDs[j.ID] {
			t.Errorf("job %s twice in the paged list", j.ID)
		}
		pagedIDs[j.ID] = true
	}
	for _, id := range []string{digest, every, once} {
		if _, ok := byID[id]; !ok || !pagedIDs[id] {
			t.Fatalf("job %s: listed %v, in pages of 2 %v (of %d, %d jobs)", id, ok, pagedIDs[id], len(jobs), len(paged))
		}
	}

	d := byID[digest]
	want := nextWeekday9(before, berlin).UnixMilli()
	if d.Name != "Weekday digest" || d.AgentID != "main" || d.Kind != "cron" || d.Spec != "0 9 * * 1-5" ||
		d.Timezone != "Europe/Berlin" || !d.Enabled || d.NextRunAt != want ||
		d.Description != "Sum up the week's pull requests" || d.Message != "Summarise the open pull requests." {
		t.Errorf("digest job = %+v, want spec 0 9 * * 1-5 in Europe/Berlin for main, next %d", d, want)
	}
	ev := byID[every]
	if ev.Spec != "every 10m" || ev.Kind != "every" || ev.Enabled || ev.NextRunAt != 0 || ev.AgentID != "main" ||
		ev.Description != "tick" {
		t.Errorf("interval job = %+v, want every 10m, disabled, no next time, agent main", ev)
	}
	at := time.Date(2030, 2, 1, 16, 0, 0, 0, time.UTC).UnixMilli()
	o := byID[once]
	if o.Kind != "at" || o.Spec != "at 2030-02-01T16:00:00.000Z" || o.NextRunAt != at || o.Timezone != "" ||
		o.Message != "Reminder: renew the certificate" {
		t.Errorf("one-time job = %+v, want at 2030-02-01T16:00:00.000Z, next %d", o, at)
	}
	// Nothing ran: the scheduler is off.
	for _, j := range []CronJob{d, ev, o} {
		if j.LastRunAt != 0 || j.LastStatus != "" {
			t.Errorf("job %s ran: %+v", j.Name, j)
		}
	}

	if os.Getenv(captureEnv) == "1" {
		var raw json.RawMessage
		if err := e.c.Request(ctx, "cron.list", map[string]any{
			"includeDisabled": true, "limit": cronPageSize,
			"offset": 0, "includeDeliveryPreviews": false,
		}, &raw); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := json.Indent(&b, raw, "", "  "); err != nil {
			t.Fatal(err)
		}
		b.WriteByte('\n')
		if err := os.WriteFile(filepath.Join("testdata", "cron_list.json"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("captured %d bytes into testdata/cron_list.json", b.Len())
	}
}
