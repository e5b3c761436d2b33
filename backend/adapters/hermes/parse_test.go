package hermes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
)

func TestParseLines(t *testing.T) {
	for _, tc := range []struct {
		stderr bool
		line   string
		want   Frame
	}{
		{false, "plain answer", Frame{Kind: FrameText, Text: "plain answer\n"}},
		{false, "", Frame{Kind: FrameText, Text: "\n"}},
		{false, "session_id: 20260301_x", Frame{Kind: FrameSession, Session: "20260301_x"}},
		{false, `{"sessionId":"s-2"}`, Frame{Kind: FrameSession, Session: "s-2"}},
		{false, `{"type":"message","content":"hi"}`, Frame{Kind: FrameText, Text: "hi\n"}},
		{false, `{"type":"tool","content":"hi"}`, Frame{Kind: FrameText, Text: `{"type":"tool","content":"hi"}` + "\n"}},
		{false, "the session_id: is shown on exit", Frame{Kind: FrameText, Text: "the session_id: is shown on exit\n"}},
		{true, "session_id: abc", Frame{Kind: FrameSession, Session: "abc"}},
		{true, "  SESSION-ID :  abc  ", Frame{Kind: FrameSession, Session: "abc"}},
		{true, "Error: HTTP 401", Frame{Kind: FrameError, Text: "HTTP 401"}},
		{true, "warning: slow", Frame{Kind: FrameDiagnostic, Text: "warning: slow"}},
	} {
		got := ParseStdout(tc.line)
		if tc.stderr {
			got = ParseStderr(tc.line)
		}
		if got != tc.want {
			t.Errorf("%v %q: got %+v want %+v", tc.stderr, tc.line, got, tc.want)
		}
	}
}

// TestRecordedTranscripts parses each recording in testdata and checks
// both what it says and how a process that printed it ends the run.
func TestRecordedTranscripts(t *testing.T) {
	want := map[string]struct {
		text, session string
		reason        executor.DoneReason
		msg           string
	}{
		"success.txt": {
			"I read the repository and wrote the plan to notes/plan.md.\n\nNext steps:\n1. Review the plan.\n",
			"20260301_101500_a1b2c3", executor.DoneSuccess, "",
		},
		"failed.txt":      {"", "20260301_101501_d4e5f6", executor.DoneError, "hermes failed (exit 1): HTTP 401: invalid x-api-key"},
		"interrupted.txt": {"Working on it\n", "20260301_101502_0a0b0c", executor.DoneError, "hermes was interrupted (exit 130)"},
		"credentials.txt": {
			"", "", executor.DoneError,
			"hermes failed (exit 1): No inference provider configured. Run 'hermes model' to choose a provider and model.",
		},
		"crash.txt": {
			"", "", executor.DoneError,
			`hermes failed (exit 1): Traceback (most recent call last): |   File "/usr/lib/hermes/cli.py", line 1, in <module> | RuntimeError: boom`,
		},
		"json-frames.txt": {"hello from a JSON frame\n{\"note\":\"not a frame\"}\n", "sess-json-2", executor.DoneSuccess, ""},
		"fake-env.txt": {
			"provider=openrouter\nmodel=openai/gpt-4o-mini\nOPENROUTER_API_KEY=sha256:ba7816bf8f01\nok\n",
			"20261130_002149_fcb126", executor.DoneSuccess, "",
		},
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if len(files) != len(want) {
		t.Fatalf("%d recordings, %d expectations", len(files), len(want))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		w, ok := want[filepath.Base(f)]
		if !ok {
			t.Fatalf("no expectation for %s", f)
		}
		tr := ParseTranscript(string(b))
		if tr.Text != w.text || tr.Session != w.session {
			t.Errorf("%s: text %q session %q", f, tr.Text, tr.Session)
		}
		seg := segResult{exit: proc.Exit{Code: tr.ExitCode}, text: tr.Text, wrote: tr.Text != "", tail: tr.Stderr}
		if len(tr.Errors) > 0 {
			seg.errMsg = tr.Errors[len(tr.Errors)-1]
		}
		reason, msg := seg.verdict()
		if reason != w.reason || msg != w.msg {
			t.Errorf("%s: verdict %s %q, want %s %q", f, reason, msg, w.reason, w.msg)
		}
	}
}

func TestVerdictOfFaultsAndSignals(t *testing.T) {
	for _, tc := range []struct {
		seg  segResult
		want string
	}{
		{segResult{exit: proc.Exit{Code: 0}}, "hermes exited without a reply"},
		{segResult{exit: proc.Exit{Code: -1, Signal: "killed"}, wrote: true}, "hermes was killed by signal killed"},
		{
			segResult{exit: proc.Exit{Code: 0}, wrote: true, fault: "hermes wrote more than 10 bytes of output; stopped it"},
			"hermes wrote more than 10 bytes of output; stopped it",
		},
		{segResult{exit: proc.Exit{Code: 3}, tail: []string{"a", "b"}}, "hermes failed (exit 3): a | b"},
	} {
		reason, msg := tc.seg.verdict()
		if reason != executor.DoneError || msg != tc.want {
			t.Errorf("%+v: %s %q", tc.seg, reason, msg)
		}
	}
}

func TestConfigProvider(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"model:\n  provider: anthropic\n  default: claude-sonnet-4\n", "anthropic"},
		{"# mine\nmodel:\n  default: x # comment\n  provider: \"openrouter\"  # picked by hermes model\nterminal:\n  provider: docker\n", "openrouter"},
		{"model:\n  routing:\n    provider: nested\n  default: x\n", ""},
		{"model: {provider: 'openai', default: gpt-4o}\n", "openai"},
		{"model: anthropic/claude-sonnet-4\nprovider: openrouter\n", ""},
		{"terminal:\n  provider: docker\nmodel:\n  default: x\n", ""},
		{"", ""},
	} {
		if got := ConfigProvider(tc.yaml); got != tc.want {
			t.Errorf("%q: %q want %q", tc.yaml, got, tc.want)
		}
	}
}

