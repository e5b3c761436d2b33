package api

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/store/storetest"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
)

// A waited run on a full disk is never answered as a success: 507 and
// "the disk is full", and the run reads as ended, not running or missing.
func TestWaitedRunOnFullDiskAnswers507(t *testing.T) {
	f := newFixture(t, nil)
	free := storetest.FillDisk(t, f.st.Writer())
	code, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"message":"!ok done"}`)
	ans := decode[map[string]any](t, b)
	if msg, _ := ans["error"].(string); code != 507 || !strings.Contains(msg, "the disk is full") || ans["ok"] != false {
		t.Fatalf("%d %s", code, b)
	}
	id := ans["runId"].(string)
	code, _, b = f.do(t, "GET", "/api/runs/"+id, "")
	if r := decode[store.Run](t, b); code != 200 || r.Status != store.RunFailed || !strings.Contains(r.Error, "disk is full") {
		t.Fatalf("%d %s", code, b)
	}
	if code, _, b := f.do(t, "POST", "/api/runs/"+id+"/abort", `{}`); code != 409 {
		t.Fatalf("abort of an ended run: %d %s", code, b)
	}
	free()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, err := f.st.GetRun(context.Background(), id)
		if err == nil && r.Status == store.RunFailed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never saved: %+v %v", r, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A task run whose row cannot be recorded is refused with 507.
func TestTaskRunOnFullDiskIsRefusedWith507(t *testing.T) {
	f := newFixture(t, nil)
	taskID := f.createTask(t, `{"title":"t","kind":"research"}`).ID
	storetest.FillDisk(t, f.st.Writer())
	code, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"taskId":"`+taskID+`","message":"!ok"}`)
	if code != 507 || !strings.Contains(errorOf(t, b), "the disk is full") {
		t.Fatalf("%d %s", code, b)
	}
}

func TestStorageShowsDatabaseBesideWorktrees(t *testing.T) {
	f := newFixture(t, nil)
	code, _, b := f.do(t, "GET", "/api/storage", "")
	if code != 200 {
		t.Fatal(code, string(b))
	}
	var s struct {
		DatabaseBytes, WALBytes, FreeBytes, WorktreeBytes *int64
		Retention                                         struct{ CompactAfterHours, CompactOverBytes *int64 }
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.DatabaseBytes == nil || *s.DatabaseBytes <= 0 || s.WALBytes == nil || s.FreeBytes == nil || s.WorktreeBytes == nil ||
		*s.Retention.CompactAfterHours != 24 || *s.Retention.CompactOverBytes != 1<<20 {
		t.Fatalf("%s", b)
	}
	_, _, wb := f.do(t, "GET", "/api/worktrees", "")
	if w := decode[map[string]any](t, wb); int64(w["totalBytes"].(float64)) != *s.WorktreeBytes {
		t.Fatalf("worktree bytes %s vs %s", wb, b)
	}

	code, _, b = f.do(t, "PUT", "/api/storage/retention", `{"compactAfterHours":48}`)
	if code != 200 || !strings.Contains(string(b), `"compactAfterHours":48`) || !strings.Contains(string(b), `"compactOverBytes":1048576`) {
		t.Fatal(code, string(b))
	}
	if r, _ := f.st.Retention(context.Background()); r.CompactAfter != 48*time.Hour || r.CompactOverBytes != 1<<20 {
		t.Fatalf("%+v", r)
	}
	for _, bad := range []string{`{"compactAfterHours":-1}`, `{"compactOverBytes":-5}`, `{"compactAfterHours":"x"}`} {
		if code, _, b := f.do(t, "PUT", "/api/storage/retention", bad); code != 400 || errorOf(t, b) == "" {
			t.Fatal(bad, code, string(b))
		}
	}
}

// A compacted run replays with the same text, tool calls and done, seqs
// increasing, so the UI shows what it showed live.
func TestReplayOfCompactedRunIsTheSame(t *testing.T) {
	f := newFixture(t, nil)
	_, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"message":"!ok Hello \n!loop 2\n!flood 3000\n!ok bye"}`)
	id := decode[runResult](t, b).RunID
	replay := func() (text string, kinds []string, n int) {
		var last int64
		readSSE(t, f.stream(t, "/api/runs/"+id+"/events").Body, func(ev sseEvent) bool {
			var e executor.Event
			if err := json.Unmarshal(ev.data, &e); err != nil || e.Seq <= last || ev.id == "" {
				t.Fatalf("%s %v (after %d)", ev.data, err, last)
			}
			last = e.Seq
			n++
			if e.Kind == executor.KindTextDelta {
				text += e.Text
			} else {
				kinds = append(kinds, string(e.Kind))
			}
			return true
		})
		return text, kinds, n
	}
	text, kinds, n := replay()
	if st, err := f.st.CompactRun(context.Background(), id); err != nil || st.Deleted == 0 {
		t.Fatalf("%+v %v", st, err)
	}
	text2, kinds2, n2 := replay()
	if text2 != text || strings.Join(kinds2, ",") != strings.Join(kinds, ",") || kinds2[len(kinds2)-1] != "done" || n2 >= n/100 {
		t.Fatalf("before %d events %v, after %d events %v; text equal: %v", n, kinds, n2, kinds2, text == text2)
	}
}
