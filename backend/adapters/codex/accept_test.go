package codex

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
)

// Acceptance tests: the real, pinned codex (app-server unless a test says
// otherwise) fully offline against the scripted Responses API.

func shellRule(match, cmd, after string) fakeresponses.Rule {
	return fakeresponses.Rule{Match: match, Steps: []fakeresponses.Step{
		{Text: "Running it.", Call: &fakeresponses.Call{Tool: "^exec_command$", Args: `{"cmd":` + quote(cmd) + `}`}},
		{Text: after},
	}}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// costOf sums the run's cost events, which must carry tokens and no price.
func costOf(t *testing.T, evs []executor.Event) executor.Usage {
	t.Helper()
	var u executor.Usage
	n := 0
	for _, e := range evs {
		if e.Kind != executor.KindCost {
			continue
		}
		n++
		if e.CostUSD != nil || e.Usage == nil {
			t.Fatalf("codex cost events carry tokens without a price: %+v", e)
		}
		kind, _ := budget.Classify(budget.CostReport{
			CostUSD: e.CostUSD, InputTokens: e.Usage.InputTokens,
			OutputTokens: e.Usage.OutputTokens, Model: e.Model,
		})
		if kind != budget.KindTokenEstimate {
			t.Fatalf("ledger kind %q, want token-estimate", kind)
		}
		u.InputTokens += e.Usage.InputTokens
		u.OutputTokens += e.Usage.OutputTokens
	}
	if n == 0 {
		t.Fatalf("no cost event: %s", executortest.Describe(evs))
	}
	return u
}

// session is the last resume handle a run reported.
func handleOf(evs []executor.Event) string {
	s := ""
	for _, e := range evs {
		if e.Kind == executor.KindStatus && e.Session != "" {
			s = e.Session
		}
	}
	return s
}

// TestPlainTurn: text streamed, the thread reported as the resume handle,
// tokens with no price (ledger kind token-estimate) that match what the
// provider reported, and the key nowhere in the events.
func TestPlainTurn(t *testing.T) {
	w := newWorld(t, fakeresponses.Rule{Match: "hi", Steps: []fakeresponses.Step{{Text: "Hello from fake openai.", Input: 1234, Output: 7}}})
	login := `{"OPENAI_API_KEY":null,"tokens":{"id_token":"u","access_token":"u","refresh_token":"u"}}`
	loggedIn := time.Now().Add(-time.Hour).Truncate(time.Second)
	write(t, filepath.Join(w.userHome, "auth.json"), login, loggedIn)
	evs := w.runToEnd(executor.StartRequest{AgentID: "agent-1", Message: "hi", WorkDir: t.TempDir()})
	// The user's login was copied into the agent's home and left alone.
	if got := read(t, filepath.Join(w.clawboo, "runtimes", "codex", "agent-1", "auth.json")); got != login {
		t.Fatalf("managed auth.json %q", got)
	}
	if st, _ := os.Stat(filepath.Join(w.userHome, "auth.json")); read(t, filepath.Join(w.userHome, "auth.json")) != login || !st.ModTime().Equal(loggedIn) {
		t.Fatal("the user's auth.json was written")
	}
	d := executortest.Done(t, evs)
	if d.Reason != executor.DoneSuccess || d.Summary != "Hello from fake openai." || textOf(evs) != "Hello from fake openai." {
		t.Fatalf("done %+v text %q: %s", d, textOf(evs), executortest.Describe(evs))
	}
	if u := costOf(t, evs); u.InputTokens != 1234 || u.OutputTokens != 7 {
		t.Fatalf("usage %+v, want what the provider reported", u)
	}
	h := DecodeHandle(handleOf(evs))
	if h.Thread == "" || h.Totals.Input != 1234 {
		t.Fatalf("handle %+v", h)
	}
	reqs := w.fake.Requests()
	if len(reqs) != 1 || reqs[0].APIKey != sentinel || reqs[0].UserText != "hi" {
		t.Fatalf("provider saw %+v", reqs)
	}
	noSecret(t, evs)
}

// TestShellToolTurn: a built-in tool call and its result become events.
func TestShellToolTurn(t *testing.T) {
	w := newWorld(t, shellRule("run a shell", "echo shell-ok", "Shell said: {result}"))
	evs := w.runToEnd(executor.StartRequest{AgentID: "agent-1", Message: "run a shell command", WorkDir: t.TempDir()})
	var call, res *executor.Event
	for i := range evs {
		switch evs[i].Kind {
		case executor.KindToolCall:
			call = &evs[i]
		case executor.KindToolResult:
			res = &evs[i]
		}
	}
	if call == nil || res == nil || call.Name != "shell" || !strings.Contains(string(call.Input), "echo shell-ok") ||
		res.ToolCallID != call.ToolCallID || res.Output != "shell-ok\n" || res.IsError {
		t.Fatalf("tool events: %s", executortest.Describe(evs))
	}
	if d := executortest.Done(t, evs); d.Reason != executor.DoneSuccess || !strings.Contains(d.Summary, "shell-ok") {
		t.Fatalf("done %+v", d)
	}
}

// TestAbortDuringToolCall: turn/interrupt while a shell command runs ends
// the run aborted at once, and the command does not outlive it.
func TestAbortDuringToolCall(t *testing.T) {
	w := newWorld(t, shellRule("sleep", "sleep 41.73", "never"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run := w.start(ctx, w.adapter(), executor.StartRequest{AgentID: "agent-1", Message: "please sleep", WorkDir: t.TempDir()})
	var evs []executor.Event
	var abortedAt time.Time
	for ev := range run.Events() {
		evs = append(evs, ev)
		if ev.Kind == executor.KindToolCall && abortedAt.IsZero() {
			time.Sleep(300 * time.Millisecond) // the command is running
			if len(processes(t, "sleep 41.73")) == 0 {
				t.Error("the tool's command is not running")
			}
			abortedAt = time.Now()
			if err := run.Abort(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	d := executortest.Done(t, evs)
	if abortedAt.IsZero() || d.Reason != executor.DoneAborted {
		t.Fatalf("events: %s", executortest.Describe(evs))
	}
	if el := time.Since(abortedAt); el > 3*time.Second {
		t.Fatalf("abort took %v", el)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		out := processes(t, "sleep 41.73")
		if len(out) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tool's command outlived the aborted run: %s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := run.Abort(ctx); err != nil {
		t.Fatalf("abort after the end: %v", err)
	}
}

// TestResume: the second run continues the first one's thread with
// thread/resume; the model sees the whole history, and the second run is
// charged only its own tokens.
func TestResume(t *testing.T) {
	w := newWorld(t,
		fakeresponses.Rule{Match: "zebra", Steps: []fakeresponses.Step{{Text: "Noted.", Input: 1000, Output: 10}}},
		fakeresponses.Rule{Match: "what did I say", Steps: []fakeresponses.Step{{Text: "You said zebra.", Input: 2500, Output: 20}}})
	dir := t.TempDir()
	first := w.runToEnd(executor.StartRequest{AgentID: "agent-r", Message: "remember the word zebra", WorkDir: dir})
	h1 := DecodeHandle(handleOf(first))
	if executortest.Done(t, first).Reason != executor.DoneSuccess || h1.Thread == "" {
		t.Fatalf("first run: %s", executortest.Describe(first))
	}
	second := w.runToEnd(executor.StartRequest{AgentID: "agent-r", Message: "what did I say", WorkDir: dir, Resume: handleOf(first)})
	if d := executortest.Done(t, second); d.Reason != executor.DoneSuccess || d.Summary != "You said zebra." {
		t.Fatalf("second run: %s", executortest.Describe(second))
	}
	h2 := DecodeHandle(handleOf(second))
	if h2.Thread != h1.Thread || h2.Totals.Input != 3500 || h2.Totals.Output != 30 {
		t.Fatalf("handles %+v then %+v", h1, h2)
	}
	if u := costOf(t, second); u.InputTokens != 2500 || u.OutputTokens != 20 {
		t.Fatalf("second run charged %+v, want only its own tokens", u)
	}
	reqs := w.fake.Requests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(string(last.Body), "remember the word zebra") || !strings.Contains(string(last.Body), "Noted.") {
		t.Fatal("the resumed turn did not carry the thread's history")
	}
}

// TestSteer: a steer goes into the live turn (turn/steer); codex drops
// the in-flight answer and asks again with both messages.
func TestSteer(t *testing.T) {
	w := newWorld(t,
		fakeresponses.Rule{Match: "^steer:", Steps: []fakeresponses.Step{{Text: "Steered answer."}}},
		fakeresponses.Rule{Match: "be slow", Steps: []fakeresponses.Step{{Text: "one two three four five six seven eight nine ten", Delay: 400 * time.Millisecond}}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run := w.start(ctx, w.adapter(), executor.StartRequest{AgentID: "agent-s", Message: "be slow please", WorkDir: t.TempDir()})
	var evs []executor.Event
	var res executor.SteerResult
	for ev := range run.Events() {
		evs = append(evs, ev)
		if ev.Kind == executor.KindTextDelta && res == "" {
			var err error
			if res, err = run.Steer(ctx, executor.Steer{Text: "steer: also say hi", Mode: executor.SteerNext}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if res != executor.SteerDelivered {
		t.Fatalf("steer %q: %s", res, executortest.Describe(evs))
	}
	if d := executortest.Done(t, evs); d.Reason != executor.DoneSuccess || d.Summary != "Steered answer." {
		t.Fatalf("done %+v: %s", d, executortest.Describe(evs))
	}
	reqs := w.fake.Requests()
	if len(reqs) != 2 || reqs[1].UserText != "steer: also say hi" || !strings.Contains(string(reqs[1].Body), "be slow please") {
		t.Fatalf("provider saw %d requests", len(reqs))
	}
	if got, _ := run.Steer(ctx, executor.Steer{Text: "late", Mode: executor.SteerNext}); got != executor.SteerRunEnded {
		t.Fatalf("steer after the end: %q", got)
	}
}

// TestAPIError: a provider error ends the run failed with its message.
func TestAPIError(t *testing.T) {
	for _, tc := range []struct {
		name string
		step fakeresponses.Step
		want string
	}{
		{"http 400", fakeresponses.Step{Status: 400}, "fake: scripted failure"},
		{"stream failed", fakeresponses.Step{Text: "partial", Fail: "fake mid-stream failure"}, "stream disconnected before completion: fake mid-stream failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, fakeresponses.Rule{Match: "fail", Steps: []fakeresponses.Step{tc.step}})
			evs := w.runToEnd(executor.StartRequest{AgentID: "agent-e", Message: "fail please", WorkDir: t.TempDir()})
			d := executortest.Done(t, evs)
			fatal := false
			for _, e := range evs {
				fatal = fatal || (e.Kind == executor.KindError && e.Fatal && strings.Contains(e.Message, tc.want))
			}
			if d.Reason != executor.DoneError || !strings.Contains(d.Summary, tc.want) || !fatal {
				t.Fatalf("events: %s", executortest.Describe(evs))
			}
			noSecret(t, evs)
		})
	}
}
