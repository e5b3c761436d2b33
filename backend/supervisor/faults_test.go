package supervisor

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/adapters/mock"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
)

func TestPanicsInStartAndEventsAreContained(t *testing.T) {
	cases := []struct {
		name string
		f    *fake
		want string
	}{
		{"start panics", &fake{start: func(context.Context, executor.StartRequest) (executor.Run, error) {
			var p *fakeRun
			return p.f.Start(context.Background(), executor.StartRequest{}) // nil dereference
		}}, "runtime crashed while starting"},
		{"start errors", &fake{start: func(context.Context, executor.StartRequest) (executor.Run, error) {
			return nil, errors.New("binary missing")
		}}, "start: binary missing"},
		{"start returns nil run", &fake{start: func(context.Context, executor.StartRequest) (executor.Run, error) {
			return nil, nil
		}}, "runtime returned no run"},
		{"events panics", &fake{events: func(*fakeRun) <-chan executor.Event { panic("no stream for you") }}, "runtime crashed: no stream for you"},
		{"events nil", &fake{events: func(*fakeRun) <-chan executor.Event { return nil }}, "runtime returned no event stream"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := setup(t, Options{}, tc.f)
			r := e.run(t, executor.ClaudeCode, "x")
			if r.Status != store.RunFailed || !strings.Contains(r.Error, tc.want) {
				t.Fatalf("%+v", r)
			}
			e.storedEvents(t, r.ID)
		})
	}
}

func TestIdleTimeoutAbortsAndRecords(t *testing.T) {
	e := setup(t, Options{IdleTimeout: 80 * time.Millisecond})
	start := time.Now()
	r := e.run(t, executor.Mock, "!ok hi\n!silent 600000")
	if r.Status != store.RunTimedOut || *r.DoneReason != "aborted" || !strings.Contains(r.Error, "idle timeout") {
		t.Fatalf("%+v", r)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("idle abort took %v", el)
	}
	e.storedEvents(t, r.ID)
	// Activity resets the clock: a run with short gaps is not idle.
	r = e.run(t, executor.Mock, "!silent 40\n!ok a\n!silent 40\n!ok b\n!silent 40\n!ok c")
	if r.Status != store.RunSucceeded {
		t.Fatalf("%+v", r)
	}
}

func TestAdapterIgnoringAbortIsAbandoned(t *testing.T) {
	deaf := &fake{} // never emits, never honours abort
	e := setup(t, Options{IdleTimeout: 50 * time.Millisecond, AbortGrace: 50 * time.Millisecond}, deaf)
	r := e.run(t, executor.ClaudeCode, "x")
	if r.Status != store.RunTimedOut {
		t.Fatalf("%+v", r)
	}
	evs := e.storedEvents(t, r.ID)
	if len(evs) != 1 || evs[0].Reason != executor.DoneAborted || evs[0].Summary != msgAbandoned {
		t.Fatalf("%+v", evs)
	}
}

func TestAbort(t *testing.T) {
	e := setup(t, Options{})
	h, err := e.sup.Start(context.Background(), StartParams{RuntimeID: executor.Mock, Message: "!ok before\n!abort"})
	if err != nil {
		t.Fatal(err)
	}
	if live, ok := e.sup.Live(h.ID); !ok || !live.Live() {
		t.Fatalf("not live: %+v", live)
	}
	// Abort once the text is durable, so the summary has something to keep.
	wake, cancel := e.sup.Watch(h.ID)
	defer cancel()
	for {
		evs, err := e.st.ListEvents(context.Background(), h.ID, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) >= 2 {
			break
		}
		select {
		case <-wake:
		case <-time.After(5 * time.Second):
			t.Fatal("no events")
		}
	}
	if err := e.sup.Abort(context.Background(), h.ID); err != nil {
		t.Fatal(err)
	}
	r, _ := h.Wait(context.Background())
	if r.Status != store.RunAborted || *r.DoneReason != "aborted" || r.Summary != "before" {
		t.Fatalf("%+v", r)
	}
	if err := e.sup.Abort(context.Background(), h.ID); !errors.Is(err, ErrRunFinished) {
		t.Fatal(err)
	}
	if err := e.sup.Abort(context.Background(), "nope"); !errors.Is(err, ErrUnknownRun) {
		t.Fatal(err)
	}
	if _, err := e.sup.Start(context.Background(), StartParams{RuntimeID: "nope"}); !errors.Is(err, ErrUnknownRuntime) {
		t.Fatal(err)
	}
}

