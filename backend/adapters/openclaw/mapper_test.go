package openclaw

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/executor/executortest"
)

// Frames below are the real Gateway's (runtimes-protocols.md §4.3 and
// transcripts/openclaw-gateway.txt), trimmed.

func ev(name, payload string) Event { return Event{Name: name, Payload: json.RawMessage(payload)} }

func TestMapChatDelta(t *testing.T) {
	m := MapFrame(ev("chat", `{"runId":"r1","sessionKey":"agent:main:main","seq":6,"state":"delta","deltaText":"Hello from fake openai.",
		"deltaThinking":"pondering","message":{"role":"assistant","content":[{"type":"text","text":"Hello from fake openai."},
		{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a.txt"}}],"timestamp":1}}`))
	if m.RunID != "r1" || m.SessionKey != "agent:main:main" || m.Terminal() {
		t.Fatalf("%+v", m)
	}
	if got := executortest.Kinds(m.Events); got != "text-delta/assistant text-delta/reasoning tool-call" {
		t.Fatalf("kinds %q", got)
	}
	if m.Events[0].Text != "Hello from fake openai." || m.Events[1].Text != "pondering" ||
		m.Events[2].ToolCallID != "c1" || string(m.Events[2].Input) != `{"path":"a.txt"}` {
		t.Fatalf("%+v", m.Events)
	}
}

func TestMapChatFinal(t *testing.T) {
	m := MapFrame(ev("chat", `{"runId":"r1","sessionKey":"k","seq":10,"state":"final","stopReason":"stop",
		"message":{"role":"assistant","content":[{"type":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"file body"}]},
		{"type":"text","text":"Hello from fake openai."}],"timestamp":1}}`))
	if !m.Terminal() || !m.HasMessage {
		t.Fatalf("%+v", m)
	}
	if got := executortest.Kinds(m.Events); got != "tool-result done/success" {
		t.Fatalf("kinds %q", got)
	}
	if m.Events[0].Output != "file body" || m.Events[1].Summary != "Hello from fake openai." {
		t.Fatalf("%+v", m.Events)
	}
	// A final without a message (the Gateway queued the message into
	// another run) is still terminal, but says so.
	q := MapFrame(ev("chat", `{"runId":"r2","sessionKey":"k","seq":1,"state":"final"}`))
	if !q.Terminal() || q.HasMessage || executortest.Kinds(q.Events) != "done/success" {
		t.Fatalf("%+v", q)
	}
}

func TestMapChatAborted(t *testing.T) {
	m := MapFrame(ev("chat", `{"runId":"r1","sessionKey":"k","state":"aborted","stopReason":"rpc","message":{"role":"assistant","content":[{"type":"text","text":"one"}]}}`))
	if !m.Terminal() || executortest.Kinds(m.Events) != "done/aborted" || !strings.Contains(m.Events[0].Summary, "rpc") {
		t.Fatalf("%+v", m)
	}
}

func TestMapChatError(t *testing.T) {
	m := MapFrame(ev("chat", `{"runId":"r1","sessionKey":"k","seq":9,"state":"error","errorMessage":"LLM request failed: provider rejected the request schema or tool payload.",
		"errorDetail":{"provider":"fakeoai","model":"fake-model","failoverReason":"format"}}`))
	if !m.Terminal() || executortest.Kinds(m.Events) != "error done/error" {
		t.Fatalf("%+v", m)
	}
	if !m.Events[0].Fatal || !strings.Contains(m.Events[0].Message, "LLM request failed") || m.Events[1].Summary != m.Events[0].Message {
		t.Fatalf("%+v", m.Events)
	}
	k := MapFrame(ev("chat", `{"runId":"r1","sessionKey":"k","state":"error","errorKind":"rate_limit","errorMessage":"slow down"}`))
	if k.Events[0].Code != "openclaw_rate_limit" {
		t.Fatalf("code %q", k.Events[0].Code)
	}
}

func TestMapAgentLifecycle(t *testing.T) {
	start := MapFrame(ev("agent", `{"runId":"r1","stream":"lifecycle","data":{"phase":"start","startedAt":1},"sessionKey":"k","seq":3}`))
	if executortest.Kinds(start.Events) != "status/running" || start.State != "lifecycle/start" {
		t.Fatalf("start %+v", start)
	}
	end := MapFrame(ev("agent", `{"runId":"r1","stream":"lifecycle","data":{"phase":"end","stopReason":"stop","aborted":false},"sessionKey":"k"}`))
	if executortest.Kinds(end.Events) != "status/turn-complete" {
		t.Fatalf("end %+v", end)
	}
	fail := MapFrame(ev("agent", `{"runId":"r1","stream":"lifecycle","data":{"phase":"error","error":"LLM request failed: provider rejected the request schema or tool payload."},"sessionKey":"k"}`))
	if executortest.Kinds(fail.Events) != "error" || !fail.Events[0].Fatal || !strings.Contains(fail.Events[0].Message, "LLM request failed") {
		t.Fatalf("error %+v", fail)
	}
	model := MapFrame(ev("agent", `{"runId":"r1","stream":"lifecycle","data":{"phase":"model","provider":"fakeoai","model":"fake-model"},"sessionKey":"k"}`))
	if executortest.Kinds(model.Events) != "status/running" || model.Events[0].Model != "fakeoai/fake-model" {
		t.Fatalf("model %+v", model)
	}
	for _, p := range []string{`{"phase":"model","provider":null,"model":null}`, `{"phase":"finishing"}`, `{"phase":"fallback_step"}`} {
		if m := MapFrame(ev("agent", `{"runId":"r1","stream":"lifecycle","data":`+p+`,"sessionKey":"k"}`)); len(m.Events) != 0 {
			t.Fatalf("%s mapped to %+v", p, m.Events)
		}
	}
}

