package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
)

// sentinel is the provider key every acceptance test runs with; it must
// reach the fake model and nothing else.
const sentinel = "sk-sentinel-codex-7f3a9c1e5b"

// codexBin is the real, pinned `codex` (test/clis): a plain `go test`
// skips, CLAWBOO_TEST_CLIS set without the program fails.
func codexBin(t testing.TB) string {
	t.Helper()
	dir, set := os.LookupEnv("CLAWBOO_TEST_CLIS")
	if !set {
		t.Skip("CLAWBOO_TEST_CLIS is not set (make test sets it to test/clis, with the pinned programs installed)")
	}
	p := filepath.Join(dir, "node_modules", ".bin", "codex")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("CLAWBOO_TEST_CLIS: %v", err)
	}
	return p
}

var (
	catalogOnce sync.Once
	catalogPath string
	catalogErr  error
)

// modelCatalog is the bundled gpt-5.5 entry renamed fake-model with tool
// search off, so MCP tools are offered directly (runtimes-protocols.md
// section 3.1), written once per test binary.
func modelCatalog(t testing.TB, bin string) string {
	t.Helper()
	catalogOnce.Do(func() {
		dir, err := os.MkdirTemp("", "codex-catalog-")
		if err != nil {
			catalogErr = err
			return
		}
		cmd := exec.Command(bin, "debug", "models", "--bundled")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CODEX_HOME=" + dir}
		out, err := cmd.Output()
		if err != nil {
			catalogErr = fmt.Errorf("codex debug models: %w", err)
			return
		}
		var all struct {
			Models []map[string]any `json:"models"`
		}
		if err := json.Unmarshal(out, &all); err != nil {
			catalogErr = err
			return
		}
		for _, m := range all.Models {
			if m["slug"] == "gpt-5.5" {
				m["slug"], m["display_name"], m["supports_search_tool"] = "fake-model", "fake-model", false
				b, _ := json.Marshal(map[string]any{"models": []any{m}})
				catalogPath = filepath.Join(dir, "model-catalog.json")
				catalogErr = os.WriteFile(catalogPath, b, 0o644)
				return
			}
		}
		catalogErr = fmt.Errorf("no gpt-5.5 in the bundled catalog")
	})
	if catalogErr != nil {
		t.Fatal(catalogErr)
	}
	return catalogPath
}

// userConfig is a user's ~/.codex/config.toml that keeps codex offline
// and on the fake (runtimes-protocols.md section 3.1): a custom provider
// reading OPENAI_API_KEY, no retries, no plugins, no analytics.
func userConfig(catalog, baseURL string) string {
	return fmt.Sprintf(`model = "fake-model"
model_catalog_json = %q
web_search = "disabled"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake OpenAI"
base_url = %q
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 30000

[analytics]
enabled = false

[features]
plugins = false
`, catalog, baseURL)
}

// world is one offline Codex setup: the fake model, a user home with its
// ~/.codex, a Clawboo home, and the adapter over them.
type world struct {
	t        testing.TB
	bin      string
	fake     *fakeresponses.Server
	url      string
	home     string // the user's HOME
	userHome string // ~/.codex
	clawboo  string
	keys     map[string]string
	mode     Mode
	attach   func(context.Context, executor.StartRequest) (*MCP, error)
	adapters []*Adapter
}

// settle waits (bounded) until every run's children are gone, so the
// test's folders are not removed under a codex still writing to them.
func settle(t testing.TB, as []*Adapter) {
	done := make(chan struct{})
	go func() {
		for _, a := range as {
			a.live.Wait()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Error("codex children were not reaped within 20 s")
	}
}

func newWorld(t testing.TB, rules ...fakeresponses.Rule) *world {
	t.Helper()
	bin := codexBin(t)
	fake := fakeresponses.New(rules...)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	home := t.TempDir()
	w := &world{
		t: t, bin: bin, fake: fake, url: srv.URL, home: home, userHome: filepath.Join(home, ".codex"),
		clawboo: filepath.Join(home, "clawboo"), keys: map[string]string{"OPENAI_API_KEY": sentinel},
	}
	if err := os.MkdirAll(w.userHome, 0o700); err != nil {
		t.Fatal(err)
	}
	w.writeUser("config.toml", userConfig(modelCatalog(t, bin), srv.URL+"/v1"))
	t.Cleanup(func() { settle(t, w.adapters) })
	return w
}

func (w *world) writeUser(name, body string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.userHome, name), []byte(body), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) adapter() *Adapter {
	a := New(Options{
		Find: func() (string, bool) { return w.bin, true }, Home: w.clawboo, UserHome: w.userHome,
		Environ: func() []string { return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home} },
		Key:     func(_ context.Context, name string) string { return w.keys[name] },
		Attach:  w.attach, Mode: w.mode, Grace: 2 * time.Second, Handshake: 20 * time.Second,
	})
	w.adapters = append(w.adapters, a)
	return a
}

var runN sync.Map

// start launches a run of message as agent (fresh emitter and id).
func (w *world) start(ctx context.Context, a *Adapter, req executor.StartRequest) executor.Run {
	w.t.Helper()
	n, _ := runN.LoadOrStore("n", new(int))
	*n.(*int)++
	req.RunID = executor.RunID(fmt.Sprintf("codex-test-%d-%d", time.Now().UnixNano(), *n.(*int)))
	req.Emitter = executor.NewEmitter(req.RunID, 0)
	run, err := a.Start(ctx, req)
	if err != nil {
		w.t.Fatalf("start: %v", err)
	}
	return run
}

// runToEnd starts a run and collects its events, checking the stream.
func (w *world) runToEnd(req executor.StartRequest) []executor.Event {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run := w.start(ctx, w.adapter(), req)
	evs := executortest.Collect(w.t, ctx, run)
	executortest.CheckStream(w.t.(*testing.T), run.ID(), evs)
	return evs
}

func textOf(evs []executor.Event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Kind == executor.KindTextDelta && e.Channel == executor.ChannelAssistant {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

// noSecret fails when the sentinel key shows up in anything the run
// reported.
func noSecret(t testing.TB, evs []executor.Event, secrets ...string) {
	t.Helper()
	b, _ := json.Marshal(evs)
	for _, s := range append(secrets, sentinel) {
		if strings.Contains(string(b), s) {
			t.Fatalf("a secret reached the events: %s", b)
		}
	}
}
