package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

// buildFakeHermes builds the fake hermes program (backend/fakes/fakehermes)
// into a fresh folder, named hermes, for the PATH. Hermes itself cannot be
// installed here: its registry, PyPI, is unreachable.
func buildFakeHermes(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := testkit.GoBuild("github.com/clawboo/desktop/backend/fakes/fakehermes", filepath.Join(dir, "hermes")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// hermesE2E is a backend with the fake hermes on its PATH, an OpenRouter
// key connected (the sentinel), an ambient Anthropic key in the server's
// environment (which must never reach a child), logs captured, and the
// server listening, so mcp.json names servers a child could reach.
type hermesE2E struct {
	b      *Backend
	h      http.Handler
	cfg    config.Config
	logs   *testkit.SyncBuffer
	closed bool
}

const (
	hermesSentinel = "sk-or-v1-SENTINEL-hermes-e2e-5f2c9a"
	hermesAmbient  = "sk-ant-SENTINEL-ambient-never-passed"
)

func newHermesE2E(t *testing.T) *hermesE2E {
	t.Helper()
	bin := buildFakeHermes(t)
	home := t.TempDir()
	env := map[string]string{
		"HOME": home, config.EnvVault: "file", "PATH": bin + ":" + os.Getenv("PATH"),
		"OPENROUTER_API_KEY": hermesSentinel,
	}
	getenv := func(k string) string { return env[k] }
	environ := func() []string {
		return []string{"HOME=" + home, "PATH=" + env["PATH"], "ANTHROPIC_API_KEY=" + hermesAmbient}
	}
	cfg, err := config.Load(home, getenv)
	if err != nil {
		t.Fatal(err)
	}
	e := &hermesE2E{cfg: cfg, logs: &testkit.SyncBuffer{}}
	e.b, err = New(context.Background(), Options{
		Config: cfg, Getenv: getenv, Environ: environ,
		Log: slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !e.closed {
			_ = e.b.Close(context.Background())
		}
	})
	ln, err := e.b.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	e.h = authed(e.b)
	return e
}

func (e *hermesE2E) close(t *testing.T) {
	t.Helper()
	e.closed = true
	if err := e.b.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestHermesE2EBoardTask runs a board code task on hermes end to end: a
// real repository and worktree, the supervisor, the adapter and the fake.
// The run writes a file, lands in review, is estimated from characters
// with a spend_unreported warning, and no secret reaches the events, the
// logs or any file under the home.
func TestHermesE2EBoardTask(t *testing.T) {
	const sentinel, ambient = hermesSentinel, hermesAmbient
	e := newHermesE2E(t)
	b, h, cfg, logs := e.b, e.h, e.cfg, e.logs
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// The runtime is registered, healthy and ready.
	var listing struct {
		Runtimes []struct {
			ID              string `json:"id"`
			CanRun          bool   `json:"canRun"`
			ConnectionState string `json:"connectionState"`
			Health          struct{ OK bool }
		} `json:"runtimes"`
	}
	e2eDo(t, h, "GET", "/api/runtimes", nil, &listing)
	found := false
	for _, r := range listing.Runtimes {
		if r.ID == "hermes" {
			found = true
			if !r.CanRun || !r.Health.OK || r.ConnectionState != "ready" {
				t.Fatalf("hermes entry %+v", r)
			}
		}
	}
	if !found {
		t.Fatal("hermes not listed")
	}

	name, rt := "Scribe", "hermes"
	agent, err := b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	repo := e2eRepo(t)
	var created struct{ Task board.Task }
	desc := "Write the plan.\n!write notes/plan.md # Plan\\n\\n1. Read the repo.\\n\n!env\n!mcp\n!reply plan written"
	mustTeam(t, e.b, "team-h")
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Write the plan", "teamId": "team-h",
		"repoPath": repo, "kind": "code", "status": "todo", "description": desc,
	}, &created); code != http.StatusCreated {
		t.Fatalf("create task: %d %+v", code, created)
	}
	task := created.Task

	var res taskRunResult
	code := e2eDo(t, h, "POST", "/api/runtimes/hermes/run", map[string]any{"taskId": task.ID, "assigneeAgentId": agent.ID}, &res)
	if code != http.StatusOK || !res.OK || !strings.HasSuffix(res.Summary, "plan written") {
		t.Fatalf("run: %d %+v", code, res)
	}
	// The task is in review with the file in its diff.
	wantReviewDiff(t, h, res, task.ID, "notes/plan.md", "1. Read the repo.")

	// Hermes reports no cost: the host estimates from characters and warns.
	if res.CostKind == nil || *res.CostKind != "char-estimate" || res.CostUSD == nil || *res.CostUSD <= 0 {
		t.Fatalf("cost %v kind %v", deref(res.CostUSD), deref(res.CostKind))
	}
	if !strings.Contains(logs.String(), "spend_unreported") {
		t.Fatal("no spend_unreported warning for a run that reported no cost")
	}

	// What the child saw: the worktree, the chosen key alone (not the
	// ambient one), and mcp.json with all four servers and the token.
	rows, err := b.Store.ListEvents(ctx, res.RunID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	var reply strings.Builder
	session := ""
	for _, r := range rows {
		all.Write(r.Data)
		var ev struct {
			Kind, Text, Session string
		}
		_ = json.Unmarshal(r.Data, &ev)
		reply.WriteString(ev.Text)
		if ev.Session != "" {
			session = ev.Session
		}
	}
	got := reply.String()
	wt, err := b.Board.Worktree(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"flag-provider=openrouter", "model=openai/gpt-4o-mini", "cwd=" + wt.Path + "\n", "ANTHROPIC_API_KEY=unset",
		"home=" + filepath.Join(cfg.Home, "runtimes", "hermes", agent.ID),
		"mcp=clawboo-memory,clawboo-tasks,clawboo-teamchat,clawboo-tools",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("the child did not report %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "OPENROUTER_API_KEY=unset") || session == "" {
		t.Fatalf("key not passed or no resume handle (%q):\n%s", session, got)
	}
	token, ok := b.Vault.Get(ctx, mcp.TokenSlot)
	if !ok || token == "" {
		t.Fatal("no attach token")
	}
	// mcp.json held the run's own token, never the install token, and the
	// token left in it died with the run.
	mj, err := os.ReadFile(filepath.Join(cfg.Home, "runtimes", "hermes", agent.ID, "mcp.json"))
	runTok := testkit.BearerIn(string(mj))
	if err != nil || runTok == "" || strings.Contains(string(mj), token) || !strings.Contains(string(mj), b.BaseURL()+"/mcp/tasks?") {
		t.Fatalf("mcp.json %v:\n%s", err, mj)
	}
	hub := httptest.NewServer(b.MCP) // this backend listens but does not serve
	defer hub.Close()
	if code, _ := testkit.MCPOpen(t, hub.URL+"/mcp/tasks", runTok); code != http.StatusUnauthorized {
		t.Fatalf("the finished run's token answered %d", code)
	}

	// No secret in the events, the logs or the database files.
	for _, secret := range []string{sentinel, ambient, token} {
		if strings.Contains(all.String(), secret) || strings.Contains(logs.String(), secret) {
			t.Fatalf("secret %.12s… leaked into events or logs", secret)
		}
	}
	e.close(t)
	// Every file under the home: the database and its journal, the vault,
	// the managed Hermes home (whose fake logs keys as hashes only).
	_ = filepath.WalkDir(cfg.Home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, _ := os.ReadFile(p)
		for _, secret := range []string{sentinel, ambient} {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("secret %.12s… stored in %s", secret, p)
			}
		}
		return nil
	})
}

// e2eWaitRun polls a run until it leaves the live states.
func e2eWaitRun(t *testing.T, h http.Handler, id string) store.Run {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var r store.Run
		if code := e2eDo(t, h, "GET", "/api/runs/"+id, nil, &r); code != http.StatusOK {
			t.Fatalf("get run %s: %d", id, code)
		}
		if !r.Live() {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s still %s", id, r.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// e2eWaitEvent polls a run's stored events until one contains want.
func e2eWaitEvent(t *testing.T, b *Backend, id, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		rows, err := b.Store.ListEvents(context.Background(), id, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if strings.Contains(string(r.Data), want) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("run %s never reported %q", id, want)
}

// TestHermesE2ESteerAndAbort drives live runs through the API: a steer is
// stop-and-resume inside the one run (one done, the resumed session), a
// passive steer is refused, and an abort ends a hung Hermes as aborted.
func TestHermesE2ESteerAndAbort(t *testing.T) {
	e := newHermesE2E(t)
	name, rt := "Steered", "hermes"
	agent, err := e.b.Agents.Create(context.Background(), agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	start := func(msg string) string {
		var started struct {
			RunID string `json:"runId"`
		}
		if code := e2eDo(t, e.h, "POST", "/api/runtimes/hermes/run", map[string]any{
			"message": msg, "agentId": agent.ID,
			"wait": false,
		}, &started); code != http.StatusAccepted || started.RunID == "" {
			t.Fatalf("start: %d %+v", code, started)
		}
		return started.RunID
	}
	steer := func(id, text, mode string) string {
		var res struct{ Result string }
		if code := e2eDo(t, e.h, "POST", "/api/runs/"+id+"/steer", map[string]any{"text": text, "mode": mode}, &res); code != http.StatusOK {
			t.Fatalf("steer: %d", code)
		}
		return res.Result
	}

	id := start("!stream 1 0\n!hang")
	e2eWaitEvent(t, e.b, id, "stream line 1")
	if got := steer(id, "fyi", "passive"); got != "rejected" {
		t.Fatalf("passive steer %q", got)
	}
	if got := steer(id, "!reply steered answer", "next"); got != "delivered" {
		t.Fatalf("steer %q", got)
	}
	r := e2eWaitRun(t, e.h, id)
	if r.Status != store.RunSucceeded || r.Summary != "steered answer" {
		t.Fatalf("steered run %+v", r)
	}
	rows, err := e.b.Store.ListEvents(context.Background(), id, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var dones, resumed int
	for _, row := range rows {
		if row.Kind == "done" {
			dones++
		}
		if strings.Contains(string(row.Data), "steer: resuming") {
			resumed++
		}
	}
	if dones != 1 || resumed != 1 {
		t.Fatalf("%d done and %d resume events in one run", dones, resumed)
	}

	id = start("!hang")
	e2eWaitEvent(t, e.b, id, `"phase":"init"`)
	if code := e2eDo(t, e.h, "POST", "/api/runs/"+id+"/abort", nil, nil); code != http.StatusAccepted {
		t.Fatalf("abort: %d", code)
	}
	if r := e2eWaitRun(t, e.h, id); r.Status != store.RunAborted {
		t.Fatalf("aborted run %+v", r)
	}
}
