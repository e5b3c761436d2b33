package hermes

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
)

var orKey = map[string]string{"OPENROUTER_API_KEY": "sk-or-test-0123456789abcdef"}

func TestContract(t *testing.T) {
	executortest.RunContract(t, executortest.Harness{
		New: func(t *testing.T) executor.Adapter { return newFixture(t, orKey).a },
		Request: func(t *testing.T, scenario string) executor.StartRequest {
			msg := "say hi\n!reply hi"
			if scenario == "hold" {
				msg = "!hang"
			}
			return executor.StartRequest{AgentID: "agent-c", Message: msg}
		},
		OwnsChildren: true,
	})
}

func TestPlainRun(t *testing.T) {
	f := newFixture(t, orKey)
	req := f.request("agent-1", "!reply first line\n!reply\n!reply last line")
	req.Context = "You work on the Clawboo board."
	evs, done := f.runToEnd(t, req)
	if done.Reason != executor.DoneSuccess || done.Summary != "first line\n\nlast line" {
		t.Fatalf("done %+v", done)
	}
	if got := text(evs); got != "first line\n\nlast line\n" {
		t.Fatalf("text %q", got)
	}
	if evs[0].Kind != executor.KindStatus || evs[0].Phase != executor.PhaseInit || evs[0].Model != "openai/gpt-4o-mini" {
		t.Fatalf("first event %+v", evs[0])
	}
	for _, e := range evs {
		if e.Kind == executor.KindCost {
			t.Fatalf("hermes reports no cost, yet a cost event was emitted: %+v", e)
		}
	}
	invs := f.invocations(t, "agent-1")
	if len(invs) != 1 {
		t.Fatalf("%d invocations", len(invs))
	}
	inv := invs[0]
	wantArgv := []string{
		"chat", "-q", "You work on the Clawboo board.\n\n" + req.Message, "-Q", "--yolo", "--accept-hooks",
		"-m", "openai/gpt-4o-mini", "--provider", "openrouter",
	}
	if strings.Join(inv.Argv, "\x00") != strings.Join(wantArgv, "\x00") {
		t.Fatalf("argv %q", inv.Argv)
	}
	hs := sessions(evs)
	if len(hs) != 1 || decodeHandle(hs[0]).Session != inv.Session || decodeHandle(hs[0]).Agent != "agent-1" {
		t.Fatalf("resume handles %q, session %q", hs, inv.Session)
	}
}

func TestResumePassesTheLastSession(t *testing.T) {
	f := newFixture(t, orKey)
	evs, done := f.runToEnd(t, f.request("agent-1", "!reply one"))
	if done.Reason != executor.DoneSuccess {
		t.Fatal(done)
	}
	h := sessions(evs)[0]
	req := f.request("agent-1", "!history")
	req.Resume = h
	evs, done = f.runToEnd(t, req)
	if done.Reason != executor.DoneSuccess || done.Summary != "history=2" {
		t.Fatalf("resumed run %+v", done)
	}
	invs := f.invocations(t, "agent-1")
	first := invs[0].Session
	if invs[1].Resume != first || invs[1].Session != first || !strings.Contains(strings.Join(invs[1].Argv, " "), "--resume "+first) {
		t.Fatalf("second run %+v, first session %s", invs[1], first)
	}
	if got := sessions(evs); len(got) != 1 || got[0] != h {
		t.Fatalf("handles %q want %q", got, h)
	}

	// Another agent's home does not hold that session: no --resume there.
	req = f.request("agent-2", "!reply fresh")
	req.Resume = h
	if _, done := f.runToEnd(t, req); done.Reason != executor.DoneSuccess {
		t.Fatal(done)
	}
	if inv := f.invocations(t, "agent-2")[0]; inv.Resume != "" {
		t.Fatalf("resumed another agent's session: %+v", inv)
	}
	// A run with no agent has a throwaway home: no --resume, no handle.
	req = f.request("", "!env")
	req.Resume = h
	evs, done = f.runToEnd(t, req)
	if done.Reason != executor.DoneSuccess || !strings.Contains(done.Summary, "resume=\n") || len(sessions(evs)) != 0 {
		t.Fatalf("throwaway run %+v %q", done, sessions(evs))
	}
}

