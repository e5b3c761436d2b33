package notices

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Things an approval or a task holds that a notice must never carry.
const (
	sentinel = "sk-ant-api03-NOTICE-SENTINEL-0xC1AWB00"
	command  = "rm -rf /home/x/secret-path"
	folder   = "/home/x/project-folder"
	reason   = "I must clean up, the key is " + sentinel
	title    = "delete /home/x/secret-path with " + sentinel
	topic    = "/clawboo-private-topic-7f3a"
	phone    = "192.168.1.5:18795"
)

var forbidden = []string{sentinel, "rm -rf", "/home/x", "secret-path", "project-folder", "clean up", "delete", "T-secret", "APPR-1", topic}

// post is one request the stand-in ntfy server took.
type post struct {
	method, path, body string
	header             http.Header
}

// ntfy is a local stand-in ntfy server: it records every request and
// answers with answer (nil: 200).
type ntfy struct {
	srv    *httptest.Server
	mu     sync.Mutex
	posts  []post
	answer func(w http.ResponseWriter, r *http.Request)
}

func newNtfy(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) *ntfy {
	t.Helper()
	n := &ntfy{answer: answer}
	n.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		n.mu.Lock()
		n.posts = append(n.posts, post{method: r.Method, path: r.URL.Path, body: string(b), header: r.Header.Clone()})
		n.mu.Unlock()
		if n.answer != nil {
			n.answer(w, r)
			return
		}
		_, _ = io.WriteString(w, `{"id":"x","event":"message"}`)
	}))
	t.Cleanup(n.srv.Close)
	return n
}

func (n *ntfy) got() []post {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]post(nil), n.posts...)
}

func (n *ntfy) waitFor(t *testing.T, count int) []post {
	t.Helper()
	testkit.EventuallySays(t, 10*time.Second, fmt.Sprintf("%d POSTs to the stand-in ntfy", count), func() (bool, string) {
		p := n.got()
		return len(p) >= count, fmt.Sprintf("%d POSTs", len(p))
	})
	p := n.got()
	if len(p) != count {
		t.Fatalf("%d POSTs, want exactly %d: %+v", len(p), count, p)
	}
	return p
}

// settings is the store's settings as a map, counting reads.
type settings struct {
	mu    sync.Mutex
	m     map[string]string
	reads int
}

func (s *settings) GetSetting(_ context.Context, key string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	v, ok := s.m[key]
	if !ok {
		return "", store.ErrNotFound
	}
	return v, nil
}

func (s *settings) PutSetting(_ context.Context, key, value string, _ int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]string{}
	}
	s.m[key] = value
	return nil
}

func (s *settings) readCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

type names struct{}

func (names) AgentName(_ context.Context, id string) string {
	return map[string]string{"a1": "Ada", "a2": "Bo\nb\x00"}[id]
}

func (names) TeamName(_ context.Context, id string) string {
	return map[string]string{"t1": "Core"}[id]
}

// rig is a started service over two buses and the stand-in server.
type rig struct {
	svc   *Service
	set   *settings
	appr  *bus.Broker[approval.Event]
	tasks *bus.Broker[board.Event]
	log   *testkit.SyncBuffer
}

