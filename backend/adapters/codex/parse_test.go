package codex

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
)

// transcript splits testdata/codex-app-server.txt (recorded from the real
// codex 0.171.0, runtimes-protocols.md section 3.5) into its scenarios.
func transcript(t *testing.T, name string) map[string][]string {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	cur := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	for sc.Scan() {
		l := sc.Text()
		if s, ok := strings.CutPrefix(l, "##### "); ok {
			cur = s
			continue
		}
		out[cur] = append(out[cur], l)
	}
	return out
}

// replay feeds a scenario's server lines to an AppMapper the way the
// session does: thread and turn ids from the answers to thread/start,
// thread/resume and turn/start, notifications to Notify. It returns the
// events and the done of each turn.
func replay(t *testing.T, lines []string) (evs []executor.Event, dones []executor.Event, m *AppMapper) {
	t.Helper()
	m = &AppMapper{}
	methods := map[string]string{}
	for _, l := range lines {
		dir, body, _ := strings.Cut(l, " ")
		body = strings.TrimSpace(body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(body), &msg); err != nil {
			t.Fatalf("bad line %q: %v", l, err)
		}
		if dir == "IN" {
			if msg.Method != "" && len(msg.ID) > 0 {
				methods[string(msg.ID)] = msg.Method
			}
			continue
		}
		switch {
		case len(msg.ID) > 0 && msg.Method == "":
			var res struct {
				Thread struct{ ID string } `json:"thread"`
				Turn   struct{ ID string } `json:"turn"`
			}
			_ = json.Unmarshal(msg.Result, &res)
			switch methods[string(msg.ID)] {
			case "thread/start", "thread/resume":
				m.Thread = res.Thread.ID
			case "turn/start":
				m.Turn = res.Turn.ID
			}
		case msg.Method != "":
			e, d := m.Notify(msg.Method, msg.Params)
			evs = append(evs, e...)
			if d != nil {
				dones = append(dones, *d)
				evs = append(evs, *d)
			}
		}
	}
	return evs, dones, m
}

func TestAppMapperBasicTranscript(t *testing.T) {
	evs, dones, m := replay(t, transcript(t, "codex-app-server.txt")["basic"])
	if len(dones) != 3 {
		t.Fatalf("dones: %s", executortest.Describe(evs))
	}
	for _, d := range dones {
		if d.Reason != executor.DoneSuccess {
			t.Fatalf("done %+v", d)
		}
	}
	if dones[0].Summary != "Hello from fake openai." || !strings.HasPrefix(dones[1].Summary, "Tool said:") {
		t.Fatalf("summaries %q / %q", dones[0].Summary, dones[1].Summary)
	}
	var calls, results []executor.Event
	var u executor.Usage
	for _, e := range evs {
		switch e.Kind {
		case executor.KindToolCall:
			calls = append(calls, e)
		case executor.KindToolResult:
			results = append(results, e)
		case executor.KindCost:
			if e.CostUSD != nil {
				t.Fatal("a price was invented")
			}
			u.InputTokens += e.Usage.InputTokens
			u.OutputTokens += e.Usage.OutputTokens
		}
	}
	if len(calls) != 2 || calls[0].Name != "mcp__fake__echo" || string(calls[0].Input) != `{"text": "ping"}` ||
		calls[1].Name != "shell" || !strings.Contains(string(calls[1].Input), "echo shell-ok") {
		t.Fatalf("calls %+v", calls)
	}
	if len(results) != 2 || results[0].Output != "echo: ping" || results[0].IsError || results[1].Output != "shell-ok\n" ||
		results[0].ToolCallID != calls[0].ToolCallID {
		t.Fatalf("results %+v", results)
	}
	// The thread's last total is the sum of what the turns were charged.
	if u.InputTokens != 63310 || u.OutputTokens != 107 || m.Totals.Input != 63310 {
		t.Fatalf("usage %+v totals %+v", u, m.Totals)
	}
	if !strings.Contains(textOf(evs), "Calling echo.") {
		t.Fatalf("text %q", textOf(evs))
	}
}

func TestAppMapperSteerInterruptErrorResume(t *testing.T) {
	tr := transcript(t, "codex-app-server.txt")
	// Steer: one turn, one completion with the answer carried only in
	// turn/completed's items.
	evs, dones, _ := replay(t, tr["steer"])
	if len(dones) != 1 || dones[0].Reason != executor.DoneSuccess || textOf(evs) != "Hello from fake openai." {
		t.Fatalf("steer: %s", executortest.Describe(evs))
	}
	// Interrupt: two interrupted turns, then a normal one.
	_, dones, _ = replay(t, tr["interrupt"])
	if len(dones) != 3 || dones[0].Reason != executor.DoneAborted || dones[1].Reason != executor.DoneAborted || dones[2].Reason != executor.DoneSuccess {
		t.Fatalf("interrupt: %+v", dones)
	}
	// Errors: an HTTP 400 and a stream failure, each a fatal error.
	evs, dones, _ = replay(t, tr["error"])
	if len(dones) != 2 || dones[0].Reason != executor.DoneError || !strings.Contains(dones[0].Summary, "fake: scripted failure") ||
		!strings.Contains(dones[1].Summary, "stream disconnected before completion: fake mid-stream failure") {
		t.Fatalf("error: %s", executortest.Describe(evs))
	}
	fatal := 0
	for _, e := range evs {
		if e.Kind == executor.KindError && e.Fatal {
			fatal++
		}
	}
	if fatal != 2 {
		t.Fatalf("fatal errors: %s", executortest.Describe(evs))
	}
	// Resume: the restored totals of an earlier turn are the baseline, so
	// the resumed turn is charged only its own request.
	evs, dones, m := replay(t, tr["resume"])
	var u executor.Usage
	for _, e := range evs {
		if e.Kind == executor.KindCost {
			u.InputTokens += e.Usage.InputTokens
			u.OutputTokens += e.Usage.OutputTokens
		}
	}
	if len(dones) != 1 || dones[0].Summary != "Hello from fake openai." || u.InputTokens != 13008 || u.OutputTokens != 6 || m.Totals.Input != 76318 {
		t.Fatalf("resume: usage %+v totals %+v %s", u, m.Totals, executortest.Describe(evs))
	}
}

