package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/internal/testkit"
)

// The scripted ACP agent (backend/fakes/fakeacp) is built once per test
// binary; the real agents are tested in the root package.
var (
	fakeOnce sync.Once
	fakeDir  string
	fakePath string
	fakeErr  error
)

func TestMain(m *testing.M) {
	if n := os.Getenv(fakeOpenAIEnv); n != "" { // BenchmarkUpdateCPUBesideOpenCode's provider, a process apart
		os.Exit(serveFakeOpenAI(n))
	}
	code := m.Run()
	if fakeDir != "" {
		_ = os.RemoveAll(fakeDir)
	}
	os.Exit(code)
}

func fakeAgent(tb testing.TB) string {
	tb.Helper()
	fakeOnce.Do(func() {
		fakeDir, fakeErr = os.MkdirTemp("", "fakeacp-")
		if fakeErr != nil {
			return
		}
		fakePath = filepath.Join(fakeDir, "fakeacp")
		fakeErr = testkit.GoBuild("github.com/clawboo/desktop/backend/fakes/fakeacp", fakePath)
	})
	if fakeErr != nil {
		tb.Fatal(fakeErr)
	}
	return fakePath
}

// asker records questions and answers each with the next outcome (the
// last one repeats).
type asker struct {
	mu       sync.Mutex
	asked    []Question
	outcomes []Outcome
}

func (a *asker) ask(_ context.Context, q Question) (Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, q)
	o := Denied
	if n := len(a.outcomes); n > 0 {
		o = a.outcomes[0]
		if n > 1 {
			a.outcomes = a.outcomes[1:]
		}
	}
	return Answer{Outcome: o}, nil
}

func (a *asker) questions() []Question {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Question(nil), a.asked...)
}

// newAdapter is the fake agent as the runtime "acp-fake"; tweak edits
// the options before New.
func newAdapter(t testing.TB, tweak ...func(*Options)) *Adapter {
	t.Helper()
	bin := fakeAgent(t)
	o := Options{
		Spec:        Spec{ID: "acp-fake", Name: "Fake agent", Command: bin},
		Grace:       500 * time.Millisecond,
		InitTimeout: 10 * time.Second,
	}
	for _, f := range tweak {
		f(&o)
	}
	return New(o)
}

var runs atomic.Int64

// start launches one run of message in dir (a fresh folder when "") with
// the fake's settings in env.
func start(t testing.TB, a *Adapter, message, dir string, env map[string]string) executor.Run {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	id := executor.RunID(fmt.Sprintf("acp-run-%d", runs.Add(1)))
	run, err := a.Start(context.Background(), executor.StartRequest{
		RunID: id, Message: message, WorkDir: dir, Env: env, AgentID: "coder", TeamID: "team1",
		Emitter: executor.NewEmitter(id, 0),
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	return run
}

// finish collects a run to its end and checks the stream's invariants.
func finish(t testing.TB, run executor.Run) ([]executor.Event, executor.Event) {
	t.Helper()
	evs := executortest.CollectWithin(t, 30*time.Second, run)
	if tt, ok := t.(*testing.T); ok {
		return evs, executortest.CheckStream(tt, run.ID(), evs)
	}
	return evs, executortest.Done(t, evs)
}

// said is every assistant text of the run, joined.
func said(evs []executor.Event) string {
	var b strings.Builder
	for _, ev := range executortest.OfKind(evs, executor.KindTextDelta) {
		if ev.Channel == executor.ChannelAssistant {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

// record is one line of the fake's FAKEACP_RECORD file.
type record struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func records(t testing.TB, path string) []record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the fake recorded nothing: %v", err)
	}
	defer f.Close()
	var out []record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("record line: %v", err)
		}
		out = append(out, r)
	}
	return out
}

func recorded(t testing.TB, path, method string) []json.RawMessage {
	var out []json.RawMessage
	for _, r := range records(t, path) {
		if r.Method == method {
			out = append(out, r.Params)
		}
	}
	return out
}

func numGoroutines() int { return runtime.NumGoroutine() }

// noGoroutinesLeft waits until the goroutine count is back to before's.
func noGoroutinesLeft(t *testing.T, before int) {
	t.Helper()
	testkit.EventuallySays(t, 10*time.Second, "the run's goroutines end", func() (bool, string) {
		n := runtime.NumGoroutine()
		if n <= before {
			return true, ""
		}
		buf := make([]byte, 1<<16)
		return false, fmt.Sprintf("%d goroutines, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	})
}