func newRig(t *testing.T, url string, timeout time.Duration) *rig {
	t.Helper()
	r := &rig{set: &settings{}, appr: bus.New[approval.Event](10 * time.Second), tasks: bus.New[board.Event](0), log: &testkit.SyncBuffer{}}
	if url != "" {
		_ = r.set.PutSetting(context.Background(), Setting, url, 0)
	}
	r.svc = New(Options{
		Settings: r.set, Approvals: r.appr, Board: r.tasks, Names: names{},
		Address: func() string { return phone }, Timeout: timeout,
		Log: slog.New(slog.NewTextHandler(r.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	r.svc.Start(t.Context())
	t.Cleanup(func() {
		r.svc.Close()
		r.appr.Close()
		r.tasks.Close()
	})
	return r
}

func (r *rig) ask(id, agent, team string) {
	r.appr.PublishMust(approval.Event{Kind: "requested", Approval: approval.Request{
		ID: id, Kind: approval.KindCommand, Title: "run " + command, Command: command, Args: sentinel,
		Folder: folder, Reason: reason, AgentID: agent, TeamID: team, Status: approval.Pending,
	}})
}

func (r *rig) move(id string, st board.Status, agent, team string) {
	t := &board.Task{ID: id, Title: title, Description: reason, Status: st, RepoPath: ptr(folder), VerifyCommand: ptr(command)}
	if agent != "" {
		t.AssigneeAgentID = ptr(agent)
	}
	if team != "" {
		t.TeamID = ptr(team)
	}
	r.tasks.Publish(board.Event{Kind: "task", Task: t})
}

func ptr(s string) *string { return &s }

// clean fails when a request holds anything an approval or a task said.
func clean(t *testing.T, p post) {
	t.Helper()
	var all strings.Builder
	all.WriteString(p.path + "\n" + p.body + "\n")
	for k, vs := range p.header {
		all.WriteString(k + ": " + strings.Join(vs, ",") + "\n")
	}
	for _, f := range forbidden[:len(forbidden)-1] { // the path is the topic itself
		if strings.Contains(all.String(), f) {
			t.Errorf("a notice holds %q:\n%s", f, all.String())
		}
	}
	if strings.Contains(p.body+fmt.Sprint(p.header), topic) {
		t.Errorf("a notice's body or headers hold the topic: %s %v", p.body, p.header)
	}
}

func want(t *testing.T, p post, title, body, tags, prio string) {
	t.Helper()
	if p.method != http.MethodPost || p.path != topic {
		t.Errorf("%s %s, want POST %s", p.method, p.path, topic)
	}
	h := p.header
	if p.body != body || h.Get("Title") != title || h.Get("Tags") != tags || h.Get("Priority") != prio {
		t.Errorf("notice %q title %q tags %q priority %q; want %q %q %q %q", p.body, h.Get("Title"), h.Get("Tags"), h.Get("Priority"), body, title, tags, prio)
	}
	if c := h.Get("Click"); c != "https://"+phone+"/m" {
		t.Errorf("Click %q, want the paired page", c)
	}
	clean(t, p)
}

// An approval requested and a task reaching review are one POST each,
// holding names only; what follows them (an answer, a person's move to
// done, an edit) is none.
func TestApprovalAndFinishedTaskAreOnePostEachWithNamesOnly(t *testing.T) {
	n := newNtfy(t, nil)
	r := newRig(t, n.srv.URL+topic, 0)

	r.ask("APPR-1", "a1", "t1")
	p := n.waitFor(t, 1)
	want(t, p[0], "Clawboo: an answer is needed", "Ada (team Core) is waiting for your answer.", "question", "4")

	r.appr.PublishMust(approval.Event{Kind: "resolved", Approval: approval.Request{ID: "APPR-1", AgentID: "a1", Command: command, Status: approval.Approved}})
	r.move("T-secret", board.Todo, "a1", "t1")
	r.move("T-secret", board.InProgress, "a1", "t1")
	r.move("T-secret", board.InProgress, "a1", "t1") // a heartbeat
	r.move("T-secret", board.InReview, "a1", "t1")
	p = n.waitFor(t, 2) // the resolved event, sent in order before it, gave none
	want(t, p[1], "Clawboo: a task finished", "Ada finished a task (team Core).", "white_check_mark", "3")

	r.move("T-secret", board.InReview, "a1", "t1") // an edit in review
	r.move("T-secret", board.Done, "a1", "t1")     // a person's merge
	r.move("T-other", board.Done, "a1", "")        // never seen in progress
	r.move("T-fail", board.InProgress, "a1", "")
	r.move("T-fail", board.Blocked, "a1", "")
	r.move("T-fail", board.Todo, "a1", "")
	r.move("T-last", board.InProgress, "", "")
	r.move("T-last", board.Done, "", "")
	p = n.waitFor(t, 3)
	want(t, p[2], "Clawboo: a task finished", "An agent finished a task.", "white_check_mark", "3")

	r.ask("APPR-2", "a2", "nope") // control characters cleaned, an unknown team left out
	p = n.waitFor(t, 4)
	want(t, p[3], "Clawboo: an answer is needed", "Bo b is waiting for your answer.", "question", "4")
}

// No topic saved, or an empty one, sends nothing; a saved one applies to
// the next notice.
func TestOffSendsNothingAndAChangeAppliesAtOnce(t *testing.T) {
	n := newNtfy(t, nil)
	r := newRig(t, "", 0)

	r.ask("APPR-1", "a1", "t1") // no setting at all
	testkit.Eventually(t, 10*time.Second, "the first notice read the setting", func() bool { return r.set.readCount() >= 1 })
	if u, err := r.svc.SetURL(t.Context(), "  "); err != nil || u != "" {
		t.Fatalf("SetURL(blank) = %q, %v", u, err)
	}
	r.move("T1", board.InProgress, "a1", "")
	r.move("T1", board.InReview, "a1", "")
	testkit.Eventually(t, 10*time.Second, "the second notice read the setting", func() bool { return r.set.readCount() >= 2 })
	if got := n.got(); len(got) != 0 {
		t.Fatalf("off, yet %d POSTs: %+v", len(got), got)
	}

	if _, err := r.svc.SetURL(t.Context(), n.srv.URL+topic); err != nil {
		t.Fatal(err)
	}
	r.ask("APPR-3", "", "")
	p := n.waitFor(t, 1)
	want(t, p[0], "Clawboo: an answer is needed", "An agent is waiting for your answer.", "question", "4")
}

// A server that never answers holds the sender, not the buses: events keep
// being taken, the queue keeps 32 and drops the rest, and Close cuts the
// hanging POST short.
func TestAHangingServerBlocksNoPublisher(t *testing.T) {
	release := make(chan struct{})
	n := newNtfy(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	r := newRig(t, n.srv.URL+topic, time.Hour)

	r.ask("APPR-0", "a1", "t1")
	n.waitFor(t, 1) // the sender now hangs on it

	const more = 200 // over three times what the subscription buffers
	published := make(chan struct{})
	go func() {
		defer close(published)
		for i := range more {
			r.ask(fmt.Sprint("APPR-", i+1), "a1", "t1")
		}
	}()
	testkit.EventuallySays(t, 5*time.Second, "the follower to take every event while the server hangs", func() (bool, string) {
		r.svc.mu.Lock()
		defer r.svc.mu.Unlock()
		return len(r.svc.queue) == maxQueue && r.svc.dropped == more-maxQueue,
			fmt.Sprintf("%d waiting, %d dropped", len(r.svc.queue), r.svc.dropped)
	})
	<-published
	if !strings.Contains(r.log.String(), "a phone notice was dropped") {
		t.Errorf("no log line says a notice was dropped:\n%s", r.log.String())
	}

	closed := make(chan struct{})
	go func() { r.svc.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the hanging server")
	}
	if got := len(n.got()); got != 1 {
		t.Errorf("%d POSTs, want the one that hung", got)
	}
}

// The 33rd notice waiting drops the oldest, and says so.
func TestTheThirtyThirdNoticeDropsTheOldest(t *testing.T) {
	log := &testkit.SyncBuffer{}
	s := New(Options{Settings: &settings{}, Log: slog.New(slog.NewTextHandler(log, nil))})
	for i := 1; i <= maxQueue+1; i++ {
		s.enqueue(notice{kind: waiting, agentID: fmt.Sprint("a", i)})
	}
	var ids []string
	for {
		n, ok := s.next()
		if !ok {
			break
		}
		ids = append(ids, n.agentID)
	}
	if len(ids) != maxQueue || ids[0] != "a2" || ids[maxQueue-1] != "a33" {
		t.Fatalf("waiting after 33: %v", ids)
	}
	if s.dropped != 1 || strings.Count(log.String(), "dropped") != 1 {
		t.Errorf("dropped %d; log:\n%s", s.dropped, log.String())
	}
}

// A failing or silent server is one POST per notice, never retried, and its
// log line names the host, never the topic.
func TestAFailingServerIsLoggedNotRetried(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	var mu sync.Mutex
	calls := 0
	n := newNtfy(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		nth := calls
		mu.Unlock()
		switch nth {
		case 1:
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, `{"code":50001,"http":500,"error":"the cache is on fire"}`)
		case 2: // hangs past the sender's timeout
			select {
			case <-hang:
			case <-r.Context().Done():
			}
		}
	})
	r := newRig(t, n.srv.URL+topic, 200*time.Millisecond)

	r.ask("APPR-1", "a1", "t1")
	r.ask("APPR-2", "a1", "t1")
	r.ask("APPR-3", "a1", "t1")
	n.waitFor(t, 3)
	testkit.EventuallySays(t, 10*time.Second, "two failures logged", func() (bool, string) {
		return strings.Count(r.log.String(), "a phone notice was not delivered") == 2, r.log.String()
	})
	logged := r.log.String()
	host := strings.TrimPrefix(n.srv.URL, "http://")
	for _, w := range []string{host, "500 Internal Server Error", "the cache is on fire", "did not answer within 200ms"} {
		if !strings.Contains(logged, w) {
			t.Errorf("the log does not say %q:\n%s", w, logged)
		}
	}
	if strings.Contains(logged, topic) {
		t.Errorf("the log names the topic:\n%s", logged)
	}
	if got := len(n.got()); got != 3 {
		t.Errorf("%d POSTs for 3 notices", got)
	}
}

// The settings route's test notice: sent at once, its failure in words.
func TestTheTestNotice(t *testing.T) {
	var fail atomic.Bool
	n := newNtfy(t, func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"code":40301,"http":403,"error":"forbidden"}`)
		}
	})
	r := newRig(t, "", 0)
	if err := r.svc.Test(t.Context()); !errors.Is(err, ErrOff) {
		t.Fatalf("Test with no topic: %v", err)
	}
	if _, err := r.svc.SetURL(t.Context(), n.srv.URL+topic); err != nil {
		t.Fatal(err)
	}
	if err := r.svc.Test(t.Context()); err != nil {
		t.Fatal(err)
	}
	p := n.waitFor(t, 1)
	want(t, p[0], "Clawboo", "Clawboo can reach this phone.", "bell", "3")

	fail.Store(true)
	err := r.svc.Test(t.Context())
	if !errors.Is(err, ErrNotDelivered) || !strings.Contains(err.Error(), "403 Forbidden") || !strings.Contains(err.Error(), `"forbidden"`) || strings.Contains(err.Error(), topic) {
		t.Errorf("Test against a refusing server: %v", err)
	}
	_, _ = r.svc.SetURL(t.Context(), "http://127.0.0.1:1"+topic) // nothing listens there
	if err := r.svc.Test(t.Context()); !errors.Is(err, ErrNotDelivered) || strings.Contains(err.Error(), topic) {
		t.Errorf("Test against no server: %v", err)
	}
}

// Without the phones' listener a notice has no link.
func TestNoClickWithoutThePhonesListener(t *testing.T) {
	n := newNtfy(t, nil)
	set := &settings{}
	_ = set.PutSetting(t.Context(), Setting, n.srv.URL+topic, 0)
	s := New(Options{Settings: set, Address: func() string { return "" }})
	if err := s.Test(t.Context()); err != nil {
		t.Fatal(err)
	}
	if p := n.waitFor(t, 1); p[0].header.Values("Click") != nil {
		t.Errorf("a Click header with the listener off: %v", p[0].header.Values("Click"))
	}
	s.Close()
}

func TestCheckURL(t *testing.T) {
	for _, tc := range []struct{ in, want, refusal string }{
		{"https://ntfy.sh/my-topic", "https://ntfy.sh/my-topic", ""},
		{"  http://192.168.1.2:8080/alerts/  ", "http://192.168.1.2:8080/alerts/", ""},
		{"", "", ""},
		{"   ", "", ""},
		{"https://user:pass@ntfy.sh/t", "", "user name or password"},
		{"https://token@ntfy.sh/t", "", "user name or password"},
		{"ftp://ntfy.sh/t", "", "https://"},
		{"ntfy.sh/t", "", "https://"},
		{"javascript:alert(1)", "", "https://"},
		{"https://ntfy.sh", "", "name a topic"},
		{"https://ntfy.sh/", "", "name a topic"},
		{"https:///t", "", "name a server"},
		{"https://ntfy.sh/t?auth=x", "", "query"},
		{"https://ntfy.sh/t?", "", "query"},
		{"https://ntfy.sh/t#x", "", "fragment"},
		{"https://ntfy.sh/" + strings.Repeat("a", 2048), "", "2 KiB"},
		{"https://ntfy.sh/\x7f", "", "not a URL"},
	} {
		got, err := CheckURL(tc.in)
		switch {
		case tc.refusal == "" && (err != nil || got != tc.want):
			t.Errorf("CheckURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		case tc.refusal != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.refusal)):
			t.Errorf("CheckURL(%q) = %q, %v; want a refusal saying %q", tc.in, got, err, tc.refusal)
		}
	}
}

// roundTripper stands in for a DefaultTransport another part replaced.
type roundTripper struct{ http.RoundTripper }

// TestNewDoesNotNeedTheDefaultTransport: a process whose DefaultTransport
// is another type (the desktop app's tests wrap it) still gets a service.
func TestNewDoesNotNeedTheDefaultTransport(t *testing.T) {
	was := http.DefaultTransport
	http.DefaultTransport = roundTripper{was}
	defer func() { http.DefaultTransport = was }()
	if s := New(Options{}); s == nil || s.tr == nil {
		t.Fatal("no service")
	}
}
