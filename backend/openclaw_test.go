package backend

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/adapters/openclaw"
	"github.com/clawboo/desktop/backend/adapters/openclaw/gatewaytest"
	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

const (
	ocToken = "oc-backend-token-SENTINEL-5a1b"
	ocKey   = "sk-fake-backend-SENTINEL-key-77"
)

// noSecretOnDisk fails when a secret is in any file under home (the
// database and its WAL included).
func noSecretOnDisk(t *testing.T, home string, secrets ...string) {
	t.Helper()
	_ = filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || strings.Contains(p, string(filepath.Separator)+"vault") {
			return nil // the vault is where the token belongs (encrypted)
		}
		b, _ := os.ReadFile(p)
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("secret found in %s", p)
			}
		}
		return nil
	})
}

func TestOpenClawSettingsAPI(t *testing.T) {
	b := e2eBackend(t, map[string]string{})
	h := authed(b)
	var s struct {
		URL, URLSource, TokenMasked, TokenSource string
		TokenSet                                 bool
	}
	if code := e2eDo(t, h, "GET", "/api/openclaw/settings", nil, &s); code != http.StatusOK || s.URL != "" || s.TokenSet {
		t.Fatalf("fresh settings %d %+v", code, s)
	}
	var e struct{ Error string }
	if code := e2eDo(t, h, "PUT", "/api/openclaw/settings", map[string]any{"url": "http://example.com"}, &e); code != http.StatusBadRequest ||
		!strings.Contains(e.Error, "ws://") {
		t.Fatalf("bad URL %d %+v", code, e)
	}
	if code := e2eDo(t, h, "PUT", "/api/openclaw/settings", map[string]any{"url": "ws://127.0.0.1:9", "token": ocToken}, &s); code != http.StatusOK {
		t.Fatalf("put %d", code)
	}
	if s.URL != "ws://127.0.0.1:9" || s.URLSource != "settings" || !s.TokenSet || s.TokenSource != "vault" ||
		s.TokenMasked != "••••"+ocToken[len(ocToken)-4:] {
		t.Fatalf("saved %+v", s)
	}
	var st struct {
		Connection openclaw.State
		Health     struct{ OK bool }
	}
	if code := e2eDo(t, h, "GET", "/api/openclaw/status", nil, &st); code != http.StatusOK || st.Health.OK || st.Connection.Status == openclaw.StatusConnected {
		t.Fatalf("status against nothing %d %+v", code, st)
	}
	// Clearing the token removes it from the vault.
	if code := e2eDo(t, h, "PUT", "/api/openclaw/settings", map[string]any{"token": ""}, &s); code != http.StatusOK || s.TokenSet {
		t.Fatalf("clear %d %+v", code, s)
	}
	noSecretOnDisk(t, b.Config.Home, ocToken)
}

func TestOpenClawSettingsFromTheEnvironmentWin(t *testing.T) {
	b := e2eBackend(t, map[string]string{"CLAWBOO_OPENCLAW_URL": "ws://127.0.0.1:7", "CLAWBOO_OPENCLAW_TOKEN": ocToken})
	var s struct {
		URL, URLSource, TokenSource string
		TokenSet                    bool
	}
	e2eDo(t, authed(b), "GET", "/api/openclaw/settings", nil, &s)
	if s.URL != "ws://127.0.0.1:7" || s.URLSource != "env" || !s.TokenSet || s.TokenSource != "env" {
		t.Fatalf("%+v", s)
	}
}

