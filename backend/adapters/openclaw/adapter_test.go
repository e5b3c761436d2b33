package openclaw

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
)

// scripted makes the double act like the Gateway for chat.send: the
// message picks the scenario.
//
//	success   lifecycle start, a tool call and result, text, final
//	hold      lifecycle start and text, then nothing until chat.abort
//	handoff   the ack's run closes without a message; a later run answers
//
// A steer (queueMode "steer") is confirmed with its own run's final (and
// a text frame of that run that must never reach the run's events),
// unless steerSilent is set.
type scripted struct {
	d             *double
	abortConfirms atomic.Bool
	steerSilent   atomic.Bool
	ackStatus     atomic.Value // string; default "started"
}

func newScripted(t testing.TB) *scripted {
	s := &scripted{d: newDouble(t)}
	s.abortConfirms.Store(true)
	s.d.handle("chat.send", s.chatSend)
	s.d.handle("chat.abort", func(c *dconn, id string, p json.RawMessage) {
		c.ok(id, map[string]any{"ok": true, "aborted": true})
		if s.abortConfirms.Load() {
			key, run := param(s.d.t, p, "sessionKey").(string), param(s.d.t, p, "runId")
			if r, ok := run.(string); ok {
				c.event("chat", map[string]any{"runId": r, "sessionKey": key, "state": "aborted", "stopReason": "rpc"})
			}
		}
	})
	return s
}

func chatEv(c *dconn, run, key, state string, extra map[string]any) {
	p := map[string]any{"runId": run, "sessionKey": key, "state": state}
	for k, v := range extra {
		p[k] = v
	}
	c.event("chat", p)
}

func agentEv(c *dconn, run, key, stream string, data map[string]any) {
	c.event("agent", map[string]any{"runId": run, "sessionKey": key, "stream": stream, "data": data})
}

func textMsg(s string) map[string]any {
	return map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": s}}}
}

func (s *scripted) chatSend(c *dconn, id string, p json.RawMessage) {
	var req struct {
		SessionKey, Message, IdempotencyKey, QueueMode string
		Deliver                                        *bool
	}
	_ = json.Unmarshal(p, &req)
	run, key := req.IdempotencyKey, req.SessionKey
	status, _ := s.ackStatus.Load().(string)
	if status == "" {
		status = "started"
	}
	c.ok(id, map[string]any{"runId": run, "status": status})
	if status != "started" {
		return
	}
	if req.QueueMode == "steer" {
		if s.steerSilent.Load() {
			return
		}
		agentEv(c, run, key, "assistant", map[string]any{"delta": "STEER-LEAK"})
		chatEv(c, run, key, "delta", map[string]any{"deltaText": "STEER-LEAK"})
		chatEv(c, run, key, "final", nil)
		return
	}
	switch {
	case strings.Contains(req.Message, "success"):
		agentEv(c, run, key, "lifecycle", map[string]any{"phase": "start"})
		agentEv(c, run, key, "lifecycle", map[string]any{"phase": "model", "provider": "fakeoai", "model": "fake-model"})
		agentEv(c, run, key, "tool", map[string]any{"phase": "start", "name": "read", "toolCallId": "t1", "args": map[string]any{"path": "a"}})
		c.event("session.message", map[string]any{"sessionKey": key, "message": map[string]any{
			"role":    "assistant",
			"content": []any{map[string]any{"type": "toolCall", "id": "t1", "name": "read", "arguments": map[string]any{"path": "a"}}},
		}})
		agentEv(c, run, key, "tool", map[string]any{"phase": "result", "name": "read", "toolCallId": "t1", "result": "body"})
		agentEv(c, run, key, "assistant", map[string]any{"delta": "done reading"})
		chatEv(c, run, key, "delta", map[string]any{"deltaText": "done reading"})
		agentEv(c, run, key, "lifecycle", map[string]any{"phase": "end"})
		chatEv(c, run, key, "final", map[string]any{"message": textMsg("done reading")})
	case strings.Contains(req.Message, "hold"):
		agentEv(c, run, key, "lifecycle", map[string]any{"phase": "start"})
		chatEv(c, run, key, "delta", map[string]any{"deltaText": "working"})
	case strings.Contains(req.Message, "handoff"):
		chatEv(c, run, key, "final", nil) // queued into the session's next run
		later := "gw-run-later"
		time.Sleep(20 * time.Millisecond)
		// An earlier run's late frames: not ours, the message is not
		// recorded yet.
		chatEv(c, "gw-run-earlier", key, "delta", map[string]any{"deltaText": "NOT-OURS"})
		chatEv(c, "gw-run-earlier", key, "final", map[string]any{"message": textMsg("NOT-OURS")})
		agentEv(c, later, key, "lifecycle", map[string]any{"phase": "start"})
		c.event("session.message", map[string]any{"sessionKey": key, "message": map[string]any{
			"role":    "user",
			"content": req.Message, "idempotencyKey": run + ":user",
		}})
		chatEv(c, later, key, "delta", map[string]any{"deltaText": "answered later"})
		chatEv(c, later, key, "final", map[string]any{"message": textMsg("answered later")})
	}
}

