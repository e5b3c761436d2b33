package openclaw

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
	"github.com/clawboo/desktop/internal/testkit"
)

// Acceptance tests against the real Gateway (openclaw 2026.9.6 under Node
// 24) and the scripted Responses API fake as its model provider.

type realEnv struct {
	g    *realGW
	c    *Client
	a    *Adapter
	logs *testkit.SyncBuffer
}

func newRealEnv(t testing.TB, rules ...fakeresponses.Rule) *realEnv {
	t.Helper()
	g := realGateway(t)
	g.Fake.SetRules(rules...)
	logs := &testkit.SyncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	id, err := LoadIdentity(filepath.Join(t.TempDir(), "runtimes", "openclaw"))
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(ClientOptions{
		Identity: id, Log: log, RequestTimeout: 60 * time.Second,
		Settings: func(context.Context) Settings { return Settings{URL: g.URL, Token: sentinelToken} },
	})
	c.Start()
	t.Cleanup(c.Close)
	e := &realEnv{g: g, c: c, a: New(Options{Client: c, Log: log}), logs: logs}
	t.Cleanup(func() { e.noSecrets(t, logs.String()) })
	return e
}

// noSecrets fails when the Gateway token or the provider key shows up.
func (e *realEnv) noSecrets(t testing.TB, s string) {
	t.Helper()
	for _, secret := range []string{sentinelToken, sentinelKey} {
		if strings.Contains(s, secret) {
			t.Fatalf("a secret leaked: %.200s", s[strings.Index(s, secret)-min(100, strings.Index(s, secret)):])
		}
	}
}