// TestOpenClawOnTheRealGateway drives the real Gateway through the
// backend: settings saved through the API, the OpenClaw card, a 1:1 chat
// with an OpenClaw agent (two turns on one Gateway session, priced as a
// character estimate), the task runner's refusal before claiming, and the
// MCP registration. One Gateway for this package.
func TestOpenClawOnTheRealGateway(t *testing.T) {
	node, entry := gatewaytest.Require(t)
	fake := fakeresponses.New(fakeresponses.Text("chat-hello", "Hello from the Gateway."), fakeresponses.Text("chat-again", "Still here."))
	srv := httptest.NewServer(fake)
	defer srv.Close()
	g := startRealGateway(t, node, entry, srv.URL+"/v1")

	logs := &testkit.SyncBuffer{}
	home := t.TempDir()
	env := map[string]string{"HOME": home, "PATH": os.Getenv("PATH")}
	b := e2eBackendLogged(t, home, env, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	h := authed(b)
	if code := e2eDo(t, h, "PUT", "/api/openclaw/settings", map[string]any{"url": g.URL, "token": ocToken}, nil); code != http.StatusOK {
		t.Fatalf("settings %d", code)
	}

	// The card: connected, healthy, the Gateway's agents.
	var card struct {
		Connection   openclaw.State
		Health       struct{ OK bool }
		DefaultAgent string
		Agents       []struct{ ID string }
	}
	deadline := time.Now().Add(60 * time.Second)
	for e2eDo(t, h, "GET", "/api/openclaw/status", nil, &card); !card.Health.OK && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		e2eDo(t, h, "GET", "/api/openclaw/status", nil, &card)
	}
	if !card.Health.OK || card.Connection.Status != openclaw.StatusConnected || card.DefaultAgent != "main" || len(card.Agents) != 1 {
		t.Fatalf("card %+v\n%s", card, g.Log()[max(0, len(g.Log())-2000):])
	}

	// A 1:1 chat with an OpenClaw agent, twice on one session.
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	name, rt := "Claw", "openclaw"
	ag, err := b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	chat := func(msg string) store.Run {
		t.Helper()
		var started struct{ RunID string }
		if code := e2eDo(t, h, "POST", "/api/agents/"+ag.ID+"/chat", map[string]any{"message": msg}, &started); code != http.StatusAccepted {
			t.Fatalf("chat %d", code)
		}
		var run store.Run
		for {
			e2eDo(t, h, "GET", "/api/runs/"+started.RunID, nil, &run)
			if !run.Live() {
				return run
			}
			if ctx.Err() != nil {
				t.Fatalf("run still %s", run.Status)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	first := chat("chat-hello")
	if first.Status != store.RunSucceeded || first.Summary != "Hello from the Gateway." || first.CostKind == nil || *first.CostKind != "char-estimate" {
		t.Fatalf("first chat %+v (kind %v)", first, first.CostKind)
	}
	second := chat("chat-again")
	if second.Status != store.RunSucceeded || second.Summary != "Still here." {
		t.Fatalf("second chat %+v", second)
	}
	reqs := fake.Requests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(string(last.Body), "chat-hello") || !strings.Contains(string(last.Body), "Hello from the Gateway.") {
		t.Fatal("the second turn did not continue the first turn's Gateway session")
	}

	// The task runner refuses OpenClaw before claiming anything.
	var created struct{ Task board.Task }
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{"title": "Never claimed", "status": "todo", "kind": "code"}, &created); code != http.StatusCreated {
		t.Fatalf("create task %d", code)
	}
	before := len(fake.Requests())
	var refusal struct {
		OK            bool
		Reason, Error string
	}
	if code := e2eDo(t, h, "POST", "/api/runtimes/openclaw/run", map[string]any{"taskId": created.Task.ID, "assigneeAgentId": ag.ID}, &refusal); code != http.StatusUnprocessableEntity ||
		refusal.Reason != "connected_substrate" {
		t.Fatalf("task run %d %+v", code, refusal)
	}
	var task struct{ Task board.Task }
	e2eDo(t, h, "GET", "/api/board/"+created.Task.ID, nil, &task)
	if task.Task.Status != board.Todo || task.Task.AssigneeAgentID != nil || len(fake.Requests()) != before {
		t.Fatalf("the refused task was touched: %+v", task.Task)
	}

	// Our MCP servers into the Gateway config, unbound.
	var reg struct{ Servers []string }
	if code := e2eDo(t, h, "POST", "/api/openclaw/mcp", nil, &reg); code != http.StatusOK || len(reg.Servers) != 3 {
		t.Fatalf("register %d %+v", code, reg)
	}
	var after struct {
		MCPRegistered bool
		MCPServers    map[string]string
	}
	e2eDo(t, h, "GET", "/api/openclaw/status", nil, &after)
	if !after.MCPRegistered || strings.Contains(after.MCPServers["clawboo-tasks"], "binding") || after.MCPServers["clawboo-teamchat"] != "" {
		t.Fatalf("after registration %+v", after)
	}

	closeOnce(t, b)
	noSecretOnDisk(t, home, ocToken, ocKey)
	for _, s := range []string{ocToken, ocKey} {
		if strings.Contains(logs.String(), s) {
			t.Fatal("a secret reached the backend log")
		}
	}
}

// e2eBackendLogged is e2eBackend with a logger, closed once.
func e2eBackendLogged(t *testing.T, home string, env map[string]string, log *slog.Logger) *Backend {
	t.Helper()
	env[config.EnvVault] = "file"
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(home, getenv)
	if err != nil {
		t.Fatal(err)
	}
	environ := func() []string { return []string{"HOME=" + home, "PATH=" + env["PATH"]} }
	b, err := New(context.Background(), Options{Config: cfg, Getenv: getenv, Environ: environ, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	closers.Store(b, func() { once.Do(func() { _ = b.Close(context.Background()) }) })
	t.Cleanup(func() { closeOnce(t, b) })
	return b
}

var closers sync.Map

func closeOnce(t *testing.T, b *Backend) {
	if f, ok := closers.Load(b); ok {
		f.(func())()
	}
}

// startRealGateway starts the pinned OpenClaw Gateway with the model
// provider at providerURL, ready once a paired client's agents.list is
// answered; it stops when the test ends.
func startRealGateway(t *testing.T, node, entry, providerURL string) *gatewaytest.Gateway {
	t.Helper()
	g, err := gatewaytest.Start(gatewaytest.Options{
		Node: node, Entry: entry, ProviderURL: providerURL, ProviderKey: ocKey,
		Token: ocToken, Ready: func(ctx context.Context, url string) error {
			id, err := openclaw.LoadIdentity(t.TempDir())
			if err != nil {
				return err
			}
			c := openclaw.NewClient(openclaw.ClientOptions{Identity: id, Settings: func(context.Context) openclaw.Settings {
				return openclaw.Settings{URL: url, Token: ocToken}
			}})
			c.Start()
			defer c.Close()
			return c.Request(ctx, "agents.list", nil, nil)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Stop)
	return g
}
