package hermes

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mode(t *testing.T, p string) os.FileMode {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

func TestManagedHome(t *testing.T) {
	f := newFixture(t, orKey)
	userCfg := "model:\n  provider: openrouter\n  default: anthropic/claude-sonnet-4\n"
	writeFile(t, f.userConfig(), userCfg)

	evs, done := f.runToEnd(t, f.request("agent-1", "!mcp\n!config"))
	if done.Reason != executor.DoneSuccess || !strings.Contains(text(evs), "config-provider=openrouter") ||
		!strings.Contains(text(evs), "mcp=clawboo-memory,clawboo-tasks,clawboo-teamchat,clawboo-tools") {
		t.Fatalf("run %+v: %q", done, text(evs))
	}
	home := filepath.Join(f.root, "agent-1")
	if m := mode(t, home); m != 0o700 {
		t.Fatalf("home mode %v", m)
	}
	// mcp.json: the four servers, bound to the run, with the attach token.
	p := filepath.Join(home, "mcp.json")
	if m := mode(t, p); m != 0o600 {
		t.Fatalf("mcp.json mode %v", m)
	}
	var mj struct {
		MCPServers map[string]struct {
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	b, _ := os.ReadFile(p)
	if err := json.Unmarshal(b, &mj); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"clawboo-tasks", "clawboo-memory", "clawboo-tools", "clawboo-teamchat"} {
		s, ok := mj.MCPServers[name]
		if !ok || s.Headers["Authorization"] != "Bearer "+testToken || !strings.Contains(s.URL, "/mcp/"+strings.TrimPrefix(name, "clawboo-")) {
			t.Fatalf("%s: %+v", name, s)
		}
	}
	if len(mj.MCPServers) != 4 {
		t.Fatalf("servers %v", mj.MCPServers)
	}

	// config.yaml is seeded once: later changes on either side stay apart.
	cfg := filepath.Join(home, "config.yaml")
	if got, _ := os.ReadFile(cfg); string(got) != userCfg || mode(t, cfg) != 0o600 {
		t.Fatalf("seeded config %q %v", got, mode(t, cfg))
	}
	agentCfg := "model:\n  provider: anthropic\n"
	writeFile(t, cfg, agentCfg)
	writeFile(t, f.userConfig(), "model:\n  provider: openai\n")
	f.keys["ANTHROPIC_API_KEY"] = "k-an"
	f.attach = "" // the servers are not reachable now: no stale mcp.json
	evs, _ = f.runToEnd(t, f.request("agent-1", "!config\n!mcp"))
	if got, _ := os.ReadFile(cfg); string(got) != agentCfg || !strings.Contains(text(evs), "config-provider=anthropic") {
		t.Fatalf("home config overwritten: %q / %q", got, text(evs))
	}
	if !strings.Contains(text(evs), "mcp=none") {
		t.Fatalf("mcp.json kept without servers: %q", text(evs))
	}
	if got, _ := os.ReadFile(f.userConfig()); string(got) != "model:\n  provider: openai\n" {
		t.Fatalf("user config written: %q", got)
	}

	// A throwaway home is gone when its run ends, token and all.
	evs, _ = f.runToEnd(t, f.request("", "!env"))
	var throwaway string
	for _, l := range strings.Split(text(evs), "\n") {
		if v, ok := strings.CutPrefix(l, "home="); ok {
			throwaway = v
		}
	}
	if throwaway == "" || !strings.HasPrefix(throwaway, f.root) {
		t.Fatalf("throwaway home %q", throwaway)
	}
	if _, err := os.Stat(throwaway); !os.IsNotExist(err) {
		t.Fatalf("throwaway home %s still there: %v", throwaway, err)
	}
	// An agent id that is not a folder name is refused.
	if _, err := f.a.Start(context.Background(), f.request("../escape", "x")); err == nil {
		t.Fatal("agent id with a path was accepted")
	}
}

func TestWriteContextAndSetModel(t *testing.T) {
	f := newFixture(t, orKey)
	work := t.TempDir()
	req := f.request("agent-1", "!hang")
	req.WorkDir = work
	run := f.start(t, req)
	ctx := context.Background()
	if err := run.WriteContext(ctx, "signal", "focus on tests"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(work, ".clawboo", "context", "signal.md")); string(b) != "focus on tests" {
		t.Fatalf("context file %q", b)
	}
	if err := run.WriteContext(ctx, "../outside", "x"); err == nil {
		t.Fatal("a key outside the working folder was written")
	}
	if err := run.SetModel(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	_ = run.Abort(ctx)
	collect(t, run)

	// No working folder: nothing is written anywhere.
	run = f.start(t, f.request("agent-1", "!reply ok"))
	if err := run.WriteContext(ctx, "note", "v"); err != nil {
		t.Fatal(err)
	}
	collect(t, run)
	if _, err := os.Stat("note"); !os.IsNotExist(err) {
		t.Fatal("wrote into the test's folder")
	}
}

func TestStaleThrowawayHomesAreSwept(t *testing.T) {
	root := t.TempDir()
	old, fresh := filepath.Join(root, ".throwaway", "run-old"), filepath.Join(root, ".throwaway", "run-new")
	writeFile(t, filepath.Join(old, "mcp.json"), "{}")
	writeFile(t, filepath.Join(fresh, "mcp.json"), "{}")
	past := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	New(Options{Root: root})
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("stale throwaway home kept: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Fatalf("a young throwaway home (maybe in use) was removed: %v", err)
	}
}
