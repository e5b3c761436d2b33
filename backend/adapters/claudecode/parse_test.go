package claudecode

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
)

// A recording is one scenario of a transcript file in testdata: the
// lines the CLI wrote ("OUT …") and the host sent ("IN …"), in order.
// reference-stream-json.txt is runtimes-protocols.md's transcript; the
// other files were recorded from the pinned CLI against fakeanthropic.
type recording struct {
	out []string
	in  []string
}

func loadRecordings(t *testing.T, file string) map[string]*recording {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs := map[string]*recording{}
	var cur *recording
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "##### "):
			cur = &recording{}
			recs[strings.TrimPrefix(line, "##### ")] = cur
		case cur != nil && strings.HasPrefix(line, "OUT "):
			cur.out = append(cur.out, strings.TrimPrefix(line, "OUT "))
		case cur != nil && strings.HasPrefix(line, "IN "):
			cur.in = append(cur.in, strings.TrimPrefix(line, "IN "))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

func recorded(t *testing.T, file, name string) *recording {
	t.Helper()
	r := loadRecordings(t, file)[name]
	if r == nil || len(r.out) == 0 {
		t.Fatalf("%s has no scenario %q", file, name)
	}
	return r
}

// mapped is what a run would emit for a recording's output, with every
// result's cost, and the parse details the run acts on.
type mapped struct {
	events   []executor.Event
	results  []Result
	replays  []string
	requests []string
	session  string
}

func mapLines(lines []string) mapped {
	m := NewMapper()
	var out mapped
	for _, l := range lines {
		p := m.Line([]byte(l), false)
		out.events = append(out.events, p.Events...)
		if p.Replay != "" {
			out.replays = append(out.replays, p.Replay)
		}
		if p.ControlRequest != "" {
			out.requests = append(out.requests, p.ControlRequest)
		}
		if p.Result != nil {
			if c := m.Cost(*p.Result); c != nil {
				out.events = append(out.events, *c)
			}
			out.results = append(out.results, *p.Result)
		}
	}
	out.session = m.Session()
	return out
}

// brief is an event as one comparable line.
func brief(ev executor.Event) string {
	switch ev.Kind {
	case executor.KindStatus:
		return "status " + string(ev.Phase) + " " + ev.Session + " " + ev.Detail
	case executor.KindTextDelta:
		return "text " + string(ev.Channel) + " " + ev.Text
	case executor.KindToolCall:
		return "call " + ev.ToolCallID + " " + ev.Name + " " + string(ev.Input)
	case executor.KindToolResult:
		e := ""
		if ev.IsError {
			e = " (error)"
		}
		return "result " + ev.ToolCallID + " " + ev.Name + e + " " + ev.Output
	case executor.KindCost:
		return "cost " + strings.TrimRight(strings.TrimRight(jsonNum(*ev.CostUSD), "0"), ".") + " " + ev.Model
	case executor.KindError:
		return "error " + ev.Code + " " + ev.Message
	case executor.KindDone:
		return "done " + string(ev.Reason) + " " + ev.Summary
	case executor.KindQuota:
		q, u := ev.Quota, "-"
		if q.Utilization != nil {
			u = jsonNum(*q.Utilization)
		}
		return "quota " + q.Window + " " + q.Status + " " + u + " " + strconv.FormatInt(q.ResetsAt, 10) + " " + q.Source + q.Account
	}
	return string(ev.Kind)
}

func jsonNum(f float64) string {
	f = math.Round(f*1e9) / 1e9
	b, _ := json.Marshal(f)
	s := string(b)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func briefs(evs []executor.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = brief(ev)
	}
	return out
}

func wantEvents(t *testing.T, got []executor.Event, want ...string) {
	t.Helper()
	g := briefs(got)
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n  %s\nwant:\n  %s", strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
}

// The reference transcript: init repeats each turn but the session is
// reported once; an MCP tool call and its list-form result; the running
// total becomes per-turn costs (0.098255, then 0.29628 - 0.098255).
func TestParseReferenceBasic(t *testing.T) {
	got := mapLines(recorded(t, "reference-stream-json.txt", "basic").out)
	wantEvents(t, got.events,
		"status init 5e0fde31-cbbe-42c4-8fbe-e7460fd2e049 ",
		"text assistant Hello from fake anthropic.",
		"cost 0.098255 claude-opus-4-8",
		"text assistant \n\nCalling echo.",
		`call toolu_87ec8a33d8ed40f79eeb6267 mcp__fake__echo {"text":"ping"}`,
		"result toolu_87ec8a33d8ed40f79eeb6267 mcp__fake__echo echo: ping",
		"text assistant \n\nTool said: echo: ping",
		"cost 0.198025 claude-opus-4-8",
	)
	if len(got.results) != 2 || got.results[1].Text != "Tool said: echo: ping" {
		t.Fatalf("results %+v", got.results)
	}
	wantEvents(t, Outcome(got.results[1], false), "done success Tool said: echo: ping")
	if got.events[0].Model != "claude-opus-4-8[1m]" {
		t.Fatalf("init model %q", got.events[0].Model)
	}
	if u := got.events[2].Usage; u == nil || u.InputTokens != 19581 || u.OutputTokens != 14 {
		t.Fatalf("usage %+v", u)
	}
}

