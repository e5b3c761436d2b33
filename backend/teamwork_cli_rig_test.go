package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/adapters/claudecode"
	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/fakes/fakeanthropic"
	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
	"github.com/clawboo/desktop/backend/teams"
	"github.com/clawboo/desktop/internal/testkit"
)

// mixedRig is one listening backend with three runtimes, each offline on
// its own fake: clawboo-native on the scripted Messages API (the backend's
// ANTHROPIC_BASE_URL), the real claude CLI on fakeanthropic (the user's
// environment names it, as for newClaudeRig) and the real codex CLI on
// fakeresponses (the user's ~/.codex, as for newCodexEnv). The keys are in
// the vault.
type mixedRig struct {
	b      *Backend
	h      http.Handler
	native *fakeprovider.Server
	claude *fakeanthropic.Server
	codex  *fakeresponses.Server
	logs   *testkit.SyncBuffer
	team   teams.Team
	ids    map[string]string // name → agent id
}

func newMixedRig(t *testing.T, ctx context.Context) *mixedRig {
	t.Helper()
	claudeBin, codexBin := testCLIBin(t, "claude"), testCLIBin(t, "codex")
	rg := &mixedRig{
		native: fakeprovider.New(), claude: fakeanthropic.New(), codex: fakeresponses.New(), logs: &testkit.SyncBuffer{},
		ids: map[string]string{},
	}
	var urls []string
	for _, f := range []http.Handler{rg.native, rg.claude, rg.codex} {
		srv := httptest.NewServer(f)
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
	}
	home, user, userCodex := t.TempDir(), t.TempDir(), t.TempDir()
	codexUser(t, codexBin, userCodex, urls[2])
	path := filepath.Dir(claudeBin) + string(os.PathListSeparator)
	if d := filepath.Dir(codexBin); d != filepath.Dir(claudeBin) {
		path += d + string(os.PathListSeparator)
	}
	path += os.Getenv("PATH")
	// The backend's environment: native's provider URL, the user's Codex
	// home. The children's: Claude Code's own settings.
	env := map[string]string{"HOME": user, config.EnvVault: "file", "PATH": path, "CODEX_HOME": userCodex, "ANTHROPIC_BASE_URL": urls[0]}
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(home, getenv)
	if err != nil {
		t.Fatal(err)
	}
	environ := []string{
		"HOME=" + user, "PATH=" + path, "CLAUDE_CONFIG_DIR=" + filepath.Join(user, ".claude"),
		"ANTHROPIC_BASE_URL=" + urls[1], "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1", "CLAUDE_CODE_MAX_RETRIES=0",
	}
	b, err := New(ctx, Options{
		Config: cfg, Getenv: getenv, Environ: func() []string { return environ },
		Log: slog.New(slog.NewTextHandler(rg.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	serveForTest(t, b)
	t.Cleanup(func() {
		_ = b.Close(context.Background())
		a, _ := b.Registry.Get("claude-code")
		wctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := a.(*claudecode.Adapter).Wait(wctx); err != nil {
			t.Errorf("claude children not reaped: %v", err)
		}
	})
	if b.Worktrees == nil {
		t.Fatal("no worktrees: is git installed?")
	}
	for k, v := range map[string]string{claudeKeyName: claudeTestKey, "OPENAI_API_KEY": codexTestKey} {
		if err := b.Vault.Set(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}
	rg.b, rg.h = b, authed(b)
	return rg
}

func (rg *mixedRig) agent(t *testing.T, ctx context.Context, name, rt, cfg string) {
	t.Helper()
	in := agents.Input{Name: &name, Runtime: &rt}
	if cfg != "" {
		in.Config = json.RawMessage(cfg)
	}
	a, err := rg.b.Agents.Create(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	rg.ids[name] = a.ID
}

func (rg *mixedRig) posts(t *testing.T) []wirePost {
	t.Helper()
	var out struct{ Posts []wirePost }
	if code := e2eDo(t, rg.h, "GET", "/api/teams/"+rg.team.ID+"/chat?after=0&limit=500", nil, &out); code != http.StatusOK {
		t.Fatalf("posts: %d", code)
	}
	return out.Posts
}

func (rg *mixedRig) room(t *testing.T) string {
	var b strings.Builder
	for _, p := range rg.posts(t) {
		fmt.Fprintf(&b, "#%d %s [%s] %s\n", p.Seq, p.AuthorName, p.Kind, p.Body)
	}
	return b.String()
}

// waitPost waits for a post of the room that ok accepts.
func (rg *mixedRig) waitPost(t *testing.T, ctx context.Context, what string, ok func(wirePost) bool) wirePost {
	t.Helper()
	for {
		for _, p := range rg.posts(t) {
			if ok(p) {
				return p
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("no post %s; the room:\n%s\nlogs:\n%s", what, rg.room(t), rg.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (rg *mixedRig) chat(t *testing.T, msg string) {
	t.Helper()
	var res struct {
		RunID string `json:"runId"`
	}
	if code := e2eDo(t, rg.h, "POST", "/api/teams/"+rg.team.ID+"/chat", map[string]any{"message": msg}, &res); code != http.StatusAccepted || res.RunID == "" {
		t.Fatalf("chat: %d %+v", code, res)
	}
}

func (rg *mixedRig) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	if err := rg.b.Store.Reader().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// children are the tasks under a mission, by assignee name.
func (rg *mixedRig) children(t *testing.T, ctx context.Context, mission string) map[string]board.Task {
	t.Helper()
	ts, err := rg.b.Board.List(ctx, board.Filter{TeamID: rg.team.ID})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]board.Task{}
	for _, tk := range ts {
		if tk.ParentID == nil || *tk.ParentID != mission {
			continue
		}
		who := "(none)"
		for name, id := range rg.ids {
			if tk.AssigneeAgentID != nil && *tk.AssigneeAgentID == id {
				who = name
			}
		}
		if _, dup := out[who]; dup {
			t.Fatalf("two children of %s for %s", mission, who)
		}
		out[who] = tk
	}
	return out
}

// missionOf is the mission a person's message made (its title is the
// message's first line).
func (rg *mixedRig) missionOf(t *testing.T, ctx context.Context, msg string) board.Task {
	t.Helper()
	ts, err := rg.b.Board.List(ctx, board.Filter{TeamID: rg.team.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range ts {
		if tk.ParentID == nil && strings.HasPrefix(tk.Title, "Mission: "+msg[:20]) {
			return tk
		}
	}
	t.Fatalf("no mission for %q on the board: %+v", msg, ts)
	return board.Task{}
}

func has(tools []string, suffix string) bool {
	return slices.ContainsFunc(tools, func(s string) bool { return strings.HasSuffix(s, suffix) })
}
