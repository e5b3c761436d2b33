package hermes

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/internal/testkit"
)

// The fake hermes program is built once per test binary from this repo
// (backend/fakes/fakehermes): Hermes itself cannot be installed here.
var (
	fakeOnce sync.Once
	fakeDir  string
	fakePath string
	fakeErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fakeDir != "" {
		_ = os.RemoveAll(fakeDir)
	}
	os.Exit(code)
}

// fakeHermes returns the path of the built fake (a program named hermes).
func fakeHermes(tb testing.TB) string {
	tb.Helper()
	fakeOnce.Do(func() {
		fakeDir, fakeErr = os.MkdirTemp("", "fakehermes-")
		if fakeErr != nil {
			return
		}
		fakePath = filepath.Join(fakeDir, "hermes")
		fakeErr = testkit.GoBuild("github.com/clawboo/desktop/backend/fakes/fakehermes", fakePath)
	})
	if fakeErr != nil {
		tb.Fatal(fakeErr)
	}
	return fakePath
}

const testToken = "clawboo-attach-token-SENTINEL-0123456789abcdef"

// fixture is one adapter over the fake with its own folders and keys.
type fixture struct {
	a        *Adapter
	root     string // managed homes
	userHome string // the user's HOME (with .hermes/config.yaml when seeded)
	keys     map[string]string
	attach   string // the mcp.json the adapter writes
}

func (f *fixture) userConfig() string { return filepath.Join(f.userHome, ".hermes", "config.yaml") }

func newFixture(tb testing.TB, keys map[string]string, tweak ...func(*Options)) *fixture {
	tb.Helper()
	bin := fakeHermes(tb)
	base := tb.TempDir()
	f := &fixture{root: filepath.Join(base, "clawboo", "runtimes", "hermes"), userHome: filepath.Join(base, "user"), keys: keys}
	if err := os.MkdirAll(f.userHome, 0o755); err != nil {
		tb.Fatal(err)
	}
	att, err := mcp.BuildAttach(mcp.AttachOptions{
		BaseURL: "http://127.0.0.1:18790", Token: testToken,
		Binding: mcp.Binding{TeamID: "team-1", AgentID: "agent-1"}, Signer: mcp.NewSigner([]byte("0123456789abcdef0123456789abcdef")),
	})
	if err != nil {
		tb.Fatal(err)
	}
	f.attach = att.Clients[mcp.ClientHermes].Text
	o := Options{
		Root: f.root, UserConfig: f.userConfig(),
		Find: func() (string, bool) { return bin, true },
		Environ: func() []string {
			// An ambient provider key must never reach the child: only the
			// chosen provider's key from Key does.
			return []string{"PATH=/usr/bin:/bin", "HOME=" + f.userHome, "OPENAI_API_KEY=sk-ambient-SENTINEL-must-not-pass", "AWS_SECRET=x"}
		},
		Key:    func(_ context.Context, v string) string { return f.keys[v] },
		Attach: func(context.Context, executor.StartRequest) (string, error) { return f.attach, nil },
		Grace:  500 * time.Millisecond,
	}
	for _, t := range tweak {
		t(&o)
	}
	f.a = New(o)
	return f
}

var runSeq atomic.Int64

func (f *fixture) request(agent, msg string) executor.StartRequest {
	id := executor.RunID(fmt.Sprintf("run-%d", runSeq.Add(1)))
	return executor.StartRequest{RunID: id, AgentID: agent, Message: msg, Emitter: executor.NewEmitter(id, 0)}
}

func (f *fixture) start(tb testing.TB, req executor.StartRequest) executor.Run {
	tb.Helper()
	if req.Emitter == nil {
		req.Emitter = executor.NewEmitter(req.RunID, 0)
	}
	run, err := f.a.Start(context.Background(), req)
	if err != nil {
		tb.Fatal(err)
	}
	return run
}

// collect reads a run to its end (bounded) and checks the stream: it ends
// with its done, and its sequence numbers have no gap.
func collect(tb testing.TB, run executor.Run) ([]executor.Event, executor.Event) {
	tb.Helper()
	evs := executortest.CollectWithin(tb, 30*time.Second, run)
	done := executortest.Done(tb, evs)
	for i, e := range evs {
		if e.Seq != evs[0].Seq+int64(i) {
			tb.Fatalf("seq %d at %d", e.Seq, i)
		}
	}
	return evs, done
}

func (f *fixture) runToEnd(tb testing.TB, req executor.StartRequest) ([]executor.Event, executor.Event) {
	tb.Helper()
	return collect(tb, f.start(tb, req))
}

// text is all text of a run's events.
func text(evs []executor.Event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Kind == executor.KindTextDelta {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

// sessions are the resume handles a run reported.
func sessions(evs []executor.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Kind == executor.KindStatus && e.Session != "" {
			out = append(out, e.Session)
		}
	}
	return out
}

// invocation is one line of the fake's log in a managed home.
type invocation struct {
	Argv         []string          `json:"argv"`
	Cwd          string            `json:"cwd"`
	Pid          int               `json:"pid"`
	FlagProvider string            `json:"flagProvider"`
	Provider     string            `json:"provider"`
	Model        string            `json:"model"`
	Resume       string            `json:"resume"`
	Session      string            `json:"session"`
	Yolo         bool              `json:"yolo"`
	AcceptHooks  bool              `json:"acceptHooks"`
	Keys         map[string]string `json:"keys"`
	Env          []string          `json:"env"`
}

func (f *fixture) invocations(tb testing.TB, agent string) []invocation {
	tb.Helper()
	fh, err := os.Open(filepath.Join(f.root, agent, "fakehermes.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer fh.Close()
	var out []invocation
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var inv invocation
		if err := json.Unmarshal(sc.Bytes(), &inv); err != nil {
			tb.Fatal(err)
		}
		out = append(out, inv)
	}
	return out
}

// waitText waits until the run's text contains want, returning the events
// read so far.
func waitText(tb testing.TB, run executor.Run, want string) []executor.Event {
	tb.Helper()
	var evs []executor.Event
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-run.Events():
			if !ok {
				tb.Fatalf("run ended before %q: %+v", want, evs)
			}
			evs = append(evs, ev)
			if strings.Contains(text(evs), want) {
				return evs
			}
		case <-timeout:
			tb.Fatalf("never saw %q: %+v", want, evs)
		}
	}
}

// keyHash is the fake's way of showing a key (a short hash, never the key).
func keyHash(v string) string {
	if v == "" {
		return "unset"
	}
	h := sha256.Sum256([]byte(v))
	return "sha256:" + hex.EncodeToString(h[:6])
}
