package api

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/clawboo/desktop/backend/adapters/mock"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/runtimes"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/vault"
	"github.com/clawboo/desktop/backend/worktree"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type fixture struct {
	srv    *httptest.Server
	st     *store.Store
	sup    *supervisor.Supervisor
	api    *API
	vault  *vault.Vault
	cat    *runtimes.Catalog
	home   string
	env    map[string]string // the fixture's process environment
	board  *board.Board
	ledger *budget.Ledger
	auth   *Auth  // the API's token checker (srv's clients send the token)
	token  string // the home's API token
}

func newFixtureB(b *testing.B) *fixture { return newFixtureTB(b, nil) }

func newFixture(t *testing.T, ui fstest.MapFS) *fixture { return newFixtureTB(t, ui) }

func newFixtureTB(t testing.TB, ui fstest.MapFS) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	// The worktree mock (CLAWBOO_MOCK_WORKTREES=1): board tests leave diffs with !write.
	reg := executor.NewRegistry()
	if err := reg.Register(mock.NewWithWorktrees()); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	boardEvents, budgetEvents := bus.New[board.Event](0), bus.New[budget.Event](0)
	bd := board.New(board.Options{Store: st, Events: boardEvents})
	led := budget.New(budget.Options{Store: st, Events: budgetEvents})
	wm, err := worktree.New(worktree.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	sup, err := supervisor.New(ctx, supervisor.Options{Store: st, Registry: reg, Board: bd, Worktrees: wm, Budget: led})
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "PATH": filepath.Join(home, "bin")}
	getenv := func(k string) string { return env[k] }
	v, err := vault.Open(vault.Options{Home: home, Getenv: getenv, ForceFile: true})
	if err != nil {
		t.Fatal(err)
	}
	res := proc.NewResolver(proc.ResolverOptions{Getenv: getenv, NoWatch: true})
	changed := bus.New[struct{}](0)
	cat := runtimes.NewCatalog(runtimes.Options{
		Registry: reg, Vault: v, Resolver: res, Getenv: getenv, EnableMock: true,
		Environ: func() []string {
			return []string{"PATH=" + env["PATH"], "HOME=" + home, "ANTHROPIC_API_KEY=" + ambientSentinel}
		},
		OnChange: func() { changed.Publish(struct{}{}) }, HealthTimeout: 2 * time.Second,
	})
	opts := Options{
		Store: st, Supervisor: sup, Catalog: cat, RuntimesChanged: changed, Version: "test",
		Board: bd, BoardEvents: boardEvents, Worktrees: wm, Budget: led, BudgetEvents: budgetEvents, Secrets: v,
	}
	if ui != nil {
		opts.UI = ui
	}
	au, tok := testAuth(t)
	opts.Auth = au
	a := New(opts)
	srv := httptest.NewServer(withToken(a, tok))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := sup.Close(cctx); err != nil {
			t.Error(err)
		}
		srv.Close()
		bd.Close()
		st.Close()
		v.Close()
		changed.Close()
		boardEvents.Close()
		budgetEvents.Close()
	})
	return &fixture{srv: srv, st: st, sup: sup, api: a, vault: v, cat: cat, home: home, env: env, board: bd, ledger: led, auth: au, token: tok}
}

func (f *fixture) do(t *testing.T, method, path, body string, hdr ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

func decode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

func errorOf(t *testing.T, b []byte) string {
	t.Helper()
	return decode[map[string]string](t, b)["error"]
}

// ambientSentinel is a provider key in the server's own environment: it
// must never reach a child that is not a runtime.
const ambientSentinel = "sk-ant-ambient-SENTINEL-0xC1AWB00"

func TestRuntimesListsMockOnlyUnderRuntimes(t *testing.T) {
	f := newFixture(t, nil)
	code, _, b := f.do(t, "GET", "/api/runtimes", "")
	if code != 200 {
		t.Fatal(code, string(b))
	}
	l := decode[runtimes.Listing](t, b)
	var mockEntry *runtimes.Entry
	for i := range l.Runtimes {
		if l.Runtimes[i].ID == executor.Mock {
			mockEntry = &l.Runtimes[i]
		}
	}
	acp := len(runtimes.ACPDescriptors())
	if len(l.Runtimes) != 5+acp || mockEntry == nil || !mockEntry.Health.OK || mockEntry.ConnectionState != runtimes.StateReady || !mockEntry.CanRun {
		t.Fatalf("%+v", l.Runtimes)
	}
	if len(l.Available) != 4+acp {
		t.Fatalf("%+v", l.Available)
	}
	for _, d := range l.Available {
		if d.ID == executor.Mock {
			t.Fatal("mock listed as available")
		}
	}
}

func TestRunWaitReturnsResult(t *testing.T) {
	f := newFixture(t, nil)
	code, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"message":"!ok done it"}`)
	if code != 200 {
		t.Fatal(code, string(b))
	}
	r := decode[runResult](t, b)
	if !r.OK || r.Status != "succeeded" || *r.DoneReason != "success" || r.Summary != "done it" || r.RuntimeID != "clawboo-mock" || r.CostUSD == nil || *r.CostUSD <= 0 || *r.CostKind != "char-estimate" || r.RunID == "" {
		t.Fatalf("%+v", r)
	}
	code, _, b = f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"message":"!error nope"}`)
	r = decode[runResult](t, b)
	if code != 200 || r.OK || r.Status != "failed" || !strings.Contains(r.Error, "runtime ended without a result") {
		t.Fatalf("%d %+v", code, r)
	}
}

// sseEvent is one parsed SSE event.
type sseEvent struct {
	id, name string
	data     []byte
}

// readSSE parses an SSE body until it ends, calling fn per event; fn returning
// false stops reading.
func readSSE(t *testing.T, body io.Reader, fn func(sseEvent) bool) {
	t.Helper()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.data != nil && !fn(ev) {
				return
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			ev.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			ev.data = []byte(line[6:])
		}
	}
}

func (f *fixture) stream(t *testing.T, path string, hdr ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", f.srv.URL+path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("stream %s: %d %s", path, resp.StatusCode, b)
	}
	return resp
}

func startAsync(t *testing.T, f *fixture, msg string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"message": msg, "wait": false})
	code, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", string(body))
	if code != 202 {
		t.Fatal(code, string(b))
	}
	return decode[map[string]string](t, b)["runId"]
}