func TestAbortWhileStartingCancelsTheLaunch(t *testing.T) {
	e := setup(t, Options{})
	h, err := e.sup.Start(context.Background(), StartParams{RuntimeID: executor.Mock, Message: "!slowstart 5000\n!ok late"})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	begin := time.Now()
	if err := e.sup.Abort(context.Background(), h.ID); err != nil {
		t.Fatal(err)
	}
	r, _ := h.Wait(context.Background())
	if el := time.Since(begin); el > 2*time.Second {
		t.Fatalf("abort waited for the launch: %v", el)
	}
	if r.Status != store.RunAborted || *r.DoneReason != "aborted" || r.Summary != msgNotStarted {
		t.Fatalf("%+v", r)
	}
	e.storedEvents(t, r.ID)
}

func TestCallerGoingAwayDoesNotStopRun(t *testing.T) {
	e := setup(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	h, err := e.sup.Start(ctx, StartParams{RuntimeID: executor.Mock, Message: "!silent 100\n!ok survived"})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := h.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	r, _ := h.Wait(context.Background())
	if r.Status != store.RunSucceeded || r.Summary != "survived" {
		t.Fatalf("%+v", r)
	}
}

func TestCloseAbortsLiveRuns(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reg := executor.NewRegistry()
	_ = reg.Register(mock.New())
	sup, err := New(ctx, Options{Store: st, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 0; i < 3; i++ {
		h, err := sup.Start(ctx, StartParams{RuntimeID: executor.Mock, Message: "!abort"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, h.ID)
	}
	if err := sup.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		r, err := st.GetRun(ctx, id)
		if err != nil || r.Status != store.RunAborted {
			t.Fatalf("%+v %v", r, err)
		}
	}
	if _, err := sup.Start(ctx, StartParams{RuntimeID: executor.Mock}); !errors.Is(err, ErrClosed) {
		t.Fatal(err)
	}
}

func TestOrphanedRunsFailAtStart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	err = st.WriteBatch(ctx, func(b *store.Batch) error {
		if err := b.InsertRun(store.NewRun{ID: "orphan", RuntimeID: "clawboo-mock", CreatedAt: 1}); err != nil {
			return err
		}
		if err := b.MarkRunning("orphan", 2); err != nil {
			return err
		}
		return b.AppendEvent("orphan", 1, "text-delta", []byte(`{"runId":"orphan","seq":1,"kind":"text-delta","text":"x"}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	reg := executor.NewRegistry()
	sup, err := New(ctx, Options{Store: st, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close(ctx)
	e := &env{st: st, sup: sup}
	r := e.ledger(t, "orphan")
	if r.Status != store.RunFailed || r.Error != msgOrphaned || r.LastSeq != 2 {
		t.Fatalf("%+v", r)
	}
	if evs := e.storedEvents(t, "orphan"); len(evs) != 2 {
		t.Fatalf("%+v", evs)
	}
	st.Close()
}

func TestFullDiskFailsRunWithClearError(t *testing.T) {
	e := setup(t, Options{})
	// Cap the database at its current size: the next pages cannot be had.
	var pages int
	if err := e.st.InTx(context.Background(), func(tx *sql.Tx) error {
		if err := tx.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
			return err
		}
		_, err := tx.Exec(`PRAGMA max_page_count = ` + strconv.Itoa(pages+2))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	e.sup.journal.backoff = []time.Duration{time.Millisecond}
	h, err := e.sup.Start(context.Background(), StartParams{RuntimeID: executor.Mock, Message: "!flood 200000"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != store.RunFailed || !strings.Contains(r.Error, msgNotSaved) || !strings.Contains(r.Error, "full") {
		t.Fatalf("%+v", r)
	}
}

// TestPerRunIdleTimeoutAndOpenToolGrace: a run's own idle timeout replaces
// the host's, and while a tool call has no result the longer one applies.
func TestPerRunIdleTimeoutAndOpenToolGrace(t *testing.T) {
	e := setup(t, Options{IdleTimeout: time.Hour})
	ctx := context.Background()
	wait := func(p StartParams) store.Run {
		t.Helper()
		h, err := e.sup.Start(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := h.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := wait(StartParams{RuntimeID: executor.Mock, Message: "!silent 600000", IdleTimeout: 80 * time.Millisecond, IdleToolOpen: time.Hour})
	if r.Status != store.RunTimedOut {
		t.Fatalf("silent with no tool open: %+v", r)
	}
	// The same silence with a tool call open outlasts the short timeout.
	r = wait(StartParams{RuntimeID: executor.Mock, Message: "!toolcall build\n!silent 300\n!ok done", IdleTimeout: 80 * time.Millisecond, IdleToolOpen: 5 * time.Second})
	if r.Status != store.RunSucceeded {
		t.Fatalf("silent with a tool open: %+v", r)
	}
}