func TestSteerStopsAndResumesInOneRun(t *testing.T) {
	f := newFixture(t, orKey)
	run := f.start(t, f.request("agent-1", "!stream 1 0\n!hang"))
	evs := waitText(t, run, "stream line 1")
	res, err := run.Steer(context.Background(), executor.Steer{Text: "!reply steered answer", Mode: executor.SteerNext})
	if err != nil || res != executor.SteerDelivered {
		t.Fatalf("steer %q %v", res, err)
	}
	rest, done := collect(t, run)
	evs = append(evs, rest...)
	if done.Reason != executor.DoneSuccess || done.Summary != "steered answer" {
		t.Fatalf("done %+v", done)
	}
	var dones int
	for _, e := range evs {
		if e.Kind == executor.KindDone {
			dones++
		}
	}
	if dones != 1 || !strings.Contains(text(evs), "stream line 1\nsteered answer\n") {
		t.Fatalf("%d dones, text %q", dones, text(evs))
	}
	invs := f.invocations(t, "agent-1")
	if len(invs) != 2 || invs[1].Resume != invs[0].Session || !strings.Contains(strings.Join(invs[1].Argv, "\x00"), "-q\x00!reply steered answer\x00") {
		t.Fatalf("invocations %+v", invs)
	}
	if r, _ := run.Steer(context.Background(), executor.Steer{Text: "late", Mode: executor.SteerNext}); r != executor.SteerRunEnded {
		t.Fatalf("steer after the end: %q", r)
	}
}

func TestPassiveSteerIsRefused(t *testing.T) {
	f := newFixture(t, orKey)
	run := f.start(t, f.request("agent-1", "!stream 1 0\n!hang"))
	waitText(t, run, "stream line 1")
	for _, s := range []executor.Steer{{Text: "fyi", Mode: executor.SteerPassive}, {Text: "  ", Mode: executor.SteerNext}} {
		if r, err := run.Steer(context.Background(), s); err != nil || r != executor.SteerRejected {
			t.Fatalf("%+v: %q %v", s, r, err)
		}
	}
	_ = run.Abort(context.Background())
	if _, done := collect(t, run); done.Reason != executor.DoneAborted {
		t.Fatalf("done %+v", done)
	}
	if n := len(f.invocations(t, "agent-1")); n != 1 {
		t.Fatalf("a refused steer started %d processes", n)
	}
}

func TestFailuresBecomeFailedRuns(t *testing.T) {
	for _, tc := range []struct {
		name, msg, want string
		keys            map[string]string
		tweak           func(*Options)
	}{
		{"crash", "!crash", "hermes failed (exit 1): Traceback (most recent call last): |", orKey, nil},
		{"error line", "!fail upstream said no", "hermes failed (exit 1): upstream said no", orKey, nil},
		{"non-zero exit", "!exit 3", "hermes failed (exit 3)", orKey, nil},
		{"killed", "!killed", "hermes was killed by signal killed", orKey, nil},
		{"no reply", "!silent", "hermes exited without a reply", orKey, nil},
		{"no provider", "hi", "no Hermes provider: connect an OpenRouter, Anthropic or OpenAI key", map[string]string{}, nil},
		{"hang", "!hang", "hermes wrote nothing for 300ms; stopped it", orKey, func(o *Options) { o.Silence = 300 * time.Millisecond }},
		{"flood", "!flood 500", "hermes wrote more than 65536 bytes of output; stopped it", orKey, func(o *Options) { o.MaxOutput = 64 << 10 }},
		{"endless flood", "!flood 0", "hermes wrote more than 1048576 bytes of output; stopped it", orKey, func(o *Options) { o.MaxOutput = 1 << 20 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tweaks []func(*Options)
			if tc.tweak != nil {
				tweaks = append(tweaks, tc.tweak)
			}
			f := newFixture(t, tc.keys, tweaks...)
			evs, done := f.runToEnd(t, f.request("agent-1", tc.msg))
			if done.Reason != executor.DoneError || !strings.HasPrefix(done.Summary, tc.want) {
				t.Fatalf("done %+v", done)
			}
			var fatal int
			for _, e := range evs {
				if e.Kind == executor.KindError && e.Fatal && e.Message == done.Summary {
					fatal++
				}
			}
			if fatal != 1 {
				t.Fatalf("want one fatal error with the message: %+v", evs)
			}
			var out int
			for _, e := range evs {
				out += len(e.Text)
			}
			if out > 2<<20 {
				t.Fatalf("%d bytes of text reported", out)
			}
		})
	}
}

