package backend

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/internal/testkit"
)

// buildFakeACP builds the scripted ACP agent into a fresh folder.
func buildFakeACP(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fakeacp")
	if err := testkit.GoBuild("github.com/clawboo/desktop/backend/fakes/fakeacp", p); err != nil {
		t.Fatal(err)
	}
	return p
}

// acpHome opens a backend on home (served on loopback, so runs reach the
// MCP servers).
func acpHome(t *testing.T, home string) (*Backend, http.Handler) {
	t.Helper()
	env := map[string]string{"HOME": home, config.EnvVault: "file", "PATH": os.Getenv("PATH")}
	cfg, err := config.Load(home, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(context.Background(), Options{
		Config: cfg, Getenv: func(k string) string { return env[k] },
		Environ: func() []string { return []string{"HOME=" + home, "PATH=" + env["PATH"]} },
		Log:     slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	serveForTest(t, b)
	return b, authed(b)
}

type acpRuntime struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	Family          string `json:"family"`
	CanRun          bool   `json:"canRun"`
	ConnectionState string `json:"connectionState"`
	ACP             *struct {
		Command string   `json:"command"`
		Custom  bool     `json:"custom"`
		EnvVars []string `json:"envVars"`
	} `json:"acp"`
}

func listedACP(t *testing.T, h http.Handler) map[string]acpRuntime {
	t.Helper()
	var l struct{ Runtimes []acpRuntime }
	e2eDo(t, h, "GET", "/api/runtimes", nil, &l)
	out := map[string]acpRuntime{}
	for _, r := range l.Runtimes {
		if r.Family == "acp" {
			out[r.ID] = r
		}
	}
	return out
}

// TestACPAgentsThroughTheAPI: the catalog's ACP agents are listed installed
// or not; a person's own agent is checked, listed, run, asks its
// permission through the approvals API, outlives a restart, and is
// removed only when nothing runs on it.
func TestACPAgentsThroughTheAPI(t *testing.T) {
	fake := buildFakeACP(t)
	home := t.TempDir()
	b, h := acpHome(t, home)

	listed := listedACP(t, h)
	for _, id := range []string{"acp-gemini", "acp-opencode", "acp-copilot", "acp-claude", "acp-goose"} {
		if r, ok := listed[id]; !ok || r.ConnectionState != "not-installed" || !r.CanRun {
			t.Fatalf("%s: %+v (listed %v)", id, r, ok)
		}
	}

	for _, bad := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"name": "x", "command": "fakeacp; rm -rf ~"}, "command"},
		{map[string]any{"name": "x", "command": "./fakeacp"}, "command"},
		{map[string]any{"name": "x", "command": "no-such-acp-agent-program"}, "command"},
		{map[string]any{"name": "x", "command": "/etc/passwd"}, "command"},
		{map[string]any{"name": "x", "command": "/bin/sh", "args": []string{"-c", "rm -rf x"}}, "command"},
		{map[string]any{"name": "x", "command": fake, "args": []string{"$(whoami)"}}, "args"},
		{map[string]any{"name": "x", "command": fake, "envVars": []string{"BAD-NAME"}}, "envVars"},
		{map[string]any{"name": "", "command": fake}, "name"},
	} {
		var e struct{ Error, Field string }
		if code := e2eDo(t, h, "POST", "/api/acp/agents", bad.body, &e); code != http.StatusBadRequest || e.Error == "" || e.Field != bad.field {
			t.Fatalf("%v: %d %q about %q, want it about %q", bad.body, code, e.Error, e.Field, bad.field)
		}
	}

	var made struct{ Runtime acpRuntime }
	if code := e2eDo(t, h, "POST", "/api/acp/agents", map[string]any{"name": "Fake Agent", "command": fake, "envVars": []string{"FAKE_TOKEN"}}, &made); code != http.StatusCreated {
		t.Fatalf("add: %d", code)
	}
	r := made.Runtime
	if r.ID != "acp-fake-agent" || r.Family != "acp" || !r.CanRun || r.ConnectionState != "ready" || r.ACP == nil || !r.ACP.Custom || r.ACP.Command != fake {
		t.Fatalf("made %+v", r)
	}

	var res taskRunResult
	e2eDo(t, h, "POST", "/api/runtimes/acp-fake-agent/run", map[string]any{"message": "!say hello"}, &res)
	if !res.OK || res.Summary != "hello" {
		t.Fatalf("run: %+v", res)
	}

	// A permission the agent asks is an approval answered through the API.
	var started struct{ RunID string }
	e2eDo(t, h, "POST", "/api/runtimes/acp-fake-agent/run", map[string]any{"message": "!ask deploy to prod", "wait": false}, &started)
	ask := pendingFor(t, h, started.RunID)
	if ask.Tool != "deploy to prod" || !strings.Contains(ask.Args, "deploy to prod") {
		t.Fatalf("approval %+v", ask)
	}
	if code := e2eDo(t, h, "POST", "/api/approvals/"+ask.ID+"/resolve", map[string]any{"decision": "approve"}, nil); code != http.StatusOK {
		t.Fatalf("resolve: %d", code)
	}
	testkit.EventuallySays(t, 20*time.Second, "the run ends told its answer", func() (bool, string) {
		var run struct{ Status, Summary string }
		e2eDo(t, h, "GET", "/api/runs/"+started.RunID, nil, &run)
		return run.Status == "succeeded" && run.Summary == "permission: allow-once", run.Status + " " + run.Summary
	})

	// "Allow for this session" answers the same tool's later asks in the run.
	e2eDo(t, h, "POST", "/api/runtimes/acp-fake-agent/run", map[string]any{"message": "!ask ship it\n!ask ship it", "wait": false}, &started)
	ask = pendingFor(t, h, started.RunID)
	if !ask.Always {
		t.Fatalf("the agent offers allow-always, the approval does not say so: %+v", ask)
	}
	if code := e2eDo(t, h, "POST", "/api/approvals/"+ask.ID+"/resolve", map[string]any{"decision": "allow-always"}, nil); code != http.StatusOK {
		t.Fatalf("resolve allow-always: %d", code)
	}
	testkit.EventuallySays(t, 20*time.Second, "the second ask is answered without a person", func() (bool, string) {
		var run struct{ Status, Summary string }
		e2eDo(t, h, "GET", "/api/runs/"+started.RunID, nil, &run)
		return run.Status == "succeeded" && strings.Count(run.Summary, "permission: allow-always") == 2, run.Status + " " + run.Summary
	})
	var hist struct{ Approvals []approval.Request }
	e2eDo(t, h, "GET", "/api/approvals?status=answered&limit=50", nil, &hist)
	n := 0
	for _, a := range hist.Approvals {
		if a.RunID == started.RunID {
			n++
			if a.Scope != approval.ScopeSession || a.Status != approval.Approved {
				t.Fatalf("the answer in the history: %+v", a)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d approvals for a tool allowed for the session, want 1", n)
	}

	// The agent outlives a restart.
	if err := b.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, h = acpHome(t, home)
	defer b.Close(context.Background())
	if r, ok := listedACP(t, h)["acp-fake-agent"]; !ok || r.ConnectionState != "ready" || r.ACP.EnvVars[0] != "FAKE_TOKEN" {
		t.Fatalf("after a restart: %+v (%v)", r, ok)
	}

	// Removed only when no agent runs on it; the catalog's are not removable.
	var made2 struct{ Agent struct{ ID string } }
	if code := e2eDo(t, h, "POST", "/api/agents", map[string]any{"name": "Fakey", "runtime": "acp-fake-agent"}, &made2); code != http.StatusCreated {
		t.Fatalf("an agent on the ACP runtime: %d", code)
	}
	agent := made2.Agent
	if code := e2eDo(t, h, "DELETE", "/api/acp/agents/acp-fake-agent", nil, nil); code != http.StatusConflict {
		t.Fatalf("delete while an agent runs on it: %d", code)
	}
	if code := e2eDo(t, h, "DELETE", "/api/agents/"+agent.ID, nil, nil); code/100 != 2 {
		t.Fatalf("delete the agent: %d", code)
	}
	if code := e2eDo(t, h, "DELETE", "/api/acp/agents/acp-fake-agent", nil, nil); code != http.StatusNoContent {
		t.Fatalf("delete: %d", code)
	}
	if _, ok := listedACP(t, h)["acp-fake-agent"]; ok {
		t.Fatal("still listed after its removal")
	}
	if code := e2eDo(t, h, "DELETE", "/api/acp/agents/acp-fake-agent", nil, nil); code != http.StatusNotFound {
		t.Fatalf("a second delete: %d", code)
	}
	if code := e2eDo(t, h, "DELETE", "/api/acp/agents/acp-gemini", nil, nil); code != http.StatusConflict {
		t.Fatalf("delete a catalog agent: %d", code)
	}
}

// pendingFor waits for the run's pending approval and returns it.
func pendingFor(t *testing.T, h http.Handler, runID string) approval.Request {
	t.Helper()
	var ask approval.Request
	testkit.EventuallySays(t, 20*time.Second, "the agent's permission request is pending", func() (bool, string) {
		var l struct{ Approvals []approval.Request }
		e2eDo(t, h, "GET", "/api/approvals", nil, &l)
		for _, a := range l.Approvals {
			if a.RunID == runID {
				ask = a
				return true, ""
			}
		}
		return false, "no approval yet"
	})
	return ask
}