func (e *realEnv) start(t *testing.T, msg, resume string) (executor.Run, executor.RunID) {
	t.Helper()
	id := executor.RunID("acc-" + newIdempotencyKey()[:8])
	req := executor.StartRequest{
		RunID: id, AgentID: "ag-acc", SessionKey: "acc-" + string(id), Resume: resume,
		Message: msg, Emitter: executor.NewEmitter(id, 0),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := e.a.Start(ctx, req)
	if err != nil {
		t.Fatalf("start %q: %v\ngateway log tail:\n%s", msg, err, tail(e.g.Log(), 3000))
	}
	return r, id
}

// collect reads the rest of the run (after the events already seen) and
// checks the whole stream.
func (e *realEnv) collect(t *testing.T, r executor.Run, id executor.RunID, seen ...executor.Event) ([]executor.Event, executor.Event) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	evs := append(seen, executortest.Collect(t, ctx, r)...)
	b, _ := json.Marshal(evs)
	e.noSecrets(t, string(b))
	return evs, executortest.CheckStream(t, id, evs)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func texts(evs []executor.Event) (n int, all string) {
	for _, e := range evs {
		if e.Kind == executor.KindTextDelta && e.Channel == executor.ChannelAssistant {
			n++
			all += e.Text
		}
	}
	return n, all
}

// firstText waits until the run has streamed some text, returning the
// events read so far.
func firstText(t *testing.T, r executor.Run) []executor.Event {
	t.Helper()
	var evs []executor.Event
	timeout := time.After(60 * time.Second)
	for {
		select {
		case e, ok := <-r.Events():
			if !ok {
				t.Fatalf("the run ended before any text: %+v", evs)
			}
			evs = append(evs, e)
			if e.Kind == executor.KindTextDelta {
				return evs
			}
		case <-timeout:
			t.Fatalf("no text in 60 s: %+v", evs)
		}
	}
}

func slowText(match string, words int, delay time.Duration) fakeresponses.Rule {
	var chunks []string
	for i := 0; i < words; i++ {
		chunks = append(chunks, "word"+string(rune('a'+i%26))+" ")
	}
	return fakeresponses.Rule{Match: match, Steps: []fakeresponses.Step{{Text: strings.Join(chunks, ""), Chunks: chunks, Delay: delay}}}
}

func TestRealChatRoundTripStreamsTextAndTools(t *testing.T) {
	e := newRealEnv(t,
		slowText("stream-please", 6, 150*time.Millisecond),
		fakeresponses.Rule{Match: "read-please", Steps: []fakeresponses.Step{
			{Call: &fakeresponses.Call{Tool: "^read$", Args: `{"path":"` + filepath.Join(realGateway(t).Work, "hello.txt") + `"}`}},
			{Text: "Read said: {result}"},
		}})
	r, id := e.start(t, "stream-please", "")
	evs, done := e.collect(t, r, id)
	n, all := texts(evs)
	if done.Reason != executor.DoneSuccess || n < 3 || !strings.Contains(all, "worda wordb") || !strings.Contains(done.Summary, "worda") {
		t.Fatalf("done %+v, %d deltas %q", done, n, all)
	}
	var session, model string
	for _, ev := range evs {
		if ev.Kind == executor.KindStatus && ev.Session != "" {
			session = ev.Session
		}
		if ev.Kind == executor.KindStatus && ev.Model != "" {
			model = ev.Model
		}
	}
	if !strings.HasPrefix(session, "agent:main:clawboo-") || model != "fakeoai/fake-model" {
		t.Fatalf("session %q model %q", session, model)
	}
	// A tool turn on the same session (resume handle): the built-in read.
	r2, id2 := e.start(t, "read-please", session)
	evs2, done2 := e.collect(t, r2, id2)
	var call, result executor.Event
	for _, ev := range evs2 {
		switch ev.Kind {
		case executor.KindToolCall:
			call = ev
		case executor.KindToolResult:
			result = ev
		}
	}
	if call.Name != "read" || !strings.Contains(string(call.Input), "hello.txt") ||
		result.ToolCallID != call.ToolCallID || !strings.Contains(result.Output, "hello from the workspace file") || result.IsError {
		t.Fatalf("tool events call %+v result %+v", call, result)
	}
	if done2.Reason != executor.DoneSuccess || !strings.Contains(done2.Summary, "Read said: hello from the workspace file") {
		t.Fatalf("done %+v", done2)
	}
	// The provider saw the key from the Gateway config; it never reached us.
	reqs := e.g.Fake.Requests()
	if len(reqs) == 0 || reqs[len(reqs)-1].APIKey != sentinelKey {
		t.Fatal("the fake provider was not called with the configured key")
	}
}

func TestRealAbort(t *testing.T) {
	e := newRealEnv(t, slowText("abort-me", 40, 400*time.Millisecond))
	r, id := e.start(t, "abort-me", "")
	seen := firstText(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.Abort(ctx); err != nil {
		t.Fatal(err)
	}
	evs, done := e.collect(t, r, id, seen...)
	if done.Reason != executor.DoneAborted {
		t.Fatalf("done %+v", done)
	}
	if n, _ := texts(evs); n >= 40 {
		t.Fatalf("all %d words streamed: the abort did not stop the run", n)
	}
}

func TestRealModelChange(t *testing.T) {
	e := newRealEnv(t, slowText("model-hold", 8, 200*time.Millisecond), fakeresponses.Text("model-after", "after the switch"))
	r, id := e.start(t, "model-hold", "")
	seen := firstText(t, r)
	var session string
	for _, ev := range seen {
		if ev.Session != "" {
			session = ev.Session
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.SetModel(ctx, "fakeoai/fake-model-2"); err != nil {
		t.Fatalf("sessions.patch: %v", err)
	}
	e.collect(t, r, id, seen...)
	r2, id2 := e.start(t, "model-after", session)
	evs, done := e.collect(t, r2, id2)
	if done.Reason != executor.DoneSuccess {
		t.Fatalf("done %+v", done)
	}
	model := ""
	for _, ev := range evs {
		if ev.Model != "" && ev.Session == "" {
			model = ev.Model
		}
	}
	var sent string
	for _, q := range e.g.Fake.Requests() {
		if strings.Contains(q.UserText, "model-after") {
			sent = q.Model
		}
	}
	if sent != "fake-model-2" || model != "fakeoai/fake-model-2" {
		t.Fatalf("after sessions.patch the provider got model %q and the run reported %q", sent, model)
	}
}

func TestRealSteer(t *testing.T) {
	e := newRealEnv(t, slowText("steer-hold", 12, 300*time.Millisecond))
	r, id := e.start(t, "steer-hold", "")
	seen := firstText(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := r.Steer(ctx, executor.Steer{Text: "STEER-NOTE-7 please also say bye", Mode: executor.SteerNext})
	if err != nil || res != executor.SteerDelivered {
		t.Fatalf("steer %q %v", res, err)
	}
	evs, _ := e.collect(t, r, id, seen...)
	if _, all := texts(evs); strings.Contains(all, "STEER-NOTE") {
		t.Fatalf("the steer's text reached the run's events: %q", all)
	}
	steered := false
	for _, q := range e.g.Fake.Requests() {
		if strings.Contains(string(q.Body), "STEER-NOTE-7") {
			steered = true
		}
	}
	if !steered {
		t.Fatal("the steer never reached the model")
	}
}

func TestRealProviderError(t *testing.T) {
	e := newRealEnv(t, fakeresponses.Rule{Match: "fail-please", Steps: []fakeresponses.Step{{Status: 400}}})
	r, id := e.start(t, "fail-please", "")
	evs, done := e.collect(t, r, id)
	var fatal executor.Event
	for _, ev := range evs {
		if ev.Kind == executor.KindError && ev.Fatal {
			fatal = ev
		}
	}
	if done.Reason != executor.DoneError || !strings.Contains(fatal.Message, "LLM request failed") {
		t.Fatalf("done %+v fatal %+v", done, fatal)
	}
}

// A second message while the session is busy: the Gateway acknowledges
// it, closes its run id at once and answers it in a later run of the
// session, which the second run follows; each run gets its own answer.
func TestRealSecondMessageWhileBusyIsAnsweredByALaterRun(t *testing.T) {
	e := newRealEnv(t, slowText("busy-first", 10, 200*time.Millisecond), fakeresponses.Text("busy-second", "second answer"))
	r1, id1 := e.start(t, "busy-first", "")
	seen := firstText(t, r1)
	var session string
	for _, ev := range seen {
		if ev.Session != "" {
			session = ev.Session
		}
	}
	r2, id2 := e.start(t, "busy-second", session)
	_, done1 := e.collect(t, r1, id1, seen...)
	_, done2 := e.collect(t, r2, id2)
	if done1.Reason != executor.DoneSuccess || !strings.Contains(done1.Summary, "worda") {
		t.Fatalf("first %+v", done1)
	}
	if done2.Reason != executor.DoneSuccess || done2.Summary != "second answer" {
		t.Fatalf("second %+v", done2)
	}
}

// A start request's model (an agent's configured Gateway model) applies
// from the first turn of a fresh session.
func TestRealStartModelAppliesToAFreshSession(t *testing.T) {
	e := newRealEnv(t, fakeresponses.Text("fresh-model", "fresh"))
	id := executor.RunID("acc-" + newIdempotencyKey()[:8])
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := e.a.Start(ctx, executor.StartRequest{
		RunID: id, AgentID: "ag-acc", SessionKey: "fresh-" + string(id),
		Message: "fresh-model", Model: "fakeoai/fake-model-2", Emitter: executor.NewEmitter(id, 0),
	})
	if err != nil {
		t.Fatal(err)
	}
	e.collect(t, r, id)
	var sent string
	for _, q := range e.g.Fake.Requests() {
		if strings.Contains(q.UserText, "fresh-model") {
			sent = q.Model
		}
	}
	if sent != "fake-model-2" {
		t.Fatalf("the provider got model %q for a fresh session started with fakeoai/fake-model-2", sent)
	}
}
