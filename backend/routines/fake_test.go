package routines

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/store"
)

// fakeClock is a clock the test moves by hand; its timers fire when the
// time passes their deadline.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	// armed receives every sleep the service asks for.
	armed chan time.Duration
}

type fakeTimer struct {
	at    time.Time
	c     chan time.Time
	fired bool
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }
func (t *fakeTimer) Stop() bool          { t.fired = true; return true }

func newFakeClock(at time.Time) *fakeClock {
	return &fakeClock{now: at, armed: make(chan time.Duration, 100)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) Timer {
	c.mu.Lock()
	t := &fakeTimer{at: c.now.Add(d), c: make(chan time.Time, 1)}
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	select {
	case c.armed <- d:
	default:
	}
	return t
}

// Advance moves the clock and fires the timers now due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	for _, t := range c.timers {
		if !t.fired && !t.at.After(c.now) {
			t.fired = true
			t.c <- c.now
		}
	}
	c.mu.Unlock()
}

// scriptedFirer answers fires from a script and records them.
type scriptedFirer struct {
	mu      sync.Mutex
	fires   []FireRequest
	outcome func(n int) FireResult
	block   chan struct{} // nil: answer at once
	done    chan FireRequest
}

func newFirer(outcome func(n int) FireResult) *scriptedFirer {
	return &scriptedFirer{outcome: outcome, done: make(chan FireRequest, 100)}
}

func (f *scriptedFirer) Fire(ctx context.Context, req FireRequest) FireResult {
	f.mu.Lock()
	f.fires = append(f.fires, req)
	n := len(f.fires)
	block := f.block
	f.mu.Unlock()
	req.Started("run-"+req.FireID, "task-"+req.FireID)
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
		}
	}
	res := FireResult{Outcome: OutcomeSuccess, CostNano: 1_500_000_000}
	if f.outcome != nil {
		res = f.outcome(n)
	}
	f.done <- req
	return res
}

func (f *scriptedFirer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.fires)
}

// openStore opens a database (a second handle on the same file is a
// second process's view) with one agent in it.
func openStore(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func newDB(t *testing.T) (*store.Store, string) {
	path := filepath.Join(t.TempDir(), "clawboo.db")
	st := openStore(t, path)
	if err := st.InsertAgent(context.Background(), "bot", "Nightly Bot", "clawboo-mock", 1); err != nil {
		t.Fatal(err)
	}
	return st, path
}

func newService(t *testing.T, st *store.Store, clock Clock, firer Firer, grace time.Duration) *Service {
	s := New(Options{Store: st, Firer: firer, Clock: clock, Grace: func(context.Context) time.Duration { return grace }})
	t.Cleanup(s.Close)
	return s
}

func waitFire(t *testing.T, f *scriptedFirer) FireRequest {
	t.Helper()
	select {
	case r := <-f.done:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no fire")
	}
	return FireRequest{}
}

// settled waits until the schedule's last fire is no longer running.
func settled(t *testing.T, s *Service, id string) []Fire {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		fires, _, err := s.Fires(context.Background(), id, "", 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(fires) > 0 && fires[0].Outcome != OutcomeRunning {
			if sc, _ := s.Get(context.Background(), id); sc.Status != Running && sc.Status != Claimed {
				return fires
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the fire did not settle")
	return nil
}

var tmpl = Template{Title: "Bump dependencies", Kind: "research"}
