package notices

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/bus"
)

// Bounds.
const (
	maxQueue   = 32      // notices waiting for the sender
	maxAnswer  = 4 << 10 // bytes of a server's answer read
	maxTracked = 4096    // tasks in progress remembered
	maxName    = 60      // runes of a name in a notice
	subBuf     = 64      // each bus subscription's buffer
	// DefaultTimeout bounds one POST.
	DefaultTimeout = 10 * time.Second
	lookupTimeout  = 5 * time.Second // a name or the setting
)

// Source is a bus the service follows: the approvals queue, the board's
// broker.
type Source[T any] interface {
	Subscribe(buf int) *bus.Subscription[T]
}

// Names finds display names by id ("" when there is none).
type Names interface {
	AgentName(ctx context.Context, id string) string
	TeamName(ctx context.Context, id string) string
}

// Options wire a Service.
type Options struct {
	Settings  Settings               // where the topic URL is kept
	Approvals Source[approval.Event] // nil: approvals are not followed
	Board     Source[board.Event]    // nil: tasks are not followed
	Names     Names                  // nil: every agent is "An agent"
	// Address is the phones' listener's host:port ("" while it is off);
	// nil: notices carry no link.
	Address func() string
	Log     *slog.Logger
	Now     func() time.Time
	Timeout time.Duration // one POST (0: DefaultTimeout)
}

// kind is what a notice says.
type kind int

const (
	waiting kind = iota + 1
	finished
	test
)

// notice is one notice waiting for the sender: ids only, names are
// looked up when it is sent.
type notice struct {
	kind          kind
	agentID, team string
}

// Service follows the buses and sends notices.
type Service struct {
	opts   Options
	client *http.Client
	tr     *http.Transport

	mu      sync.Mutex
	queue   []notice
	dropped int
	wake    chan struct{}

	stop context.CancelFunc
	done sync.WaitGroup
}

// New makes the service; Start follows the buses.
func New(opts Options) *Service {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	// A transport of its own: never the process's DefaultTransport, which
	// another part (a test's, a proxy's) may have replaced by another type.
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: opts.Timeout, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          2,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   opts.Timeout,
		ExpectContinueTimeout: time.Second,
	}
	return &Service{
		opts: opts, tr: tr, wake: make(chan struct{}, 1),
		client: &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // one POST, to the URL the person saved
		}},
	}
}

// Start subscribes to the buses now (nothing published after Start is
// missed) and follows them until ctx ends or Close.
func (s *Service) Start(ctx context.Context) {
	ctx, s.stop = context.WithCancel(ctx)
	appr := newFeed(s.opts.Approvals, "approvals", s.opts.Log)
	tasks := newFeed(s.opts.Board, "the board", s.opts.Log)
	s.done.Add(2)
	go func() {
		defer s.done.Done()
		s.follow(ctx, appr, tasks)
	}()
	go func() {
		defer s.done.Done()
		s.send(ctx)
	}()
}

// Close stops following and sending (an in-flight POST is cut short) and
// waits for both.
func (s *Service) Close() {
	if s.stop != nil {
		s.stop()
	}
	s.done.Wait()
	s.tr.CloseIdleConnections()
}

// feed is one followed bus, subscribed again when it evicted a slow
// reader (which following never is for long), gone when it closed.
type feed[T any] struct {
	src  Source[T]
	sub  *bus.Subscription[T]
	name string
	log  *slog.Logger
}

func newFeed[T any](src Source[T], name string, log *slog.Logger) *feed[T] {
	f := &feed[T]{src: src, name: name, log: log}
	if src != nil {
		f.sub = src.Subscribe(subBuf)
	}
	return f
}

// c is the feed's channel (nil when gone: a select never takes it).
func (f *feed[T]) c() <-chan T {
	if f.sub == nil {
		return nil
	}
	return f.sub.C()
}

// ended handles a closed channel.
func (f *feed[T]) ended() {
	if f.sub.Evicted() {
		f.log.Warn("phone notices fell behind "+f.name+" and follow it again; some may be missing", "bus", f.name)
		f.sub = f.src.Subscribe(subBuf)
		return
	}
	f.sub = nil
}

func (f *feed[T]) close() {
	if f.sub != nil {
		f.sub.Close()
	}
}

// follow turns events into queued notices; it never waits for the network
// or the database.
func (s *Service) follow(ctx context.Context, appr *feed[approval.Event], tasks *feed[board.Event]) {
	defer appr.close()
	defer tasks.close()
	inProgress := map[string]struct{}{}
	for appr.sub != nil || tasks.sub != nil {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-appr.c():
			if !ok {
				appr.ended()
				continue
			}
			if ev.Kind == "requested" {
				s.enqueue(notice{kind: waiting, agentID: ev.Approval.AgentID, team: ev.Approval.TeamID})
			}
		case ev, ok := <-tasks.c():
			if !ok {
				tasks.ended()
				continue
			}
			if n, ok := taskFinished(inProgress, ev); ok {
				s.enqueue(n)
			}
		}
	}
	<-ctx.Done()
}