func TestParseMaxTurns(t *testing.T) {
	for _, c := range []struct{ file, name, msg string }{
		{"reference-stream-json.txt", "maxturns", "Reached maximum number of turns (1)"},
		{"max-turns.txt", "max-turns", "Reached maximum number of turns (2)"},
	} {
		got := mapLines(recorded(t, c.file, c.name).out)
		if len(got.results) != 1 {
			t.Fatalf("%s: %d results", c.name, len(got.results))
		}
		wantEvents(t, Outcome(got.results[0], false), "done max_turns "+c.msg)
	}
}

// An API error is a result with subtype success and is_error true: a
// fatal error and done error, and the CLI's synthetic assistant message
// with the same text is not the agent's reply.
func TestParseAPIError(t *testing.T) {
	got := mapLines(recorded(t, "api-error.txt", "api-error").out)
	for _, ev := range got.events {
		if ev.Kind == executor.KindTextDelta {
			t.Fatalf("synthetic message emitted as text: %q", ev.Text)
		}
	}
	if len(got.results) != 1 || got.results[0].APIErrorStatus != 400 {
		t.Fatalf("results %+v", got.results)
	}
	wantEvents(t, Outcome(got.results[0], false),
		"error api_error API Error: 400 scripted failure", "done error API Error: 400 scripted failure")
	if ev := Outcome(got.results[0], false)[0]; !ev.Fatal {
		t.Fatal("the API error must be fatal")
	}
}

// Interrupted while streaming (with partial messages on) and while a tool
// ran: aborted when the host asked, an error when it did not; the same
// process runs a normal turn after, with its own cost.
func TestParseInterrupt(t *testing.T) {
	got := mapLines(recorded(t, "reference-stream-json.txt", "interrupt").out)
	if len(got.results) != 2 || got.results[0].Subtype != "error_during_execution" {
		t.Fatalf("results %+v", got.results)
	}
	wantEvents(t, Outcome(got.results[0], true), "done aborted aborted")
	if evs := Outcome(got.results[0], false); evs[len(evs)-1].Reason != executor.DoneError {
		t.Fatalf("an interrupt the host did not ask for is an error: %v", briefs(evs))
	}
	var costs []string
	for _, ev := range got.events {
		if ev.Kind == executor.KindCost {
			costs = append(costs, brief(ev))
		}
	}
	if strings.Join(costs, ",") != "cost 0 claude-opus-4-8,cost 0.097845 claude-opus-4-8" {
		t.Fatalf("costs %v", costs)
	}

	tool := mapLines(recorded(t, "interrupt-tool.txt", "interrupt-tool").out)
	var res *executor.Event
	for i, ev := range tool.events {
		if ev.Kind == executor.KindToolResult {
			res = &tool.events[i]
		}
	}
	if res == nil || !res.IsError || res.Name != "Bash" || !strings.Contains(res.Output, "doesn't want to proceed") {
		t.Fatalf("interrupted tool result %+v", res)
	}
	wantEvents(t, Outcome(tool.results[0], true), "done aborted aborted")
}

// A thinking block is reasoning; Bash's result arrives as a plain string.
func TestParseToolAndThinking(t *testing.T) {
	got := mapLines(recorded(t, "tool-thinking.txt", "tool-thinking").out)
	wantEvents(t, got.events[1:],
		"text reasoning The user wants a file; Bash can write it.",
		"text assistant Writing it.",
		`call toolu_fake_3 Bash {"command":"echo hello > notes.md && cat notes.md","description":"write notes.md"}`,
		"result toolu_fake_3 Bash hello",
		"text assistant \n\nWrote: hello",
		"cost 0.002 claude-opus-4-8",
	)
	if got.replays[0] != "00000000-0000-4000-8000-000000000003" {
		t.Fatalf("replays %v", got.replays)
	}
}

