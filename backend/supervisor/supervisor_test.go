package supervisor

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/adapters/mock"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fake is an adapter whose behaviour each test chooses.
type fake struct {
	start  func(ctx context.Context, req executor.StartRequest) (executor.Run, error)
	events func(r *fakeRun) <-chan executor.Event
	abort  func(r *fakeRun)
}

func (f *fake) ID() executor.ID                        { return executor.ClaudeCode }
func (f *fake) Name() string                           { return "fake" }
func (f *fake) Capabilities() executor.Capabilities    { return executor.Capabilities{Models: []string{}} }
func (f *fake) Health(context.Context) executor.Health { return executor.Health{OK: true} }
func (f *fake) Start(ctx context.Context, req executor.StartRequest) (executor.Run, error) {
	if f.start != nil {
		return f.start(ctx, req)
	}
	return &fakeRun{f: f, em: req.Emitter}, nil
}

type fakeRun struct {
	f  *fake
	em *executor.Emitter
}

func (r *fakeRun) ID() executor.RunID { return r.em.RunID() }
func (r *fakeRun) Events() <-chan executor.Event {
	if r.f.events != nil {
		return r.f.events(r)
	}
	return r.em.Events()
}

func (r *fakeRun) Abort(context.Context) error {
	if r.f.abort != nil {
		r.f.abort(r)
	}
	return nil
}
func (r *fakeRun) SetModel(context.Context, string) error             { return nil }
func (r *fakeRun) WriteContext(context.Context, string, string) error { return nil }
func (r *fakeRun) Steer(context.Context, executor.Steer) (executor.SteerResult, error) {
	return executor.SteerRejected, nil
}

type env struct {
	st  *store.Store
	sup *Supervisor
}

func setupB(b *testing.B) *env {
	st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "clawboo.db"))
	if err != nil {
		b.Fatal(err)
	}
	reg := executor.NewRegistry()
	_ = reg.Register(mock.New())
	sup, err := New(context.Background(), Options{Store: st, Registry: reg})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sup.Close(context.Background()); st.Close() })
	return &env{st: st, sup: sup}
}

func setup(t *testing.T, opts Options, adapters ...executor.Adapter) *env {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	reg := executor.NewRegistry()
	for _, a := range append([]executor.Adapter{mock.New()}, adapters...) {
		if err := reg.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	opts.Store, opts.Registry = st, reg
	sup, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := sup.Close(sctx); err != nil {
			t.Error(err)
		}
		st.Close()
	})
	return &env{st: st, sup: sup}
}

func (e *env) run(t *testing.T, rt executor.ID, msg string) store.Run {
	t.Helper()
	h, err := e.sup.Start(context.Background(), StartParams{RuntimeID: rt, Message: msg})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// storedEvents reads a run's whole stored log and checks it ends in one done.
func (e *env) storedEvents(t *testing.T, id string) []executor.Event {
	t.Helper()
	rows, err := e.st.ListEvents(context.Background(), id, 0, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	var out []executor.Event
	for i, r := range rows {
		var ev executor.Event
		if err := json.Unmarshal(r.Data, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Seq != int64(i+1) || r.Seq != ev.Seq || string(ev.Kind) != r.Kind {
			t.Fatalf("stored event %d malformed: %+v", i, r)
		}
		if ev.Kind == executor.KindDone && i != len(rows)-1 {
			t.Fatal("done is not last")
		}
		out = append(out, ev)
	}
	if len(out) == 0 || out[len(out)-1].Kind != executor.KindDone {
		t.Fatalf("stored log does not end with done: %+v", out)
	}
	return out
}

func (e *env) ledger(t *testing.T, id string) store.Run {
	t.Helper()
	r, err := e.st.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSuccessfulRunIsRecorded(t *testing.T) {
	e := setup(t, Options{})
	r := e.run(t, executor.Mock, "!ok hello\n!loop 2")
	if r.Status != store.RunSucceeded || *r.DoneReason != "success" || r.Summary != "hello" {
		t.Fatalf("%+v", r)
	}
	got := e.ledger(t, r.ID)
	if got.Status != store.RunSucceeded || got.LastSeq != 7 || got.StartedAt == nil || got.EndedAt == nil || got.Title != "!ok hello" {
		t.Fatalf("ledger %+v", got)
	}
	evs := e.storedEvents(t, r.ID)
	if len(evs) != 7 || evs[1].Text != "hello" {
		t.Fatalf("%+v", evs)
	}
}

func TestStreamClosedWithoutDoneFails(t *testing.T) {
	e := setup(t, Options{})
	r := e.run(t, executor.Mock, "!ok partial\n!error backend exploded")
	if r.Status != store.RunFailed || *r.DoneReason != "error" || !strings.HasPrefix(r.Error, msgNoResult) || !strings.Contains(r.Error, "backend exploded") {
		t.Fatalf("%+v", r)
	}
	evs := e.storedEvents(t, r.ID)
	if last := evs[len(evs)-1]; last.Reason != executor.DoneError || len(evs) != 4 {
		t.Fatalf("%+v", evs)
	}
	// A stream closed with no error at all says so plainly.
	e2 := setup(t, Options{}, &fake{start: func(ctx context.Context, req executor.StartRequest) (executor.Run, error) {
		req.Emitter.Close()
		return &fakeRun{f: &fake{}, em: req.Emitter}, nil
	}})
	r = e2.run(t, executor.ClaudeCode, "x")
	if r.Status != store.RunFailed || r.Error != msgNoResult {
		t.Fatalf("%+v", r)
	}
	e2.storedEvents(t, r.ID)
}

func TestAdapterGoroutinePanicFailsOnlyThatRun(t *testing.T) {
	e := setup(t, Options{})
	var wg sync.WaitGroup
	results := make([]store.Run, 6)
	for i := range results {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			msg := "!ok fine\n!silent 50"
			if i%2 == 0 {
				msg = "!ok doomed\n!crash"
			}
			results[i] = e.run(t, executor.Mock, msg)
		}(i)
	}
	wg.Wait()
	for i, r := range results {
		if i%2 == 0 {
			if r.Status != store.RunFailed || !strings.Contains(r.Error, "runtime crashed") {
				t.Fatalf("crashed run %d: %+v", i, r)
			}
		} else if r.Status != store.RunSucceeded {
			t.Fatalf("healthy run %d hurt by a neighbour's crash: %+v", i, r)
		}
		e.storedEvents(t, r.ID)
	}
}
