package supervisor

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/store/storetest"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

// fullDisk readies e for a full disk: quick journal retries and resaves.
func (e *env) fullDisk(t *testing.T) (free func()) {
	t.Helper()
	e.sup.journal.backoff = []time.Duration{time.Millisecond}
	e.sup.resave.first.Store(int64(20 * time.Millisecond))
	return storetest.FillDisk(t, e.st.Writer())
}

// checkEndedNotSaved checks how the host shows a run whose result is not
// durable: ended (failed, saying the disk is full), never running or
// succeeded; not abortable.
func checkEndedNotSaved(t *testing.T, e *env, h *Handle) store.Run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := h.Wait(ctx)
	if !errors.Is(err, ErrNotSaved) || !store.IsDiskFull(err) {
		t.Fatalf("Wait must say the result is not saved: %+v %v", r, err)
	}
	if r.Status != store.RunFailed || !strings.Contains(r.Error, "disk is full") {
		t.Fatalf("%+v", r)
	}
	// Once the run has left the live set, the host still answers for it.
	testkit.Eventually(t, 20*time.Second, "the run to leave the live set", func() bool { return !e.sup.IsLive(h.ID) })
	if v, ok := e.sup.Live(h.ID); !ok || v.Status != store.RunFailed || v.EndedAt == nil {
		t.Fatalf("the host must show the ended run: %+v %v", v, ok)
	}
	if e.sup.Pending(h.ID) {
		t.Fatal("no more events will come")
	}
	if err := e.sup.Abort(context.Background(), h.ID); !errors.Is(err, ErrRunFinished) {
		t.Fatalf("abort: %v", err)
	}
	return r
}

// checkSavedLater frees the disk and waits for the resaver to make the run
// durable exactly as the host showed it, its log ending with done.
func checkSavedLater(t *testing.T, e *env, id string, free func()) {
	t.Helper()
	free()
	var got store.Run
	testkit.Eventually(t, 20*time.Second, "the result to be saved", func() bool {
		var err error
		got, err = e.st.GetRun(context.Background(), id)
		return err == nil && !got.Live()
	})
	if got.Status != store.RunFailed || !strings.Contains(got.Error, "disk is full") || got.EndedAt == nil {
		t.Fatalf("%+v", got)
	}
	rows, err := e.st.ListEvents(context.Background(), id, 0, 1000)
	if err != nil || len(rows) == 0 || rows[len(rows)-1].Kind != string(executor.KindDone) {
		t.Fatalf("log must end with done: %+v %v", rows, err)
	}
	// The resaver forgets the run just after its row lands, so the two may
	// overlap for a moment (both answer the same run); then only the ledger does.
	testkit.Eventually(t, 20*time.Second, "a saved run to be answered by the ledger alone", func() bool {
		_, ok := e.sup.Live(id)
		return !ok
	})
}

// A run whose row never landed is not reported as a success.
func TestFullDiskNoResultWithoutDurableRow(t *testing.T) {
	e := setup(t, Options{})
	free := e.fullDisk(t)
	h, err := e.sup.Start(context.Background(), StartParams{RuntimeID: executor.Mock, Message: "!ok hello"})
	if err != nil {
		t.Fatal(err)
	}
	checkEndedNotSaved(t, e, h)
	if _, err := e.st.GetRun(context.Background(), h.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the disk was full, yet the row exists: %v", err)
	}
	checkSavedLater(t, e, h.ID, free)
}

// A run whose row is running when its final write fails ends anyway: the
// host never shows it running again, and saves it once there is room.
func TestFullDiskFinalWriteFailsRunDoesNotStayRunning(t *testing.T) {
	e := setup(t, Options{})
	h, err := e.sup.Start(context.Background(), StartParams{
		RuntimeID: executor.Mock,
		Message:   "!silent 400\n!ok " + strings.Repeat("a long summary ", 200),
	})
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 20*time.Second, "the run row to be running", func() bool {
		r, err := e.st.GetRun(context.Background(), h.ID)
		return err == nil && r.Status == store.RunRunning
	})
	free := e.fullDisk(t)
	checkEndedNotSaved(t, e, h)
	if r, _ := e.st.GetRun(context.Background(), h.ID); r.Status != store.RunRunning {
		t.Fatalf("the final write was meant to fail: %+v", r)
	}
	checkSavedLater(t, e, h.ID, free)
}

// countingHandler counts records at Warn and above.
type countingHandler struct {
	mu    sync.Mutex
	n     int
	lines []string
}

func (c *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (c *countingHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		c.mu.Lock()
		c.n++
		if len(c.lines) < 50 {
			c.lines = append(c.lines, r.Message)
		}
		c.mu.Unlock()
	}
	return nil
}
func (c *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *countingHandler) WithGroup(string) slog.Handler      { return c }

// A full disk fails every write of every run; the log says so a bounded
// number of times.
func TestFullDiskLogsBounded(t *testing.T) {
	logs := &countingHandler{}
	e := setup(t, Options{Log: slog.New(logs)})
	e.fullDisk(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var hs []*Handle
	for _, msg := range []string{"!flood 100000", "!flood 50000", "!ok a", "!ok b", "!loop 20"} {
		h, err := e.sup.Start(ctx, StartParams{RuntimeID: executor.Mock, Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	for _, h := range hs {
		if r, err := h.Wait(ctx); !errors.Is(err, ErrNotSaved) || r.Status != store.RunFailed {
			t.Fatalf("%+v %v", r, err)
		}
	}
	logs.mu.Lock()
	defer logs.mu.Unlock()
	t.Logf("%d warnings and errors: %q", logs.n, logs.lines)
	if logs.n == 0 || logs.n > 20 {
		t.Fatalf("%d warnings and errors for one full disk: %q", logs.n, logs.lines)
	}
}