func TestMapAgentToolStream(t *testing.T) {
	start := MapFrame(ev("agent", `{"runId":"r1","stream":"tool","data":{"phase":"start","name":"read","toolCallId":"call_1|fc_1","args":{"path":"/w/hello.txt"}},"sessionKey":"k"}`))
	if executortest.Kinds(start.Events) != "tool-call" || start.Events[0].Name != "read" || start.Events[0].ToolCallID != "call_1|fc_1" ||
		string(start.Events[0].Input) != `{"path":"/w/hello.txt"}` {
		t.Fatalf("start %+v", start.Events)
	}
	res := MapFrame(ev("agent", `{"runId":"r1","stream":"tool","data":{"phase":"result","name":"read","toolCallId":"call_1|fc_1","isError":false,
		"result":{"content":[{"type":"text","text":"hello from the workspace file\n"}],"details":{}}},"sessionKey":"k"}`))
	if executortest.Kinds(res.Events) != "tool-result" || res.Events[0].Output != "hello from the workspace file\n" || res.Events[0].IsError {
		t.Fatalf("result %+v", res.Events)
	}
	upd := MapFrame(ev("agent", `{"runId":"r1","stream":"tool","data":{"phase":"update","name":"read","toolCallId":"call_1|fc_1","partial":"x"},"sessionKey":"k"}`))
	if len(upd.Events) != 0 {
		t.Fatalf("update %+v", upd.Events)
	}
	// A long result is cut at MaxToolResult characters with a note.
	long := strings.Repeat("é", MaxToolResult+123)
	b, _ := json.Marshal(map[string]any{
		"runId": "r1", "stream": "tool", "sessionKey": "k",
		"data": map[string]any{"phase": "result", "name": "exec", "toolCallId": "c2", "isError": true, "result": long},
	})
	cut := MapFrame(Event{Name: "agent", Payload: b})
	out := cut.Events[0].Output
	if !cut.Events[0].IsError || !strings.HasPrefix(out, strings.Repeat("é", MaxToolResult)) ||
		!strings.HasSuffix(out, "[123 more characters not recorded]") {
		t.Fatalf("cut result ends %q", out[len(out)-60:])
	}
}

func TestMapAgentOtherStreams(t *testing.T) {
	a := MapFrame(ev("agent", `{"runId":"r1","stream":"assistant","data":{"text":"Hello","delta":"Hello","itemId":"i:1"},"sessionKey":"k"}`))
	if executortest.Kinds(a.Events) != "text-delta/assistant" || a.Events[0].Text != "Hello" {
		t.Fatalf("assistant %+v", a.Events)
	}
	r := MapFrame(ev("agent", `{"runId":"r1","stream":"reasoning","data":{"delta":"thinking hard"},"sessionKey":"k"}`))
	if executortest.Kinds(r.Events) != "text-delta/reasoning" {
		t.Fatalf("reasoning %+v", r.Events)
	}
	for _, p := range []string{
		`{"runId":"r1","stream":"usage","data":{"outputTokens":6},"sessionKey":"k"}`,
		`{"runId":"r1","stream":"run_status","data":{"phase":"preparing_context"},"sessionKey":"k"}`,
		`{"runId":"r1","stream":"item","data":{"itemId":"tool:c","phase":"start","status":"running"},"sessionKey":"k"}`,
	} {
		if m := MapFrame(ev("agent", p)); len(m.Events) != 0 {
			t.Fatalf("%s mapped to %+v", p, m.Events)
		}
	}
}

func TestMapSessionMessage(t *testing.T) {
	call := MapFrame(ev("session.message", `{"sessionKey":"agent:main:x1","agentId":"main","message":{"role":"assistant",
		"content":[{"type":"toolCall","id":"call_fake_1_0|fc_fake_1_0","name":"read","arguments":{"path":"/w/hello.txt"}},{"type":"text","text":"never text"}],"stopReason":"toolUse"}}`))
	if executortest.Kinds(call.Events) != "tool-call" || call.Events[0].Name != "read" || call.SessionKey != "agent:main:x1" {
		t.Fatalf("call %+v", call)
	}
	res := MapFrame(ev("session.message", `{"sessionKey":"k","message":{"role":"toolResult","toolCallId":"c1","toolName":"read",
		"content":[{"type":"text","text":"`+strings.Repeat("x", MaxToolResult+5)+`"}],"isError":false}}`))
	if executortest.Kinds(res.Events) != "tool-result" || !strings.HasSuffix(res.Events[0].Output, "[5 more characters not recorded]") {
		t.Fatalf("result %+v", res.Events)
	}
	for _, p := range []string{
		`{"sessionKey":"k","message":{"role":"user","content":"hi"}}`,
		`{"sessionKey":"k","message":{"role":"assistant","content":[{"type":"text","text":"Hello"}],"stopReason":"stop"}}`,
	} {
		if m := MapFrame(ev("session.message", p)); len(m.Events) != 0 {
			t.Fatalf("%s mapped to %+v (never text or done)", p, m.Events)
		}
	}
}

func TestMapAnythingElse(t *testing.T) {
	for _, e := range []Event{
		ev("sessions.changed", `{"sessionKey":"k","reason":"send"}`),
		ev("health", `{"ok":true}`),
		ev("chat", `{"runId":"r1","sessionKey":"k","state":"status","phase":"preparing_workspace"}`),
		ev("presence", `{}`),
		ev("exec.approval.requested", `{"id":"a1","request":{"command":"ls"}}`),
	} {
		if m := MapFrame(e); len(m.Events) != 0 || m.Terminal() {
			t.Fatalf("%s mapped to %+v", e.Name, m)
		}
	}
}
