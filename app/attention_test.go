package app

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

// fakeDesk records what attention asked the toolkit and the notifier to do.
type fakeDesk struct {
	mu        sync.Mutex
	log       []string
	shown     []approvalPopup
	onScreen  string
	notified  map[string]string
	closedN   []string
	lastCount [3]int
}

func (d *fakeDesk) Show(p approvalPopup) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.onScreen != "" {
		d.log = append(d.log, "BUG: two popups at once")
	}
	d.onScreen = p.ID
	d.shown = append(d.shown, p)
	d.log = append(d.log, "show "+p.ID)
}

func (d *fakeDesk) Withdraw(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.onScreen == id {
		d.onScreen = ""
	}
	d.log = append(d.log, "withdraw "+id)
}

func (d *fakeDesk) Notify(key, summary, body string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.notified[key] = summary + "|" + body
}

func (d *fakeDesk) Close(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closedN = append(d.closedN, key)
}

func (d *fakeDesk) screen() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.onScreen
}

// answered is what the toolkit does after a person chose: the popup is
// gone, the choice reported.
func (d *fakeDesk) answered(a *attention, c popupChoice) {
	d.mu.Lock()
	id := d.onScreen
	d.onScreen = ""
	d.mu.Unlock()
	a.answer(id, c)
}

type attentionEnv struct {
	q    *approval.Queue
	runs *bus.Broker[store.Run]
	desk *fakeDesk
	a    *attention
}