// taskFinished says whether a board event is a task reaching In review or
// Done from In progress, remembering the tasks in progress.
func taskFinished(inProgress map[string]struct{}, ev board.Event) (notice, bool) {
	t := ev.Task
	if ev.Kind != "task" || t == nil {
		return notice{}, false
	}
	if t.Status == board.InProgress {
		if len(inProgress) < maxTracked {
			inProgress[t.ID] = struct{}{}
		}
		return notice{}, false
	}
	_, was := inProgress[t.ID]
	delete(inProgress, t.ID)
	if !was || (t.Status != board.InReview && t.Status != board.Done) {
		return notice{}, false
	}
	n := notice{kind: finished}
	if t.AssigneeAgentID != nil {
		n.agentID = *t.AssigneeAgentID
	}
	if t.TeamID != nil {
		n.team = *t.TeamID
	}
	return n, true
}

// enqueue adds a notice for the sender; a full queue drops its oldest.
func (s *Service) enqueue(n notice) {
	s.mu.Lock()
	dropped := len(s.queue) >= maxQueue
	if dropped {
		s.queue = append(s.queue[:0], s.queue[1:]...)
		s.dropped++
	}
	s.queue = append(s.queue, n)
	s.mu.Unlock()
	if dropped {
		s.opts.Log.Warn("a phone notice was dropped: 32 were already waiting for the ntfy server")
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// next takes the oldest waiting notice.
func (s *Service) next() (notice, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return notice{}, false
	}
	n := s.queue[0]
	s.queue = append(s.queue[:0], s.queue[1:]...)
	return n, true
}

// send is the one sender: each notice once, in order.
func (s *Service) send(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		}
		for ctx.Err() == nil {
			n, ok := s.next()
			if !ok {
				break
			}
			s.deliver(ctx, n)
		}
	}
}

// deliver sends one notice to the saved topic, if there is one.
func (s *Service) deliver(ctx context.Context, n notice) {
	rctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	topic, err := s.URL(rctx)
	cancel()
	if err != nil {
		s.opts.Log.Warn("a phone notice was not sent: the setting could not be read", "err", err)
		return
	}
	if topic == "" {
		return // off
	}
	if err := s.post(ctx, topic, s.compose(ctx, n)); err != nil && ctx.Err() == nil {
		s.opts.Log.Warn("a phone notice was not delivered", "host", hostOf(topic), "err", err)
	}
}

// Test sends one test notice to the saved topic now and says whether the
// server took it.
func (s *Service) Test(ctx context.Context) error {
	topic, err := s.URL(ctx)
	if err != nil {
		return err
	}
	if topic == "" {
		return ErrOff
	}
	return s.post(ctx, topic, s.compose(ctx, notice{kind: test}))
}

// message is what one POST carries.
type message struct {
	title, body, tags, priority, click string
}

// compose fills a notice's fixed phrase with names, and nothing else.
func (s *Service) compose(ctx context.Context, n notice) message {
	m := message{}
	if s.opts.Address != nil {
		if addr := s.opts.Address(); addr != "" {
			m.click = "https://" + addr + "/m"
		}
	}
	if n.kind == test {
		m.title, m.body, m.tags, m.priority = "Clawboo", "Clawboo can reach this phone.", "bell", "3"
		return m
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	agent, team := "", ""
	if s.opts.Names != nil {
		if n.agentID != "" {
			agent = cleanName(s.opts.Names.AgentName(ctx, n.agentID))
		}
		if n.team != "" {
			team = cleanName(s.opts.Names.TeamName(ctx, n.team))
		}
	}
	if agent == "" {
		agent = "An agent"
	}
	switch n.kind {
	case waiting:
		m.title, m.tags, m.priority = "Clawboo: an answer is needed", "question", "4"
		m.body = agent + " is waiting for your answer."
		if team != "" {
			m.body = agent + " (team " + team + ") is waiting for your answer."
		}
	default:
		m.title, m.tags, m.priority = "Clawboo: a task finished", "white_check_mark", "3"
		m.body = agent + " finished a task."
		if team != "" {
			m.body = agent + " finished a task (team " + team + ")."
		}
	}
	return m
}

// cleanName is a display name fit for one line of a notice.
func cleanName(name string) string {
	name = strings.Join(strings.FieldsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if r := []rune(name); len(r) > maxName {
		name = string(r[:maxName-1]) + "…"
	}
	return name
}

// post is one POST to the topic: the message as the body, ntfy's headers,
// no retry. Its error never holds the URL.
func (s *Service) post(ctx context.Context, topic string, m message) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, topic, strings.NewReader(m.body))
	if err != nil {
		return fmt.Errorf("%w: the topic URL is unusable", ErrNotDelivered)
	}
	h := req.Header
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Title", m.title)
	h.Set("Tags", m.tags)
	h.Set("Priority", m.priority)
	if m.click != "" {
		h.Set("Click", m.click)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error names the URL, whose path is the topic
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("%w: the ntfy server at %s did not answer within %v", ErrNotDelivered, hostOf(topic), s.opts.Timeout)
		}
		return fmt.Errorf("%w: the ntfy server at %s could not be reached: %v", ErrNotDelivered, hostOf(topic), err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%w: the ntfy server at %s answered %s%s", ErrNotDelivered, hostOf(topic), resp.Status, serverSays(answer))
	}
	return nil
}

// serverSays is ntfy's own error in words ({"error": "…"}), cut short, or
// nothing.
func serverSays(answer []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(answer, &e) != nil || strings.TrimSpace(e.Error) == "" {
		return ""
	}
	return ` ("` + cleanName(e.Error) + `")`
}