// TestAppMapperIgnoresOtherThreads: a sub-agent's notifications are not
// this run's.
func TestAppMapperIgnoresOtherThreads(t *testing.T) {
	m := &AppMapper{Thread: "t1", Turn: "u1"}
	evs, done := m.Notify("item/agentMessage/delta", json.RawMessage(`{"threadId":"t2","turnId":"x","itemId":"i","delta":"other"}`))
	if len(evs) != 0 || done != nil {
		t.Fatalf("%+v", evs)
	}
	_, done = m.Notify("turn/completed", json.RawMessage(`{"threadId":"t1","turn":{"id":"other-turn","status":"completed","items":[]}}`))
	if done != nil {
		t.Fatal("another turn's completion ended the run")
	}
}

func TestExecMapperRecorded(t *testing.T) {
	f, err := os.ReadFile("testdata/exec-turns.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// Three runs of one thread: a shell turn, a resumed turn (cumulative
	// usage), a failed turn.
	var runs [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(f)), "\n") {
		if strings.Contains(l, `"thread.started"`) {
			runs = append(runs, nil)
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], l)
	}
	if len(runs) != 3 {
		t.Fatalf("%d runs in the recording", len(runs))
	}
	prev := Totals{}
	var all [][]executor.Event
	for _, lines := range runs {
		m := ExecMapper{Model: "fake-model", Prev: prev}
		var evs []executor.Event
		for _, l := range lines {
			e, d := m.Line([]byte(l))
			evs = append(evs, e...)
			if d != nil {
				evs = append(evs, *d)
			}
		}
		if h := DecodeHandle(handleOf(evs)); h.Thread != "" {
			prev = h.Totals
		}
		all = append(all, evs)
	}
	if d := executortest.Done(t, all[0]); d.Reason != executor.DoneSuccess || !strings.Contains(d.Summary, "shell-ok") {
		t.Fatalf("run 1: %s", executortest.Describe(all[0]))
	}
	u1, u2 := costOf(t, all[0]), costOf(t, all[1])
	h2 := DecodeHandle(handleOf(all[1]))
	if h2.Totals.Input != u1.InputTokens+u2.InputTokens || u2.InputTokens <= 0 || u2.InputTokens >= h2.Totals.Input {
		t.Fatalf("resumed usage %+v after %+v, totals %+v", u2, u1, h2.Totals)
	}
	if d := executortest.Done(t, all[2]); d.Reason != executor.DoneError || !strings.Contains(d.Summary, "fake: scripted failure") {
		t.Fatalf("run 3: %s", executortest.Describe(all[2]))
	}
}

func TestHandleCodec(t *testing.T) {
	h := Handle{Thread: "01a2", Totals: Totals{Input: 5, Output: 2}}
	if got := DecodeHandle(h.Encode()); got.Thread != "01a2" || got.Totals != h.Totals || got.V != 1 {
		t.Fatalf("round trip %+v", got)
	}
	if got := DecodeHandle("01a22865-0bf5"); got.Thread != "01a22865-0bf5" || got.Totals != (Totals{}) {
		t.Fatalf("bare id %+v", got)
	}
}

func TestCutBoundsOutput(t *testing.T) {
	s := strings.Repeat("é", 5000)
	c := cut(s)
	if len(c) > maxOutput+64 || !strings.Contains(c, "more bytes not recorded") || !strings.HasPrefix(s, strings.SplitN(c, "\n…", 2)[0]) {
		t.Fatalf("cut %d bytes", len(c))
	}
}

// TestAppMapperRecordedFailingShell: our own recording (record_test.go)
// of a shell command that exits 3: the result is an error with its output.
func TestAppMapperRecordedFailingShell(t *testing.T) {
	evs, dones, _ := replay(t, transcript(t, "appserver-tools.txt")["failing-shell"])
	if len(dones) != 1 || dones[0].Reason != executor.DoneSuccess || !strings.HasPrefix(dones[0].Summary, "The command failed:") {
		t.Fatalf("events: %s", executortest.Describe(evs))
	}
	var res *executor.Event
	for i := range evs {
		if evs[i].Kind == executor.KindToolResult {
			res = &evs[i]
		}
	}
	if res == nil || res.Name != "shell" || !res.IsError || !strings.Contains(res.Output, "to-stderr") {
		t.Fatalf("tool result %+v", res)
	}
}