func newAttentionEnv(t *testing.T) *attentionEnv {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	q, err := approval.Open(ctx, approval.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	e := &attentionEnv{q: q, runs: bus.New[store.Run](0), desk: &fakeDesk{notified: map[string]string{}}}
	var countMu sync.Mutex
	e.a = newAttention(attentionOptions{
		Approvals: q, Runs: e.runs, Popups: e.desk, Notify: e.desk,
		Resolve: func(ctx context.Context, id string, d approval.Decision) error {
			_, err := q.Resolve(ctx, id, d, "popup", "")
			return err
		},
		AgentName: func(_ context.Context, id string) string { return "Agent " + id },
		TaskTitle: func(_ context.Context, id string) string { return "Task " + id },
		Status: func(p, r, l int) {
			countMu.Lock()
			defer countMu.Unlock()
			e.desk.mu.Lock()
			e.desk.lastCount = [3]int{p, r, l}
			e.desk.mu.Unlock()
		},
	})
	e.a.start(ctx)
	t.Cleanup(func() {
		e.a.close()
		q.Close()
		st.Close()
	})
	return e
}

// ask puts a command request on the queue and returns its id and a channel
// with the asker's final answer.
func (e *attentionEnv) ask(t *testing.T, cmd string) (string, <-chan approval.Request) {
	t.Helper()
	out := make(chan approval.Request, 1)
	before, _ := e.q.Pending(context.Background())
	go func() {
		r, _ := e.q.Ask(context.Background(), approval.Request{
			Kind: approval.KindCommand, Title: "Run", Command: cmd,
			Folder: "/w/task", AgentID: "a1", Reason: "because %s %n",
		}, time.Minute)
		out <- r
	}()
	var id string
	testkit.Eventually(t, 5*time.Second, "the request to be pending", func() bool {
		ps, _ := e.q.Pending(context.Background())
		if len(ps) > len(before) {
			id = ps[len(ps)-1].ID
			return true
		}
		return false
	})
	return id, out
}

func TestPopupsQueueAndAnswersGoThroughTheQueue(t *testing.T) {
	e := newAttentionEnv(t)
	id1, got1 := e.ask(t, "echo hi")
	testkit.Eventually(t, 5*time.Second, "the first popup", func() bool { return e.desk.screen() == id1 })
	id2, got2 := e.ask(t, "'/opt/my tools/run' --flag 'it'\\''s'")
	// One popup at a time: the second waits.
	time.Sleep(50 * time.Millisecond)
	if s := e.desk.screen(); s != id1 {
		t.Fatalf("on screen %q, want the first still", s)
	}
	p := e.desk.shown[0]
	if p.Program != "echo" || p.Args != "hi" || p.Folder != "/w/task" || p.Agent != "Agent a1" || p.Reason != "because %s %n" ||
		!strings.HasPrefix(p.Title, "Clawboo approval ") || p.Heading != "Allow echo to run?" {
		t.Fatalf("popup %+v", p)
	}
	if !strings.Contains(p.Body(), "Why: because %s %n") {
		t.Fatalf("body %q", p.Body())
	}
	e.desk.answered(e.a, choiceAllow)
	if r := <-got1; r.Status != approval.Approved || r.ResolvedBy != "popup" {
		t.Fatalf("first: %+v", r)
	}
	testkit.Eventually(t, 5*time.Second, "the second popup", func() bool { return e.desk.screen() == id2 })
	if p := e.desk.shown[1]; p.Program != "/opt/my tools/run" || p.Args != "--flag 'it'\\''s'" || p.Heading != "Allow run to run?" {
		t.Fatalf("quoted program: %+v", p)
	}
	e.desk.answered(e.a, choiceDeny)
	if r := <-got2; r.Status != approval.Denied {
		t.Fatalf("second: %+v", r)
	}
	e.desk.mu.Lock()
	defer e.desk.mu.Unlock()
	if !strings.Contains(e.desk.notified["approval:"+id1], "Allow echo to run?") {
		t.Fatalf("notifications %v", e.desk.notified)
	}
	for _, l := range e.desk.log {
		if strings.HasPrefix(l, "BUG") {
			t.Fatal(e.desk.log)
		}
	}
}

func TestAnsweredElsewhereWithdrawsThePopupAndTheNotification(t *testing.T) {
	e := newAttentionEnv(t)
	id1, got1 := e.ask(t, "echo one")
	testkit.Eventually(t, 5*time.Second, "the first popup", func() bool { return e.desk.screen() == id1 })
	id2, got2 := e.ask(t, "echo two")
	id3, got3 := e.ask(t, "echo three")
	// The page answers the waiting second one: it never shows.
	if _, err := e.q.Resolve(context.Background(), id2, approval.Deny, "page", ""); err != nil {
		t.Fatal(err)
	}
	<-got2
	// The page answers the one on screen: it is withdrawn and the third
	// comes up.
	if _, err := e.q.Resolve(context.Background(), id1, approval.Approve, "page", ""); err != nil {
		t.Fatal(err)
	}
	<-got1
	testkit.Eventually(t, 5*time.Second, "the third popup", func() bool { return e.desk.screen() == id3 })
	e.desk.mu.Lock()
	log := strings.Join(e.desk.log, ",")
	closed := strings.Join(e.desk.closedN, ",")
	e.desk.mu.Unlock()
	if log != "show "+id1+",withdraw "+id1+",show "+id3 {
		t.Fatalf("popups: %s", log)
	}
	if !strings.Contains(closed, "approval:"+id1) || !strings.Contains(closed, "approval:"+id2) {
		t.Fatalf("notifications closed: %s", closed)
	}
	// A popup closed without a choice is not an answer, and is not shown
	// again; the request stays answerable.
	e.desk.answered(e.a, choiceDismissed)
	time.Sleep(50 * time.Millisecond)
	if ps, _ := e.q.Pending(context.Background()); len(ps) != 1 || ps[0].ID != id3 || e.desk.screen() != "" {
		t.Fatalf("pending %+v, on screen %q", ps, e.desk.screen())
	}
	if _, err := e.q.Resolve(context.Background(), id3, approval.Approve, "page", ""); err != nil {
		t.Fatal(err)
	}
	<-got3
}

func TestTrayCountsAndTaskNotifications(t *testing.T) {
	e := newAttentionEnv(t)
	task := "T9"
	ended := int64(1)
	counts := func() [3]int {
		e.desk.mu.Lock()
		defer e.desk.mu.Unlock()
		return e.desk.lastCount
	}
	e.runs.Publish(store.Run{ID: "r1", TaskID: &task, Status: store.RunRunning, Title: "msg"})
	e.runs.Publish(store.Run{ID: "r2", Status: store.RunRunning})
	testkit.Eventually(t, 5*time.Second, "two live runs, one a task", func() bool { return counts() == [3]int{0, 1, 2} })
	id, got := e.ask(t, "echo x")
	testkit.Eventually(t, 5*time.Second, "a pending approval", func() bool { return counts() == [3]int{1, 1, 2} })
	e.runs.Publish(store.Run{ID: "r1", TaskID: &task, Status: store.RunFailed, Error: "boom\nstack", EndedAt: &ended})
	e.runs.Publish(store.Run{ID: "r2", Status: store.RunSucceeded, EndedAt: &ended})
	testkit.Eventually(t, 5*time.Second, "no live runs", func() bool { return counts() == [3]int{1, 0, 0} })
	e.desk.mu.Lock()
	n := e.desk.notified["run:r1"]
	_, adhoc := e.desk.notified["run:r2"]
	e.desk.mu.Unlock()
	if n != "Clawboo: task failed|Task T9\nboom" || adhoc {
		t.Fatalf("task notification %q (ad-hoc notified: %v)", n, adhoc)
	}
	if _, err := e.q.Resolve(context.Background(), id, approval.Deny, "page", ""); err != nil {
		t.Fatal(err)
	}
	<-got
	testkit.Eventually(t, 5*time.Second, "no pending approvals", func() bool { return counts() == [3]int{0, 0, 0} })
}

func TestPendingAtStartIsShown(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q, err := approval.Open(ctx, approval.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	done := make(chan approval.Request, 1)
	go func() {
		r, _ := q.Ask(ctx, approval.Request{Kind: approval.KindTool, Title: "Delete", Tool: "delete_path", Args: `{"path":"x"}`}, time.Minute)
		done <- r
	}()
	testkit.Eventually(t, 5*time.Second, "a pending request", func() bool { ps, _ := q.Pending(ctx); return len(ps) == 1 })
	desk := &fakeDesk{notified: map[string]string{}}
	a := newAttention(attentionOptions{
		Approvals: q, Runs: bus.New[store.Run](0), Popups: desk, Notify: desk,
		Resolve: func(context.Context, string, approval.Decision) error { return nil },
	})
	a.start(ctx)
	testkit.Eventually(t, 5*time.Second, "its popup", func() bool { return desk.screen() != "" })
	if p := desk.shown[0]; p.Program != "delete_path" || p.Heading != "Allow the tool delete_path?" {
		t.Fatalf("%+v", p)
	}
	a.close()
	if desk.screen() != "" {
		t.Fatal("closing attention must withdraw its popup")
	}
	ps, _ := q.Pending(ctx)
	if _, err := q.Resolve(ctx, ps[0].ID, approval.Deny, "page", ""); err != nil {
		t.Fatal(err)
	}
	<-done
}

func TestFirstWord(t *testing.T) {
	for _, c := range []struct{ in, prog, rest string }{
		{"echo hi there", "echo", "hi there"},
		{"ls", "ls", ""},
		{"'/a b/c' x", "/a b/c", "x"},
		{"'it'\\''s' y", "it's", "y"},
		{"", "", ""},
	} {
		if p, r := firstWord(c.in); p != c.prog || r != c.rest {
			t.Errorf("%q: %q %q", c.in, p, r)
		}
	}
}

// A request that offers "allow always" gets the popup's third answer, and
// choosing it allows the request for the session.
func TestPopupOffersAllowForTheSessionWhereTheAgentDoes(t *testing.T) {
	e := newAttentionEnv(t)
	got := make(chan approval.Request, 1)
	go func() {
		r, _ := e.q.Ask(context.Background(), approval.Request{
			Kind: approval.KindTool, Title: "Allow edit", Tool: "edit", Args: `{"path":"a.go"}`, AgentID: "a1", Always: true,
		}, time.Minute)
		got <- r
	}()
	testkit.Eventually(t, 5*time.Second, "its popup", func() bool { return e.desk.screen() != "" })
	e.desk.mu.Lock()
	p := e.desk.shown[0]
	e.desk.mu.Unlock()
	if !p.Always || p.Program != "edit" {
		t.Fatalf("popup %+v", p)
	}
	e.desk.answered(e.a, choiceAllowAlways)
	if r := <-got; r.Status != approval.Approved || r.Scope != approval.ScopeSession || r.ResolvedBy != "popup" {
		t.Fatalf("answer %+v", r)
	}
}

// The tray counts the live runs on each other machine, and forgets a run
// when it ends.
func TestTrayCountsRunsPerHost(t *testing.T) {
	var got []map[string]int
	a := newAttention(attentionOptions{HostRuns: func(per map[string]int) { got = append(got, per) }})
	host, ended := "h1", int64(1)
	ctx := context.Background()
	a.onRun(ctx, store.Run{ID: "r1", HostID: &host})
	a.onRun(ctx, store.Run{ID: "r2", HostID: &host})
	a.onRun(ctx, store.Run{ID: "r3"})
	if last := got[len(got)-1]; last["h1"] != 2 || len(last) != 1 {
		t.Fatalf("two runs on h1 and one here: %v", last)
	}
	a.onRun(ctx, store.Run{ID: "r1", HostID: &host, EndedAt: &ended})
	if last := got[len(got)-1]; last["h1"] != 1 {
		t.Fatalf("after one ended: %v", last)
	}
}
