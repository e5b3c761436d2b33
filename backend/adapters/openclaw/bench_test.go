package openclaw

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
)

// BenchmarkMapFrame: one chat delta carrying a tool call (the hot path of
// a streaming run).
func BenchmarkMapFrame(b *testing.B) {
	e := Event{Name: "chat", Payload: json.RawMessage(`{"runId":"r1","sessionKey":"agent:main:main","seq":6,"state":"delta",` +
		`"deltaText":"Hello from fake openai.","message":{"role":"assistant","content":[{"type":"text","text":"Hello from fake openai."},` +
		`{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a.txt"}}]}}`)}
	b.ReportAllocs()
	for b.Loop() {
		if len(MapFrame(e).Events) != 2 {
			b.Fatal("mapping changed")
		}
	}
}

// BenchmarkRunOverDouble: a whole run (subscribe, chat.send, 9 frames,
// done) against the in-process Gateway double: the adapter's own cost per
// run, without a model.
func BenchmarkRunOverDouble(b *testing.B) {
	s := newScripted(b)
	a := s.adapter(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		req := startReq("success")
		r, err := a.Start(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		var last executor.Event
		for e := range r.Events() {
			last = e
		}
		if last.Reason != executor.DoneSuccess {
			b.Fatalf("done %+v", last)
		}
	}
}

// BenchmarkRealChatRoundTrip: chat.send to done on the real Gateway with
// the fake provider answering at once (skips without
// CLAWBOO_TEST_OPENCLAW).
func BenchmarkRealChatRoundTrip(b *testing.B) {
	e := newRealEnv(b, fakeresponses.Text("bench-turn", "ok"))
	b.ResetTimer()
	for b.Loop() {
		id := executor.RunID("bench-" + newIdempotencyKey()[:8])
		r, err := e.a.Start(context.Background(), executor.StartRequest{
			RunID: id, AgentID: "bench", SessionKey: string(id),
			Message: "bench-turn", Emitter: executor.NewEmitter(id, 0),
		})
		if err != nil {
			b.Fatal(err)
		}
		var last executor.Event
		for ev := range r.Events() {
			last = ev
		}
		if last.Reason != executor.DoneSuccess {
			b.Fatalf("done %+v", last)
		}
	}
}
