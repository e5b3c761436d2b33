package native

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/llm"
)

// reply is one scripted provider response.
type reply struct {
	events  []llm.Event
	openErr error           // Stream itself fails
	endErr  error           // the stream ends with this error instead of Done
	hold    bool            // after events, wait until closed or cancelled
	gate    <-chan struct{} // wait for this before answering
}

// fakeProvider is a scripted in-memory llm.Provider that records every
// request (deep-copied) it gets.
type fakeProvider struct {
	id     string
	script func(n int, req llm.Request) reply

	mu     sync.Mutex
	reqs   []llm.Request
	models []string // SetModel calls, when used as a ModelSetter
}

func (p *fakeProvider) ID() string { return p.id }

func (p *fakeProvider) Stream(ctx context.Context, req llm.Request) (llm.Stream, error) {
	b, _ := json.Marshal(req)
	var cp llm.Request
	_ = json.Unmarshal(b, &cp)
	p.mu.Lock()
	p.reqs = append(p.reqs, cp)
	n := len(p.reqs)
	p.mu.Unlock()
	r := p.script(n, req)
	if r.gate != nil {
		select {
		case <-r.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if r.openErr != nil {
		return nil, r.openErr
	}
	return &fakeStream{ctx: ctx, r: r, closed: make(chan struct{})}, nil
}

func (p *fakeProvider) requests() []llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]llm.Request(nil), p.reqs...)
}

type fakeStream struct {
	ctx       context.Context
	r         reply
	i         int
	err       error
	closed    chan struct{}
	closeOnce sync.Once
}

func (s *fakeStream) Next() (llm.Event, bool) {
	if s.err != nil {
		return llm.Event{}, false
	}
	if s.i < len(s.r.events) {
		s.i++
		return s.r.events[s.i-1], true
	}
	if s.r.hold {
		select {
		case <-s.closed:
			s.err = errors.New("stream closed")
		case <-s.ctx.Done():
			s.err = s.ctx.Err()
		}
		return llm.Event{}, false
	}
	if s.r.endErr != nil {
		s.err = s.r.endErr
	}
	return llm.Event{}, false
}

func (s *fakeStream) Err() error { return s.err }
func (s *fakeStream) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	return nil
}

// Script helpers.

func say(text string, in, out int64) reply {
	return reply{events: []llm.Event{
		{Kind: llm.EvText, Text: text},
		{Kind: llm.EvDone, Usage: llm.Usage{InputTokens: in, OutputTokens: out}, StopReason: "end_turn"},
	}}
}

func callTool(id, name, input string, in, out int64) reply {
	return reply{events: []llm.Event{
		{Kind: llm.EvThinking, Text: "let me look"},
		{Kind: llm.EvToolCall, Call: &llm.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}},
		{Kind: llm.EvDone, Usage: llm.Usage{InputTokens: in, OutputTokens: out}, StopReason: "tool_use"},
	}}
}

// overflowErr says it is a context overflow the way llm's errors can.
type overflowErr struct{}

func (overflowErr) Error() string         { return "request rejected" }
func (overflowErr) ContextOverflow() bool { return true }

// env is one adapter wired to a fake provider.
type env struct {
	t     *testing.T
	home  string
	cfg   AgentConfig
	prov  *fakeProvider
	cfgs  []AgentConfig // configs the provider factory was called with
	mu    sync.Mutex
	opts  Options
	adapt *Adapter
}

var fixedNow = time.Date(2026, 11, 29, 23, 30, 0, 0, time.UTC)

func newEnv(t *testing.T, script func(n int, req llm.Request) reply) *env {
	e := &env{t: t, home: t.TempDir(), cfg: DefaultConfig(), prov: &fakeProvider{id: "anthropic", script: script}}
	e.opts = Options{
		Home:   e.home,
		Config: func(context.Context, string) AgentConfig { return e.cfg },
		Providers: func(_ context.Context, c AgentConfig) (llm.Provider, error) {
			e.mu.Lock()
			e.cfgs = append(e.cfgs, c)
			e.mu.Unlock()
			return e.prov, nil
		},
		Now: func() time.Time { return fixedNow },
	}
	e.adapt = New(e.opts)
	return e
}

var runSeq int

func (e *env) start(req executor.StartRequest) executor.Run {
	e.t.Helper()
	runSeq++
	if req.RunID == "" {
		req.RunID = executor.RunID("run-" + strings.Repeat("x", runSeq%3) + time.Now().Format("150405.000000"))
	}
	if req.AgentID == "" {
		req.AgentID = "agent-1"
	}
	req.Emitter = executor.NewEmitter(req.RunID, 0)
	r, err := e.adapt.Start(context.Background(), req)
	if err != nil {
		e.t.Fatalf("start: %v", err)
	}
	return r
}

// userText is all text of a message.
func userText(m llm.Message) string {
	var b strings.Builder
	for _, bl := range m.Content {
		b.WriteString(bl.Text)
		b.WriteString("\n")
	}
	return b.String()
}