// A steer with priority next is read inside the turn (its replay comes
// before the one result); priority later is a turn of its own after the
// first result, with its own share of the running total.
func TestParseSteers(t *testing.T) {
	next := mapLines(recorded(t, "steer-next.txt", "steer-next").out)
	if len(next.results) != 1 || strings.Join(next.replays, ",") !=
		"00000000-0000-4000-8000-000000000004,00000000-0000-4000-8000-000000000005" {
		t.Fatalf("next: %d results, replays %v", len(next.results), next.replays)
	}
	later := recorded(t, "steer-later.txt", "steer-later")
	m := NewMapper()
	var order []string
	for _, l := range later.out {
		p := m.Line([]byte(l), false)
		if p.Replay != "" {
			order = append(order, "read "+p.Replay[len(p.Replay)-2:])
		}
		if p.Result != nil {
			order = append(order, brief(*m.Cost(*p.Result)))
		}
	}
	if strings.Join(order, ",") != "read 06,cost 0.002 claude-opus-4-8,read 07,cost 0.001 claude-opus-4-8" {
		t.Fatalf("later: %v", order)
	}
}

// A resumed process keeps the session id and starts its running total at
// zero; a session the CLI cannot find is recognised.
func TestParseResume(t *testing.T) {
	first := mapLines(recorded(t, "basic.txt", "basic").out)
	again := mapLines(recorded(t, "resume.txt", "resume").out)
	if first.session == "" || again.session != first.session {
		t.Fatalf("sessions %q then %q", first.session, again.session)
	}
	if c := again.events[len(again.events)-1]; c.Kind != executor.KindCost || *c.CostUSD != 0.001 {
		t.Fatalf("resumed cost %v", brief(c))
	}
	if again.results[0].NoConversation() {
		t.Fatal("a resumed turn is not a missing conversation")
	}
	lost := mapLines(recorded(t, "resume-missing.txt", "resume-missing").out)
	if len(lost.results) != 1 || !lost.results[0].NoConversation() {
		t.Fatalf("missing conversation not recognised: %+v", lost.results)
	}
}

// A permission request from the CLI must be answered; a denied tool's
// result is an error with the host's message.
func TestParseControlRequests(t *testing.T) {
	got := mapLines(recorded(t, "reference-stream-json.txt", "permission").out)
	if len(got.requests) != 2 || got.requests[0] != "0cc4f9c7-7730-492d-9cd9-d6bef21d7dcd" {
		t.Fatalf("requests %v", got.requests)
	}
	var denied bool
	for _, ev := range got.events {
		denied = denied || (ev.Kind == executor.KindToolResult && ev.IsError && ev.Output == "host says no")
	}
	if !denied {
		t.Fatalf("denied result missing: %v", briefs(got.events))
	}
}

// A line cut at the reader's bound still opens and closes its tool call;
// other cut lines and non-JSON are ignored.
func TestParseTruncatedAndJunk(t *testing.T) {
	m := NewMapper()
	call := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_big","name":"Write","input":{"content":"xxxx`
	p := m.Line([]byte(call), true)
	wantEvents(t, p.Events, `call toolu_big Write {"note":"input too large to record"}`)
	res := `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_big","type":"tool_result","content":"yyyy`
	wantEvents(t, m.Line([]byte(res), true).Events, "result toolu_big Write [tool output too large to record]")
	for _, junk := range []string{`{"type":"result","subtype":"succ`, "not json", "", `{"type":"stream_event"}`, `[1,2]`} {
		if p := m.Line([]byte(junk), strings.HasPrefix(junk, "{\"type\":\"result")); len(p.Events) != 0 || p.Result != nil {
			t.Fatalf("%q gave %+v", junk, p)
		}
	}
}

func TestToolOutputIsCapped(t *testing.T) {
	m := NewMapper()
	big := strings.Repeat("é", MaxToolOutput) // 2 bytes each
	line, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{
		"role":    "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": big}},
	}})
	evs := m.Line(line, false).Events
	if len(evs) != 1 || len(evs[0].Output) > MaxToolOutput+64 || !strings.Contains(evs[0].Output, "more characters not recorded") {
		t.Fatalf("output of %d bytes", len(evs[0].Output))
	}
	if !json.Valid([]byte(`"` + strings.Split(evs[0].Output, "\n")[0] + `"`)) {
		t.Fatal("cut inside a character")
	}
}

// A total that goes down (a restarted count) is all new, never negative.
func TestCostNeverNegative(t *testing.T) {
	m := NewMapper()
	one, half := 1.0, 0.5
	if c := m.Cost(Result{TotalCostUSD: &one}); *c.CostUSD != 1 {
		t.Fatal(*c.CostUSD)
	}
	if c := m.Cost(Result{TotalCostUSD: &half}); *c.CostUSD != 0.5 {
		t.Fatal(*c.CostUSD)
	}
	if m.Cost(Result{}) != nil {
		t.Fatal("no total, no cost event")
	}
}