func (s *scripted) adapter(t testing.TB, mutate ...func(*Options)) *Adapter {
	o := Options{Client: s.d.client(t), AbortGrace: 300 * time.Millisecond}
	for _, f := range mutate {
		f(&o)
	}
	return New(o)
}

func startReq(msg string) executor.StartRequest {
	id := executor.RunID("run-" + newIdempotencyKey()[:8])
	return executor.StartRequest{
		RunID: id, AgentID: "ag1", SessionKey: "agent:ag1:chat", Message: msg,
		Context: "CONTEXT-ABOVE", Emitter: executor.NewEmitter(id, 0),
	}
}

func TestContractAgainstDouble(t *testing.T) {
	s := newScripted(t)
	executortest.RunContract(t, executortest.Harness{
		New: func(t *testing.T) executor.Adapter { return s.adapter(t) },
		Request: func(t *testing.T, scenario string) executor.StartRequest {
			return executor.StartRequest{AgentID: "ag1", SessionKey: "contract-" + newIdempotencyKey(), Message: scenario}
		},
		Timeout: 10 * time.Second,
	})
}

func TestStartSendsContextAboveTheMessage(t *testing.T) {
	s := newScripted(t)
	a := s.adapter(t)
	req := startReq("success please")
	r, err := a.Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	evs := executortest.CollectWithin(t, 10*time.Second, r)
	done := executortest.CheckStream(t, req.RunID, evs)
	if done.Reason != executor.DoneSuccess || done.Summary != "done reading" {
		t.Fatalf("done %+v", done)
	}
	send := s.d.requests("chat.send")[0]
	var p map[string]any
	_ = json.Unmarshal(send.Params, &p)
	if p["message"] != "CONTEXT-ABOVE\n\nsuccess please" || p["deliver"] != false || p["sessionKey"] != "agent:main:clawboo-agent-ag1-chat-"+p["sessionKey"].(string)[len("agent:main:clawboo-agent-ag1-chat-"):] {
		t.Fatalf("chat.send %v", p)
	}
	if k, _ := p["idempotencyKey"].(string); len(k) != 36 {
		t.Fatalf("idempotency key %q", k)
	}
	// One of each tool event despite three frames carrying them; the
	// text once (the agent assistant stream repeats the chat delta).
	var calls, results, texts int
	var init executor.Event
	for _, e := range evs {
		switch e.Kind {
		case executor.KindToolCall:
			calls++
		case executor.KindToolResult:
			results++
		case executor.KindTextDelta:
			texts++
		case executor.KindStatus:
			if e.Phase == executor.PhaseInit {
				init = e
			}
		}
	}
	if calls != 1 || results != 1 || texts != 1 {
		t.Fatalf("calls %d results %d texts %d: %+v", calls, results, texts, evs)
	}
	if !strings.HasPrefix(init.Session, "agent:main:clawboo-") {
		t.Fatalf("the session key is not reported as the resume handle: %+v", init)
	}
	// The next run of the conversation resumes the same session.
	req2 := startReq("success again")
	req2.Resume = init.Session
	r2, err := a.Start(context.Background(), req2)
	if err != nil {
		t.Fatal(err)
	}
	executortest.CollectWithin(t, 10*time.Second, r2)
	if got := param(t, s.d.requests("chat.send")[1].Params, "sessionKey"); got != init.Session {
		t.Fatalf("resumed on %v, want %s", got, init.Session)
	}
}

func TestAckThatStartedNoRunIsAnError(t *testing.T) {
	s := newScripted(t)
	a := s.adapter(t)
	for _, st := range []string{"in_flight", "ok"} {
		s.ackStatus.Store(st)
		if _, err := a.Start(context.Background(), startReq("success")); err == nil || !strings.Contains(err.Error(), "did not start a run") {
			t.Fatalf("status %s: err %v", st, err)
		}
	}
	if n := len(a.LiveSessions()); n != 0 {
		t.Fatalf("%d live sessions after refused starts", n)
	}
}