func TestProviderFromKeysAndConfig(t *testing.T) {
	all := map[string]string{"OPENROUTER_API_KEY": "k-or", "ANTHROPIC_API_KEY": "k-an", "OPENAI_API_KEY": "k-oa"}
	for _, tc := range []struct {
		name, config, model string
		keys                map[string]string
		flag, provider, m   string
		passed              string // the one key variable the child got
	}{
		{"openrouter first", "", "", all, "openrouter", "openrouter", "openai/gpt-4o-mini", "OPENROUTER_API_KEY"},
		{"anthropic next", "", "", map[string]string{"ANTHROPIC_API_KEY": "k-an", "OPENAI_API_KEY": "k-oa"}, "anthropic", "anthropic", "claude-haiku-4-5", "ANTHROPIC_API_KEY"},
		{"openai last, run model", "", "gpt-5", map[string]string{"OPENAI_API_KEY": "k-oa"}, "openai-api", "openai-api", "gpt-5", "OPENAI_API_KEY"},
		{"seeded config decides", "model:\n  provider: anthropic\n  default: claude-sonnet-4\n", "", all, "", "anthropic", "", "ANTHROPIC_API_KEY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.keys)
			if tc.config != "" {
				writeFile(t, f.userConfig(), tc.config)
			}
			req := f.request("agent-1", "!env")
			req.Model = tc.model
			_, done := f.runToEnd(t, req)
			if done.Reason != executor.DoneSuccess {
				t.Fatalf("done %+v", done)
			}
			inv := f.invocations(t, "agent-1")[0]
			if inv.FlagProvider != tc.flag || inv.Provider != tc.provider || inv.Model != tc.m {
				t.Fatalf("flag %q provider %q model %q", inv.FlagProvider, inv.Provider, inv.Model)
			}
			for _, v := range []string{"OPENROUTER_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"} {
				want := "unset"
				if v == tc.passed {
					want = keyHash(tc.keys[v])
				}
				if inv.Keys[v] != want {
					t.Fatalf("%s: child saw %s, want %s (ambient keys must not pass)", v, inv.Keys[v], want)
				}
			}
			for _, name := range inv.Env {
				switch name {
				case "PATH", "HOME", "HERMES_HOME", "PYTHONUNBUFFERED", tc.passed:
				default:
					t.Fatalf("child environment has %s: %v", name, inv.Env)
				}
			}
		})
	}
}

func TestHealthIsBinaryFound(t *testing.T) {
	f := newFixture(t, orKey)
	if h := executor.ProbeHealth(context.Background(), f.a); !h.OK {
		t.Fatal(h)
	}
	missing := New(Options{Find: func() (string, bool) { return "", false }})
	if h := executor.ProbeHealth(context.Background(), missing); h.OK || !strings.Contains(h.Message, "pip/pipx") {
		t.Fatal(h)
	}
	if _, err := missing.Start(context.Background(), f.request("a", "x")); err != ErrNotInstalled {
		t.Fatalf("start without hermes: %v", err)
	}
	if c := f.a.Capabilities(); c.Streaming || !c.Steering || c.ModelChange || c.Models == nil || c.RuntimeClass != executor.WrappedOneShot {
		t.Fatalf("capabilities %+v", c)
	}
}

func TestSentinelSecretsNeverInEvents(t *testing.T) {
	const sentinel = "sk-or-v1-SENTINEL-d41d8cd98f00b204e980"
	f := newFixture(t, map[string]string{"OPENROUTER_API_KEY": sentinel})
	for _, msg := range []string{"!env\n!mcp\n!config", "!fail key " + "was rejected", "!crash"} {
		evs, _ := f.runToEnd(t, f.request("agent-1", msg))
		b, _ := json.Marshal(evs)
		for _, secret := range []string{sentinel, testToken, "sk-ambient-SENTINEL"} {
			if strings.Contains(string(b), secret) {
				t.Fatalf("%q leaked into events of %q", secret, msg)
			}
		}
		if msg[1] == 'e' && !strings.Contains(string(b), "mcp-token="+keyHash(testToken)) {
			t.Fatalf("the child did not see the attach token in mcp.json: %s", b)
		}
	}
}

// A Hermes that must be killed for a steer never says its session id; with
// none known the steer cannot resume, and the run says so.
func TestSteerWithoutASessionFails(t *testing.T) {
	f := newFixture(t, orKey, func(o *Options) { o.Grace = 100 * time.Millisecond })
	run := f.start(t, f.request("agent-1", "!stubborn\n!stream 1 0\n!hang"))
	waitText(t, run, "stream line 1")
	if r, _ := run.Steer(context.Background(), executor.Steer{Text: "change course", Mode: executor.SteerNext}); r != executor.SteerDelivered {
		t.Fatalf("steer %q", r)
	}
	_, done := collect(t, run)
	if done.Reason != executor.DoneError || !strings.Contains(done.Summary, "without reporting its session id") {
		t.Fatalf("done %+v", done)
	}
}