// rate_limit_event lines as the pinned CLI wrote them against fakeanthropic
// with unified headers (a claude.ai login), then odd ones: every odd or
// partial event is skipped, and none ends the run.
func TestParseRateLimitEvent(t *testing.T) {
	ev := func(info string) string {
		return `{"type":"rate_limit_event","rate_limit_info":` + info + `,"uuid":"u1","session_id":"s1"}`
	}
	cases := []struct{ line, want string }{
		{
			ev(`{"status":"allowed_warning","resetsAt":1796232106,"rateLimitType":"five_hour","utilization":0.93,"isUsingOverage":false,"surpassedThreshold":0.9}`),
			"quota five_hour allowed_warning 0.93 1796232106000 rate_limit_event",
		},
		{
			ev(`{"status":"rejected","resetsAt":1796232112,"rateLimitType":"five_hour","isUsingOverage":false}`),
			"quota five_hour rejected - 1796232112000 rate_limit_event",
		},
		{
			ev(`{"status":"allowed","resetsAt":1796232112,"rateLimitType":"seven_day","isUsingOverage":false,"overageStatus":"rejected","overageDisabledReason":"org_level_disabled"}`),
			"quota seven_day allowed - 1796232112000 rate_limit_event",
		},
		// Names the CLI's schema lists, and one it may add later, lower-cased.
		{ev(`{"status":"allowed","rateLimitType":"seven_day_opus"}`), "quota seven_day_opus allowed - 0 rate_limit_event"},
		{ev(`{"status":"Rejected","rateLimitType":"Seven_Day_Fable","resetsAt":1796232112.4}`), "quota seven_day_fable rejected - 1796232112400 rate_limit_event"},
		// A reset already in milliseconds is kept; a nonsense one is unknown.
		{ev(`{"status":"allowed","rateLimitType":"overage","resetsAt":1796232112000}`), "quota overage allowed - 1796232112000 rate_limit_event"},
		{ev(`{"status":"allowed","rateLimitType":"overage","resetsAt":-5}`), "quota overage allowed - 0 rate_limit_event"},
		{ev(`{"status":"allowed","rateLimitType":"overage","resetsAt":1e300}`), "quota overage allowed - 0 rate_limit_event"},
		// A utilization that is not a fraction is dropped, the window kept.
		{ev(`{"status":"allowed_warning","rateLimitType":"five_hour","utilization":93}`), "quota five_hour allowed_warning - 0 rate_limit_event"},
		{ev(`{"status":"allowed_warning","rateLimitType":"five_hour","utilization":-0.1}`), "quota five_hour allowed_warning - 0 rate_limit_event"},
		{ev(`{"status":"allowed_warning","rateLimitType":"five_hour","utilization":1}`), "quota five_hour allowed_warning 1.0 0 rate_limit_event"},
		// Skipped: no window, no or unknown status, a name that is not a
		// plain word or is too long, info of the wrong shape, no info.
		{ev(`{"status":"allowed","resetsAt":1796232112}`), ""},
		{ev(`{"resetsAt":1796232112,"rateLimitType":"five_hour"}`), ""},
		{ev(`{"status":"throttled","rateLimitType":"five_hour"}`), ""},
		{ev(`{"status":"allowed","rateLimitType":"five hour"}`), ""},
		{ev(`{"status":"allowed","rateLimitType":"five-hour"}`), ""},
		{ev(`{"status":"allowed","rateLimitType":"` + strings.Repeat("w", 41) + `"}`), ""},
		{ev(`{"status":"allowed","rateLimitType":7}`), ""},
		{ev(`{"status":"allowed","rateLimitType":"five_hour","resetsAt":"soon"}`), ""},
		{ev(`"allowed"`), ""},
		{ev(`null`), ""},
		{`{"type":"rate_limit_event"}`, ""},
		{`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","rateLimitType":"five_hour"`, ""},
	}
	for _, c := range cases {
		p := NewMapper().Line([]byte(c.line), false)
		if p.Result != nil || p.Replay != "" || p.ControlRequest != "" {
			t.Fatalf("%s: parsed as %+v", c.line, p)
		}
		got := strings.Join(briefs(p.Events), "; ")
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.line, got, c.want)
		}
	}
	// A rate_limit_event cut at the reader's bound is dropped, not guessed.
	if p := NewMapper().Line([]byte(ev(`{"status":"rejected","rateLimitType":"five_hour"}`))[:60], true); len(p.Events) != 0 {
		t.Fatalf("truncated: %v", briefs(p.Events))
	}
}