func TestHandedOffMessageIsAnsweredByTheLaterRun(t *testing.T) {
	s := newScripted(t)
	req := startReq("handoff")
	r, err := s.adapter(t).Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	done := executortest.CheckStream(t, req.RunID, executortest.CollectWithin(t, 10*time.Second, r))
	if done.Reason != executor.DoneSuccess || done.Summary != "answered later" {
		t.Fatalf("done %+v", done)
	}
}

func TestSteerDeliveredAndItsRunStaysOut(t *testing.T) {
	s := newScripted(t)
	req := startReq("hold")
	r, err := s.adapter(t).Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Steer(context.Background(), executor.Steer{Text: "also check tests", Mode: executor.SteerNext})
	if err != nil || res != executor.SteerDelivered {
		t.Fatalf("steer %q %v", res, err)
	}
	sends := s.d.requests("chat.send")
	if param(t, sends[1].Params, "queueMode") != "steer" || param(t, sends[1].Params, "message") != "also check tests" {
		t.Fatalf("steer request %s", sends[1].Params)
	}
	_ = r.Abort(context.Background())
	for _, e := range executortest.CollectWithin(t, 10*time.Second, r) {
		if strings.Contains(e.Text+e.Summary, "STEER-LEAK") {
			t.Fatalf("a frame of the steer's own run reached the events: %+v", e)
		}
	}
}

func TestUnreadSteerAtTheEndIsRunEnded(t *testing.T) {
	s := newScripted(t)
	s.steerSilent.Store(true)
	req := startReq("hold")
	r, err := s.adapter(t).Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan executor.SteerResult, 1)
	go func() {
		res, _ := r.Steer(context.Background(), executor.Steer{Text: "too late", Mode: executor.SteerNext})
		got <- res
	}()
	steer := s.d.waitRequest("chat.send", 2)[1]
	steerRun := param(t, steer.Params, "idempotencyKey")
	// The run ends before the Gateway confirms the steer.
	s.d.broadcast("chat", map[string]any{
		"runId":      param(t, s.d.requests("chat.send")[0].Params, "idempotencyKey"),
		"sessionKey": param(t, steer.Params, "sessionKey"), "state": "final", "message": textMsg("finished"),
	})
	select {
	case res := <-got:
		if res != executor.SteerRunEnded {
			t.Fatalf("steer %q, want run-ended", res)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("steer still waiting after the run ended")
	}
	executortest.CollectWithin(t, 10*time.Second, r)
	// …and the steer is cancelled at the Gateway.
	aborts := s.d.waitRequest("chat.abort", 1)
	if param(t, aborts[0].Params, "runId") != steerRun {
		t.Fatalf("cancelled %s, want the steer run %v", aborts[0].Params, steerRun)
	}
	// A steer after the end is run-ended without reaching the Gateway.
	n := len(s.d.requests("chat.send"))
	if res, err := r.Steer(context.Background(), executor.Steer{Text: "later", Mode: executor.SteerNext}); res != executor.SteerRunEnded || err != nil {
		t.Fatalf("steer on an ended run %q %v", res, err)
	}
	if len(s.d.requests("chat.send")) != n {
		t.Fatal("a steer for an ended run was sent")
	}
}

func TestAbortSendsBothAndTheBackstopEndsTheRun(t *testing.T) {
	s := newScripted(t)
	s.abortConfirms.Store(false) // the Gateway never says "aborted"
	req := startReq("hold")
	r, err := s.adapter(t).Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Abort(context.Background()); err != nil {
		t.Fatal(err)
	}
	done := executortest.CheckStream(t, req.RunID, executortest.CollectWithin(t, 10*time.Second, r))
	if done.Reason != executor.DoneAborted {
		t.Fatalf("done %+v", done)
	}
	ca, sa := s.d.requests("chat.abort"), s.d.requests("sessions.abort")
	if len(ca) != 1 || len(sa) != 1 {
		t.Fatalf("chat.abort %d sessions.abort %d", len(ca), len(sa))
	}
	key := param(t, s.d.requests("chat.send")[0].Params, "sessionKey")
	if param(t, ca[0].Params, "runId") != param(t, s.d.requests("chat.send")[0].Params, "idempotencyKey") ||
		param(t, sa[0].Params, "key") != key {
		t.Fatalf("abort requests %s %s", ca[0].Params, sa[0].Params)
	}
	// chat.abort failing still sends sessions.abort.
	s2 := newScripted(t)
	s2.d.handle("chat.abort", func(c *dconn, id string, _ json.RawMessage) { c.fail(id, "INVALID_REQUEST", "no such run") })
	r2, err := s2.adapter(t).Start(context.Background(), startReq("hold"))
	if err != nil {
		t.Fatal(err)
	}
	if err := r2.Abort(context.Background()); err != nil {
		t.Fatalf("abort with a failing chat.abort: %v", err)
	}
	if len(s2.d.waitRequest("sessions.abort", 1)) != 1 {
		t.Fatal("no sessions.abort backstop")
	}
	executortest.CollectWithin(t, 10*time.Second, r2)
}

