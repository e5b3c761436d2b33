//go:build unix

package claudecode

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/fakes/fakeanthropic"
	"go.uber.org/goleak"
)

// The test binary doubles as a misbehaving claude (FAKE_CLAUDE picks the
// fault); the real, pinned CLI is used for everything else.
func TestMain(m *testing.M) {
	if os.Getenv("FAKE_API") == "1" {
		serveFakeAPI()
		return
	}
	if role := os.Getenv("FAKE_CLAUDE"); role != "" {
		fakeClaude(role)
		return
	}
	goleak.VerifyTestMain(m)
}

// testKey is the sentinel Anthropic key: it must reach the fake API and
// appear in no event.
const testKey = "sk-ant-sentinel-claudecode-0123456789"

// claudeBin is the pinned claude from CLAWBOO_TEST_CLIS: skip without
// it, fail when it is set but the program is missing.
func claudeBin(t testing.TB) string {
	t.Helper()
	dir, set := os.LookupEnv("CLAWBOO_TEST_CLIS")
	if !set {
		t.Skip("CLAWBOO_TEST_CLIS is not set (make test sets it to test/clis, with the pinned programs installed)")
	}
	p := filepath.Join(dir, "node_modules/.bin/claude")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("CLAWBOO_TEST_CLIS: %v", err)
	}
	return p
}

// offline is runtimes-protocols.md section 2.1: a scratch home and config
// folder, the fake API, and no other traffic.
func offline(t testing.TB, apiURL string) map[string]string {
	home := t.TempDir()
	return map[string]string{
		"HOME": home, "CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude"), "ANTHROPIC_BASE_URL": apiURL,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
		"DISABLE_ERROR_REPORTING": "1", "DISABLE_BUG_COMMAND": "1", "DISABLE_COST_WARNINGS": "1", "CLAUDE_CODE_MAX_RETRIES": "0",
	}
}

// rig is the real CLI against a fake API with the given rules.
type rig struct {
	fake *fakeanthropic.Server
	opts Options
}

func newRig(t testing.TB, rules ...fakeanthropic.Rule) *rig {
	t.Helper()
	bin := claudeBin(t)
	fake := fakeanthropic.New(rules...)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	return &rig{fake: fake, opts: Options{
		Binary: func() (string, bool) { return bin, true },
		Key:    func(context.Context) string { return testKey },
		Environ: func() []string {
			return []string{"PATH=" + os.Getenv("PATH"), "ANTHROPIC_API_KEY=sk-ant-ambient-never-0000000000"}
		},
		Env:        offline(t, srv.URL),
		ScratchDir: t.TempDir(),
		AbortGrace: time.Second,
	}}
}

var runSeq atomic.Int64

// start launches one run on a with req (RunID and Emitter filled in).
func start(t testing.TB, a *Adapter, req executor.StartRequest) *run {
	t.Helper()
	req.RunID = executor.RunID("claude-test-" + time.Now().Format("150405") + "-" + strconv.FormatInt(runSeq.Add(1), 10))
	req.Emitter = executor.NewEmitter(req.RunID, 0)
	r, err := a.Start(context.Background(), req)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() {
		_ = r.Abort(context.Background())
		for range r.Events() {
		}
		waitReaped(t, r.(*run))
	})
	return r.(*run)
}

func waitReaped(t testing.TB, r *run) {
	t.Helper()
	select {
	case <-r.reaped:
	case <-time.After(15 * time.Second):
		t.Fatal("the run's child was not reaped")
	}
}

// collect reads a run to its end, calling on for each event first.
func collect(t testing.TB, r *run, on func(executor.Event)) []executor.Event {
	t.Helper()
	var out []executor.Event
	timeout := time.After(90 * time.Second)
	for {
		select {
		case ev, ok := <-r.Events():
			if !ok {
				return out
			}
			out = append(out, ev)
			if on != nil {
				on(ev)
			}
		case <-timeout:
			t.Fatalf("run did not end: %v", briefs(out))
		}
	}
}

func last(evs []executor.Event) executor.Event {
	if len(evs) == 0 {
		return executor.Event{}
	}
	return evs[len(evs)-1]
}

// noSecret fails when a secret appears anywhere in the events.
func noSecret(t testing.TB, evs []executor.Event, secrets ...string) {
	t.Helper()
	for _, ev := range evs {
		all := strings.Join([]string{ev.Text, string(ev.Input), ev.Output, ev.Message, ev.Summary, ev.Detail, ev.Session}, "\x00")
		for _, s := range secrets {
			if strings.Contains(all, s) {
				t.Fatalf("secret in event %s", brief(ev))
			}
		}
	}
}