func TestChooseProvider(t *testing.T) {
	keys := func(m map[string]string) func(string) string { return func(v string) string { return m[v] } }
	all := map[string]string{"OPENROUTER_API_KEY": "or", "ANTHROPIC_API_KEY": "an", "OPENAI_API_KEY": "oa"}
	for _, tc := range []struct {
		name, configured, model string
		keys                    map[string]string
		want                    Choice
		ok                      bool
	}{
		{"openrouter first", "", "", all, Choice{Flag: "openrouter", EnvVar: "OPENROUTER_API_KEY", Key: "or", Model: "openai/gpt-4o-mini"}, true},
		{
			"then anthropic", "", "",
			map[string]string{"ANTHROPIC_API_KEY": "an", "OPENAI_API_KEY": "oa"},
			Choice{Flag: "anthropic", EnvVar: "ANTHROPIC_API_KEY", Key: "an", Model: "claude-haiku-4-5"},
			true,
		},
		{
			"then openai", "", "gpt-5",
			map[string]string{"OPENAI_API_KEY": "oa"},
			Choice{Flag: "openai-api", EnvVar: "OPENAI_API_KEY", Key: "oa", Model: "gpt-5"},
			true,
		},
		{
			"auto is no config", "auto", "",
			map[string]string{"OPENAI_API_KEY": "oa"},
			Choice{Flag: "openai-api", EnvVar: "OPENAI_API_KEY", Key: "oa", Model: "gpt-4o-mini"},
			true,
		},
		{"config wins", "anthropic", "", all, Choice{EnvVar: "ANTHROPIC_API_KEY", Key: "an", Configured: "anthropic"}, true},
		{"config without its key", "anthropic", "m", map[string]string{"OPENROUTER_API_KEY": "or"}, Choice{Model: "m", Configured: "anthropic"}, true},
		{"config names another provider", "nous", "", all, Choice{Configured: "nous"}, true},
		{"nothing", "", "", map[string]string{}, Choice{}, false},
	} {
		got, ok := Choose(tc.configured, tc.model, keys(tc.keys))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %+v %v", tc.name, got, ok)
		}
	}
}

func TestHandleCodec(t *testing.T) {
	h := decodeHandle(encodeHandle("agent-1", "20260301_x"))
	if h.Agent != "agent-1" || h.Session != "20260301_x" {
		t.Fatal(h)
	}
	if h := decodeHandle("bare-id"); h.Agent != "" || h.Session != "bare-id" {
		t.Fatal(h)
	}
	if h := decodeHandle("{broken"); h.Session != "" {
		t.Fatal(h)
	}
	for _, bad := range []string{"", "-rf", "a b", strings.Repeat("x", 201)} {
		if usableSession(bad) {
			t.Errorf("%q usable", bad)
		}
	}
}