func TestSetModelAndWriteContext(t *testing.T) {
	s := newScripted(t)
	r, err := s.adapter(t).Start(context.Background(), startReq("hold"))
	if err != nil {
		t.Fatal(err)
	}
	defer executortest.CollectWithin(t, 10*time.Second, r)
	defer r.Abort(context.Background())
	if err := r.SetModel(context.Background(), "fakeoai/fake-model-2"); err != nil {
		t.Fatal(err)
	}
	p := s.d.requests("sessions.patch")
	if len(p) != 1 || param(t, p[0].Params, "model") != "fakeoai/fake-model-2" {
		t.Fatalf("sessions.patch %+v", p)
	}
	if err := r.WriteContext(context.Background(), "AGENTS.md", "# rules"); err != nil {
		t.Fatal(err)
	}
	f := s.d.requests("agents.files.set")
	if len(f) != 1 || param(t, f[0].Params, "agentId") != "main" || param(t, f[0].Params, "name") != "AGENTS.md" {
		t.Fatalf("agents.files.set %+v", f)
	}
	if err := r.WriteContext(context.Background(), "note", "x"); err == nil {
		t.Fatal("a non-file context key was accepted")
	}
}

func TestCapabilitiesAreAConnectedSubstrate(t *testing.T) {
	if New(Options{}).Ready() {
		t.Fatal("ready without a client")
	}
	s := newScripted(t)
	a := s.adapter(t)
	if h := executor.ProbeHealth(context.Background(), a); !h.OK || !a.Ready() {
		t.Fatalf("health %+v ready %v", h, a.Ready())
	}
	c := a.Capabilities()
	if c.RuntimeClass != executor.ConnectedSubstrate || c.Worktrees || c.MCP || !c.Steering || !c.ModelChange {
		t.Fatalf("%+v", c)
	}
}

func TestRunSurvivesAReconnectAndFailsWhenTheGatewayStaysAway(t *testing.T) {
	s := newScripted(t)
	req := startReq("hold")
	r, err := s.adapter(t).Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	send := s.d.requests("chat.send")[0]
	s.d.dropAll()
	// Back on a new connection: the run's final still ends it.
	s.d.waitRequest("sessions.messages.subscribe", 2)
	s.d.broadcast("chat", map[string]any{
		"runId":      param(t, send.Params, "idempotencyKey"),
		"sessionKey": param(t, send.Params, "sessionKey"), "state": "final", "message": textMsg("after the blip"),
	})
	evs := executortest.CollectWithin(t, 10*time.Second, r)
	done := executortest.CheckStream(t, req.RunID, evs)
	if done.Reason != executor.DoneSuccess || done.Summary != "after the blip" {
		t.Fatalf("done %+v", done)
	}
	sawBlip := false
	for _, e := range evs {
		if e.Kind == executor.KindError && e.Code == "openclaw_disconnected" && !e.Fatal {
			sawBlip = true
		}
	}
	if !sawBlip {
		t.Fatalf("the lost connection was not reported: %+v", evs)
	}

	// A Gateway that does not come back within the grace fails the run.
	s2 := newScripted(t)
	a := s2.adapter(t, func(o *Options) { o.ReconnectGrace = 200 * time.Millisecond })
	req2 := startReq("hold")
	r2, err := a.Start(context.Background(), req2)
	if err != nil {
		t.Fatal(err)
	}
	s2.d.srv.Listener.Close() // gone for good
	s2.d.dropAll()
	done2 := executortest.CheckStream(t, req2.RunID, executortest.CollectWithin(t, 10*time.Second, r2))
	if done2.Reason != executor.DoneError || !strings.Contains(done2.Summary, "did not come back") {
		t.Fatalf("done %+v", done2)
	}
}
