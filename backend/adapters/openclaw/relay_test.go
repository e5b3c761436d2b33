package openclaw

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

// asked records the questions put to a person and answers them.
type asked struct {
	qs     chan Question
	answer func(ctx context.Context, q Question) (bool, error)
}

func (a *asked) ask(ctx context.Context, q Question, _ time.Duration) (bool, error) {
	a.qs <- q
	return a.answer(ctx, q)
}

func startRelay(t *testing.T, d *double, a *asked) {
	t.Helper()
	rl := &Relay{Client: d.client(t), Ask: a.ask}
	ctx, cancel := context.WithCancel(context.Background())
	wait := rl.Start(ctx)
	t.Cleanup(func() { cancel(); wait() })
	// Events flow once the client is connected.
	if err := rl.Client.Request(ctx, "agents.list", nil, nil); err != nil {
		t.Fatal(err)
	}
}

func requested(id, cmd string) map[string]any {
	return map[string]any{
		"id": id, "request": map[string]any{
			"command": cmd, "cwd": "/w", "agentId": "main",
			"sessionKey": "agent:main:x", "runId": "gw-run",
		}, "createdAtMs": time.Now().UnixMilli(),
		"expiresAtMs": time.Now().Add(time.Minute).UnixMilli(),
	}
}

func TestRelayApproveAndDeny(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(context.Context, Question) (bool, error)
		want   string
	}{
		{"approved", func(context.Context, Question) (bool, error) { return true, nil }, "allow-once"},
		{"denied", func(context.Context, Question) (bool, error) { return false, nil }, "deny"},
		{"expired or failed fails closed", func(context.Context, Question) (bool, error) { return false, errors.New("expired") }, "deny"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDouble(t)
			a := &asked{qs: make(chan Question, 4), answer: tc.answer}
			startRelay(t, d, a)
			d.broadcast("exec.approval.requested", requested("ap-1", "echo hi"))
			q := <-a.qs
			if q.Command != "echo hi" || q.Folder != "/w" || q.Title == "" {
				t.Fatalf("question %+v", q)
			}
			res := d.waitRequest("exec.approval.resolve", 1)
			if param(t, res[0].Params, "id") != "ap-1" || param(t, res[0].Params, "decision") != tc.want {
				t.Fatalf("resolve %s, want %s", res[0].Params, tc.want)
			}
		})
	}
}

func TestRelayAnswerInOpenClawWithdrawsOurs(t *testing.T) {
	d := newDouble(t)
	withdrawn := make(chan struct{})
	a := &asked{qs: make(chan Question, 1), answer: func(ctx context.Context, _ Question) (bool, error) {
		<-ctx.Done() // the approvals queue withdraws the request when ctx ends
		close(withdrawn)
		return false, ctx.Err()
	}}
	startRelay(t, d, a)
	d.broadcast("exec.approval.requested", requested("ap-2", "rm -rf build"))
	<-a.qs
	d.broadcast("exec.approval.resolved", map[string]any{"id": "ap-2", "decision": "allow-once"})
	select {
	case <-withdrawn:
	case <-time.After(20 * time.Second):
		t.Fatal("our question was not withdrawn")
	}
	time.Sleep(100 * time.Millisecond)
	if r := d.requests("exec.approval.resolve"); len(r) != 0 {
		t.Fatalf("a withdrawn question still answered the Gateway: %+v", r)
	}
}

func TestWatcherShowsToolActivityFromRunsWeDidNotStart(t *testing.T) {
	ours := map[string]bool{"agent:main:clawboo-ours": true}
	w := &Watcher{Ours: func() map[string]bool { return ours }, Keep: 3}
	sub := w.Subscribe(16)
	for _, key := range []string{"agent:main:cron-nightly", "agent:main:clawboo-ours"} {
		w.Observe(ev("agent", `{"runId":"r","sessionKey":"`+key+`","stream":"tool","data":{"phase":"start","name":"exec","toolCallId":"c1","args":{"command":"ls"}}}`))
		// the same call again through session.message: recorded once
		w.Observe(ev("session.message", `{"sessionKey":"`+key+`","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"exec","arguments":{}}]}}`))
		w.Observe(ev("session.tool", `{"runId":"r","sessionKey":"`+key+`","stream":"tool","data":{"phase":"result","name":"exec","toolCallId":"c1","result":"a b"}}`))
		w.Observe(ev("chat", `{"runId":"r","sessionKey":"`+key+`","state":"delta","deltaText":"text is not activity"}`))
	}
	got := w.Recent()
	if len(got) != 2 || got[0].Event.Kind != executor.KindToolCall || got[1].Event.Kind != executor.KindToolResult ||
		got[0].SessionKey != "agent:main:cron-nightly" || got[0].Agent != "main" || got[1].Event.Output != "a b" {
		t.Fatalf("activity %+v", got)
	}
	if len(sub.C()) != 2 {
		t.Fatalf("%d published", len(sub.C()))
	}
	for i := 0; i < 5; i++ {
		w.Observe(ev("agent", `{"runId":"r","sessionKey":"agent:main:chan","stream":"tool","data":{"phase":"start","name":"x","toolCallId":"k`+string(rune('a'+i))+`"}}`))
	}
	if n := len(w.Recent()); n != 3 {
		t.Fatalf("kept %d, want the last 3", n)
	}
}

// An answer given in OpenClaw while the connection was down never arrives
// as an event: the list read after the reconnect no longer holds it, and
// ours is withdrawn; one still listed stays asked.
func TestRelayAnsweredInOpenClawWhileAwayWithdrawsOursOnReconnect(t *testing.T) {
	d := newDouble(t)
	var mu sync.Mutex
	listed := []any{requested("ap-gone", "rm -rf build"), requested("ap-kept", "make")}
	d.handle("exec.approval.list", func(c *dconn, id string, _ json.RawMessage) {
		mu.Lock()
		defer mu.Unlock()
		c.ok(id, listed)
	})
	ended := make(chan string, 2)
	a := &asked{qs: make(chan Question, 2), answer: func(ctx context.Context, q Question) (bool, error) {
		<-ctx.Done()
		ended <- q.Command
		return false, ctx.Err()
	}}
	startRelay(t, d, a)
	for range 2 {
		select {
		case <-a.qs:
		case <-time.After(20 * time.Second):
			t.Fatal("the listed requests were not asked")
		}
	}
	mu.Lock()
	listed = []any{requested("ap-kept", "make")}
	mu.Unlock()
	n := len(d.requests("exec.approval.list"))
	d.dropAll()
	d.waitRequest("exec.approval.list", n+1)
	select {
	case cmd := <-ended:
		if cmd != "rm -rf build" {
			t.Fatalf("withdrew %q, want the one answered in OpenClaw", cmd)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the request answered while we were away was not withdrawn")
	}
	if r := d.requests("exec.approval.resolve"); len(r) != 0 {
		t.Fatalf("a withdrawn question still answered the Gateway: %+v", r)
	}
	select {
	case cmd := <-ended:
		t.Fatalf("%q was withdrawn though the Gateway still lists it", cmd)
	default:
	}
}
