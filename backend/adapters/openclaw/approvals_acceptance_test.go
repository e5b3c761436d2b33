package openclaw

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
)

// execRule asks for the built-in exec tool, then reports its output.
func execRule(match, command string) fakeresponses.Rule {
	args, _ := json.Marshal(map[string]string{"command": command})
	return fakeresponses.Rule{Match: match, Steps: []fakeresponses.Step{
		{Call: &fakeresponses.Call{Tool: "^exec$", Args: string(args)}},
		{Text: "Exec said: {result}"},
	}}
}

func execResult(t *testing.T, evs []executor.Event) executor.Event {
	t.Helper()
	for _, ev := range evs {
		if ev.Kind == executor.KindToolResult && ev.Name == "exec" {
			return ev
		}
	}
	t.Fatalf("no exec result in %+v", evs)
	return executor.Event{}
}

// The Gateway's exec policy is "ask" (tools.exec.mode), and our
// connection advertises exec-approvals, so each command waits for the
// relay's answer.
func TestRealExecApprovalRelayedBothWays(t *testing.T) {
	e := newRealEnv(t, execRule("exec-allow", "echo approved-marker-41"), execRule("exec-deny", "echo denied-marker-42"))
	questions := make(chan Question, 4)
	answer := make(chan bool, 4)
	rl := &Relay{Client: e.c, RunFor: e.a.RunFor, Ask: func(ctx context.Context, q Question, ttl time.Duration) (bool, error) {
		questions <- q
		select {
		case ok := <-answer:
			return ok, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}}
	ctx, cancel := context.WithCancel(context.Background())
	wait := rl.Start(ctx)
	defer func() { cancel(); wait() }()

	for _, tc := range []struct {
		msg, marker string
		allow       bool
	}{{"exec-allow", "approved-marker-41", true}, {"exec-deny", "denied-marker-42", false}} {
		r, id := e.start(t, tc.msg, "")
		var q Question
		select {
		case q = <-questions:
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: no approval question; gateway log:\n%s", tc.msg, tail(e.g.Log(), 3000))
		}
		if !strings.Contains(q.Command, tc.marker) || q.RunID != string(id) || q.AgentID != "ag-acc" {
			t.Fatalf("question %+v (run %s)", q, id)
		}
		answer <- tc.allow
		evs, done := e.collect(t, r, id)
		res := execResult(t, evs)
		ran := strings.Contains(res.Output, tc.marker) && !res.IsError
		if ran != tc.allow || done.Reason != executor.DoneSuccess {
			t.Fatalf("%s: allowed=%v but result %+v, done %+v", tc.msg, tc.allow, res, done)
		}
	}
}

// An answer given in OpenClaw's own UI (here: a second operator client)
// withdraws ours.
func TestRealExecApprovalAnsweredInOpenClawWithdrawsOurs(t *testing.T) {
	e := newRealEnv(t, execRule("exec-elsewhere", "echo elsewhere-marker-43"))
	withdrawn := make(chan error, 1)
	asked := make(chan struct{}, 1)
	rl := &Relay{Client: e.c, Ask: func(ctx context.Context, q Question, ttl time.Duration) (bool, error) {
		asked <- struct{}{}
		<-ctx.Done()
		withdrawn <- ctx.Err()
		return false, ctx.Err()
	}}
	ctx, cancel := context.WithCancel(context.Background())
	wait := rl.Start(ctx)
	defer func() { cancel(); wait() }()

	id, err := LoadIdentity(filepath.Join(t.TempDir(), "other-ui"))
	if err != nil {
		t.Fatal(err)
	}
	other := NewClient(ClientOptions{Identity: id, Settings: func(context.Context) Settings {
		return Settings{URL: e.g.URL, Token: sentinelToken}
	}})
	other.Start()
	defer other.Close()
	sub := other.Subscribe(1024)
	defer sub.Close()

	r, runID := e.start(t, "exec-elsewhere", "")
	var approvalID string
	deadline := time.After(60 * time.Second)
	for approvalID == "" {
		select {
		case ev := <-sub.C():
			if ev.Name == "exec.approval.requested" {
				var p execRequested
				_ = json.Unmarshal(ev.Payload, &p)
				approvalID = p.ID
			}
		case <-deadline:
			t.Fatal("the other client saw no approval request")
		}
	}
	<-asked
	rctx, rcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer rcancel()
	if err := other.Request(rctx, "exec.approval.resolve", map[string]any{"id": approvalID, "decision": "allow-once"}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-withdrawn:
	case <-time.After(30 * time.Second):
		t.Fatal("our question was not withdrawn after OpenClaw's own answer")
	}
	evs, _ := e.collect(t, r, runID)
	if res := execResult(t, evs); !strings.Contains(res.Output, "elsewhere-marker-43") {
		t.Fatalf("the command allowed elsewhere did not run: %+v", res)
	}
}
