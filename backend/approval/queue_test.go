package approval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/store"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func openStore(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func newQueue(t *testing.T, o Options) (*Queue, *store.Store) {
	t.Helper()
	if o.Store == nil {
		o.Store = openStore(t, filepath.Join(t.TempDir(), "clawboo.db"))
	}
	q, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close(); o.Store.Close() })
	return q, o.Store
}

func toolReq() Request {
	return Request{
		Kind: KindTool, Title: "alice wants to use delete_path", Tool: "delete_path",
		Args: `{"path":"/home/u/tmp"}`, AgentID: "alice", Reason: "clean up", Risk: "high",
	}
}

// waitPending waits until n requests are pending and returns them.
func waitPending(t *testing.T, q *Queue, n int) []Request {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ps, err := q.Pending(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) == n {
			return ps
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pending, want %d", len(ps), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type asked struct {
	r   Request
	err error
}

func ask(q *Queue, ctx context.Context, req Request, ttl time.Duration) <-chan asked {
	out := make(chan asked, 1)
	go func() {
		r, err := q.Ask(ctx, req, ttl)
		out <- asked{r, err}
	}()
	return out
}

func TestAskApproveAndDeny(t *testing.T) {
	for _, tc := range []struct {
		d    Decision
		want Status
	}{{Approve, Approved}, {Deny, Denied}} {
		t.Run(string(tc.d), func(t *testing.T) {
			q, _ := newQueue(t, Options{})
			sub := q.Subscribe(8)
			defer sub.Close()
			done := ask(q, context.Background(), toolReq(), time.Minute)
			p := waitPending(t, q, 1)[0]
			if p.Status != Pending || p.Tool != "delete_path" || p.Reason != "clean up" || p.ExpiresAt-p.CreatedAt != time.Minute.Milliseconds() {
				t.Fatalf("%+v", p)
			}
			r, err := q.Resolve(context.Background(), p.ID, tc.d, "api", "ok by me")
			if err != nil || r.Status != tc.want || r.ResolvedBy != "api" || r.Note != "ok by me" || r.ResolvedAt == 0 {
				t.Fatalf("%+v %v", r, err)
			}
			got := <-done
			if got.err != nil || got.r.Status != tc.want || got.r.Allowed() != (tc.want == Approved) {
				t.Fatalf("%+v", got)
			}
			if ev := <-sub.C(); ev.Kind != "requested" || ev.Approval.ID != p.ID {
				t.Fatalf("%+v", ev)
			}
			if ev := <-sub.C(); ev.Kind != "resolved" || ev.Approval.Status != tc.want {
				t.Fatalf("%+v", ev)
			}
			waitPending(t, q, 0)
			if _, err := q.Resolve(context.Background(), p.ID, Approve, "api", ""); !errors.Is(err, ErrResolved) {
				t.Fatal(err)
			}
		})
	}
}

func TestFirstAnswerWins(t *testing.T) {
	q, _ := newQueue(t, Options{})
	const requests, resolvers = 10, 6
	var dones []<-chan asked
	for range requests {
		dones = append(dones, ask(q, context.Background(), toolReq(), time.Minute))
	}
	ps := waitPending(t, q, requests)
	for _, p := range ps {
		var wins, late atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range resolvers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				d := Approve
				if i%2 == 1 {
					d = Deny
				}
				_, err := q.Resolve(context.Background(), p.ID, d, "r", "")
				switch {
				case err == nil:
					wins.Add(1)
				case errors.Is(err, ErrResolved):
					late.Add(1)
				default:
					t.Error(err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if wins.Load() != 1 || late.Load() != resolvers-1 {
			t.Fatalf("wins %d late %d", wins.Load(), late.Load())
		}
	}
	for _, d := range dones {
		if got := <-d; got.err != nil || (got.r.Status != Approved && got.r.Status != Denied) {
			t.Fatalf("%+v", got)
		}
	}
}

func TestExpiryFailsClosed(t *testing.T) {
	q, _ := newQueue(t, Options{})
	got := <-ask(q, context.Background(), toolReq(), 50*time.Millisecond)
	if got.err != nil || got.r.Status != Expired || got.r.Allowed() || got.r.ResolvedBy != "system" {
		t.Fatalf("%+v", got)
	}
	if _, err := q.Resolve(context.Background(), got.r.ID, Approve, "api", ""); !errors.Is(err, ErrExpired) {
		t.Fatal(err)
	}
	waitPending(t, q, 0)
}

// An answer after the deadline is refused even before the timer fires.
func TestLateAnswerRefusedBeforeTimer(t *testing.T) {
	var skew atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	q, _ := newQueue(t, Options{Now: now})
	done := ask(q, context.Background(), toolReq(), time.Hour)
	p := waitPending(t, q, 1)[0]
	skew.Store(int64(2 * time.Hour))
	if _, err := q.Resolve(context.Background(), p.ID, Approve, "api", ""); !errors.Is(err, ErrExpired) {
		t.Fatal(err)
	}
	if got := <-done; got.err != nil || got.r.Status != Expired {
		t.Fatalf("%+v", got)
	}
}

func TestContextCancelWithdraws(t *testing.T) {
	q, _ := newQueue(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := ask(q, ctx, toolReq(), time.Minute)
	p := waitPending(t, q, 1)[0]
	cancel()
	got := <-done
	if got.err != nil || got.r.Status != Expired || !strings.Contains(got.r.Note, "withdrawn") {
		t.Fatalf("%+v", got)
	}
	if r, err := q.Get(context.Background(), p.ID); err != nil || r.Status != Expired {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := q.Resolve(context.Background(), p.ID, Approve, "api", ""); !errors.Is(err, ErrExpired) {
		t.Fatal(err)
	}
}

func TestRestartExpiresLeftovers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clawboo.db")
	st := openStore(t, path)
	q, err := Open(context.Background(), Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	// A process that dies mid-Ask leaves its row pending.
	left := clean(toolReq())
	left.ID, left.CreatedAt, left.ExpiresAt = "01LEFTOVER", time.Now().UnixMilli(), time.Now().Add(time.Hour).UnixMilli()
	if err := q.insert(context.Background(), left); err != nil {
		t.Fatal(err)
	}
	if ps, _ := q.Pending(context.Background()); len(ps) != 1 {
		t.Fatal(ps)
	}
	q.Close()
	st.Close()

	q2, st2 := newQueue(t, Options{Store: openStore(t, path)})
	_ = st2
	r, err := q2.Get(context.Background(), "01LEFTOVER")
	if err != nil || r.Status != Expired || !strings.Contains(r.Note, "restarted") {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := q2.Resolve(context.Background(), r.ID, Approve, "api", ""); !errors.Is(err, ErrExpired) {
		t.Fatal(err)
	}
}

func TestCloseExpiresWaiters(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "clawboo.db"))
	defer st.Close()
	q, err := Open(context.Background(), Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	done := ask(q, context.Background(), toolReq(), time.Minute)
	waitPending(t, q, 1)
	q.Close()
	if got := <-done; got.err != nil || got.r.Status != Expired {
		t.Fatalf("%+v", got)
	}
	if _, err := q.Ask(context.Background(), toolReq(), time.Minute); !errors.Is(err, ErrClosed) {
		t.Fatal(err)
	}
}

func TestResolveErrorsAndValidation(t *testing.T) {
	q, _ := newQueue(t, Options{})
	ctx := context.Background()
	if _, err := q.Resolve(ctx, "nope", Approve, "api", ""); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if _, err := q.Resolve(ctx, "nope", "maybe", "api", ""); !errors.Is(err, ErrBadDecision) {
		t.Fatal(err)
	}
	if _, err := q.Get(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	for _, bad := range []Request{{Kind: "shell", Title: "x"}, {Kind: KindCommand, Title: "  "}} {
		if _, err := q.Ask(ctx, bad, time.Minute); !errors.Is(err, ErrInvalid) {
			t.Fatalf("%+v: %v", bad, err)
		}
	}
}

// A key in a command line, arguments or a reason never reaches the
// database file.
func TestStoredFieldsAreScrubbed(t *testing.T) {
	const sentinel = "sk-ant-SENTINEL-0123456789abcdefXYZ"
	path := filepath.Join(t.TempDir(), "clawboo.db")
	q, st := newQueue(t, Options{Store: openStore(t, path)})
	req := Request{
		Kind: KindCommand, Title: "run curl " + sentinel, Command: "curl -H 'x-api-key: " + sentinel + "' https://x",
		Args: `{"token":"` + sentinel + `"}`, Folder: "/tmp/w", RunID: "run-1", TaskID: "task-1", Reason: "needs " + sentinel,
	}
	done := ask(q, context.Background(), req, time.Minute)
	p := waitPending(t, q, 1)[0]
	if _, err := q.Resolve(context.Background(), p.ID, Deny, "api", "no "+sentinel); err != nil {
		t.Fatal(err)
	}
	got := <-done
	for _, f := range []string{got.r.Title, got.r.Command, got.r.Args, got.r.Reason, got.r.Note} {
		if strings.Contains(f, "SENTINEL") {
			t.Fatalf("sentinel in %q", f)
		}
	}
	if got.r.Command == "" || got.r.TaskID != "task-1" || got.r.Folder != "/tmp/w" {
		t.Fatalf("%+v", got.r)
	}
	if _, err := st.Writer().Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal"} {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), "SENTINEL") {
			t.Fatalf("sentinel in %s", f)
		}
	}
}

func TestCut(t *testing.T) {
	if got := cut(strings.Repeat("é", 10), 9); len(got) > 9 || !strings.HasSuffix(got, "…") {
		t.Fatalf("%q", got)
	}
	if got := cut("short", 9); got != "short" {
		t.Fatal(got)
	}
}

// "Allow always" lands only where the asker offered it; elsewhere the
// request stays pending and a plain answer still counts.
func TestAllowAlwaysOnlyWhereOffered(t *testing.T) {
	q, _ := newQueue(t, Options{})
	ctx := context.Background()

	plain := ask(q, ctx, toolReq(), time.Minute)
	p := waitPending(t, q, 1)[0]
	if p.Always {
		t.Fatal("a request that did not offer it says always")
	}
	if _, err := q.Resolve(ctx, p.ID, AllowAlways, "page", ""); !errors.Is(err, ErrNoAlways) {
		t.Fatalf("allow-always on a plain request: %v, want ErrNoAlways", err)
	}
	if got, _ := q.Get(ctx, p.ID); got.Status != Pending || got.Scope != "" {
		t.Fatalf("after a refused allow-always: %+v", got)
	}
	if _, err := q.Resolve(ctx, p.ID, Approve, "page", ""); err != nil {
		t.Fatal(err)
	}
	if a := <-plain; a.err != nil || a.r.Status != Approved || a.r.Scope != "" {
		t.Fatalf("plain answer: %+v %v", a.r, a.err)
	}

	req := toolReq()
	req.Always = true
	offered := ask(q, ctx, req, time.Minute)
	p = waitPending(t, q, 1)[0]
	if !p.Always {
		t.Fatal("the offer was not recorded")
	}
	r, err := q.Resolve(ctx, p.ID, AllowAlways, "page", "")
	if err != nil || r.Status != Approved || r.Scope != ScopeSession {
		t.Fatalf("allow-always: %+v %v", r, err)
	}
	if a := <-offered; a.r.Scope != ScopeSession || !a.r.Allowed() {
		t.Fatalf("the asker got %+v", a.r)
	}
	if _, err := q.Resolve(ctx, p.ID, Deny, "api", ""); !errors.Is(err, ErrResolved) {
		t.Fatalf("second answer: %v", err)
	}
}

// A phone paired or removed is written straight into the history: answered
// (approved, by whom, from where), never pending, never asked, never
// answerable, published only as "resolved", and scrubbed like the rest.
func TestRecordIsAnsweredHistoryOnly(t *testing.T) {
	clock := time.UnixMilli(1_800_000_000_000)
	q, _ := newQueue(t, Options{Now: func() time.Time { return clock }})
	ctx := context.Background()
	sub := q.Subscribe(8)
	defer sub.Close()

	paired, err := q.Record(ctx, PhonePaired("Pixel 8", "192.0.2.7"))
	if err != nil {
		t.Fatal(err)
	}
	want := Request{
		ID: paired.ID, Kind: KindDevice, Title: "Paired a phone: Pixel 8", Status: Approved,
		CreatedAt: clock.UnixMilli(), ExpiresAt: clock.UnixMilli(), ResolvedAt: clock.UnixMilli(),
		ResolvedBy: "phone: Pixel 8", Note: "from 192.0.2.7",
	}
	if paired.ID == "" || paired != want {
		t.Fatalf("recorded %+v, want %+v", paired, want)
	}
	if got, err := q.Get(ctx, paired.ID); err != nil || got != want {
		t.Fatalf("stored %+v %v", got, err)
	}
	if ev := <-sub.C(); ev.Kind != "resolved" || ev.Approval != want {
		t.Fatalf("published %+v", ev)
	}
	clock = clock.Add(time.Second)
	removed, err := q.Record(ctx, PhoneRemoved("Pixel 8", "page"))
	if err != nil || removed.Title != "Removed a phone: Pixel 8" || removed.ResolvedBy != "page" || removed.Status != Approved || removed.Note != "" {
		t.Fatalf("removed: %+v %v", removed, err)
	}
	if ev := <-sub.C(); ev.Kind != "resolved" || ev.Approval.ID != removed.ID {
		t.Fatalf("published %+v", ev)
	}

	if ps, err := q.Pending(ctx); err != nil || len(ps) != 0 {
		t.Fatalf("pending: %+v %v", ps, err)
	}
	hist, err := q.Answered(ctx, "", 10)
	if err != nil || len(hist) != 2 || hist[0].ID != removed.ID || hist[1].ID != paired.ID {
		t.Fatalf("history: %+v %v", hist, err)
	}
	for _, d := range []Decision{Approve, Deny, AllowAlways} {
		if r, err := q.Resolve(ctx, paired.ID, d, "api", "late"); !errors.Is(err, ErrResolved) || r.ResolvedBy != "phone: Pixel 8" || r.Note != "from 192.0.2.7" {
			t.Fatalf("%s on an entry: %+v %v", d, r, err)
		}
	}

	const sentinel = "sk-ant-SENTINEL-0123456789abcdefXYZ"
	if r, err := q.Record(ctx, Entry{Kind: KindDevice, Title: "Paired a phone: " + sentinel, By: sentinel, Note: sentinel}); err != nil ||
		strings.Contains(r.Title+r.ResolvedBy+r.Note, "SENTINEL") {
		t.Fatalf("not scrubbed: %+v %v", r, err)
	}
	for _, bad := range []Entry{{Kind: KindTool, Title: "x"}, {Kind: KindCommand, Title: "x"}, {Title: "x"}, {Kind: KindDevice, Title: " "}} {
		if _, err := q.Record(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Fatalf("%+v: %v", bad, err)
		}
	}
	if _, err := q.Ask(ctx, Request{Kind: KindDevice, Title: "Paired a phone: x"}, time.Minute); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a device entry asked: %v", err)
	}
}
