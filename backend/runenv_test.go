package backend

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
)

// A run's env (the keys a desktop sends its host's server) is refused by
// any other server, and a host's server refuses names that would change
// how a child starts.
func TestRunEnvOnlyOnAHostServerAndNeverPath(t *testing.T) {
	b := e2eBackend(t, map[string]string{"CLAWBOO_ENABLE_MOCK_RUNTIME": "1"})
	var e struct{ Error string }
	code := e2eDo(t, authed(b), "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"message": "!ok", "env": map[string]string{"A_KEY": "x"}}, &e)
	if code != http.StatusBadRequest || !strings.Contains(e.Error, "host's server") {
		t.Fatalf("a desktop took a run's env: %d %q", code, e.Error)
	}
	b.API.SetRunEnv(true)
	for _, bad := range []string{"PATH", "LD_PRELOAD", "CLAWBOO_PORT", "NODE_OPTIONS", "a-b"} {
		code := e2eDo(t, authed(b), "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"message": "!ok", "env": map[string]string{bad: "x"}}, &e)
		if code != http.StatusBadRequest {
			t.Fatalf("a host's server took %s: %d", bad, code)
		}
	}
	var ok struct{ Summary string }
	if code := e2eDo(t, authed(b), "POST", "/api/runtimes/clawboo-mock/run", map[string]any{
		"message": "!hasenv ANTHROPIC_API_KEY", "env": map[string]string{"ANTHROPIC_API_KEY": "sk-x", "TASK_TOKEN": "y"},
	}, &ok); code != http.StatusOK || ok.Summary != "ANTHROPIC_API_KEY is set (4 bytes)" {
		t.Fatalf("a host's server and a provider's key: %d %q", code, ok.Summary)
	}
}

// A run's MCP attachment (a desktop's servers, through the socket its ssh
// forwards) is taken only by a host's server, and only with a reverse
// forward's socket name and a run token's shape; a socket outside the
// host's home is refused when the run attaches.
func TestRunMCPOnlyOnAHostServerAndOnlyItsSocket(t *testing.T) {
	b := e2eBackend(t, map[string]string{"CLAWBOO_ENABLE_MOCK_RUNTIME": "1"})
	paths := map[string]string{"clawboo-tasks": "/mcp/tasks?team=t&agent=a&sig=x"}
	good := map[string]any{"socket": "/home/u/.clawboo-host/mcp-0123456789ab.sock", "token": strings.Repeat("t", 43), "paths": paths}
	var e struct{ Error string }
	code := e2eDo(t, authed(b), "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"message": "!ok", "mcp": good}, &e)
	if code != http.StatusBadRequest || !strings.Contains(e.Error, "host's server") {
		t.Fatalf("a desktop took a run's MCP attachment: %d %q", code, e.Error)
	}
	b.API.SetRunEnv(true)
	for name, bad := range map[string]map[string]any{
		"relative socket":  {"socket": "mcp-0123456789ab.sock", "token": good["token"], "paths": paths},
		"other socket":     {"socket": "/run/docker.sock", "token": good["token"], "paths": paths},
		"dotted socket":    {"socket": "/home/u/.clawboo-host/../mcp-0123456789ab.sock", "token": good["token"], "paths": paths},
		"short token":      {"socket": good["socket"], "token": "short", "paths": paths},
		"token with space": {"socket": good["socket"], "token": strings.Repeat("t", 20) + " x", "paths": paths},
		"no paths":         {"socket": good["socket"], "token": good["token"]},
		"foreign path":     {"socket": good["socket"], "token": good["token"], "paths": map[string]string{"x": "http://evil/mcp/tasks"}},
	} {
		if code := e2eDo(t, authed(b), "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"message": "!ok", "mcp": bad}, &e); code != http.StatusBadRequest {
			t.Fatalf("a host's server took %s: %d", name, code)
		}
	}
	// Well formed, but not in this server's home: the run's attach refuses
	// it (the mock takes no MCP servers, so ask the attach itself).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, _, err := b.carriedAttach(ctx, executor.CarriedMCP{Socket: good["socket"].(string), Token: good["token"].(string), Paths: paths}); err == nil {
		t.Fatal("a socket outside the host's home was relayed")
	}
}

// Discarding a task's work is a host's server's route only (the desktop
// drops its host task once the branch came back); there it cancels the
// task and says why.
func TestDiscardOnlyOnAHostServer(t *testing.T) {
	b := e2eBackend(t, map[string]string{})
	var made struct {
		Task struct{ ID string } `json:"task"`
	}
	if code := e2eDo(t, authed(b), "POST", "/api/board", map[string]any{"title": "Taken back"}, &made); code != http.StatusCreated {
		t.Fatalf("task: %d", code)
	}
	var e struct{ Error string }
	if code := e2eDo(t, authed(b), "POST", "/api/board/"+made.Task.ID+"/discard", map[string]any{}, &e); code != http.StatusNotFound || !strings.Contains(e.Error, "host's server") {
		t.Fatalf("a desktop discarded a task: %d %q", code, e.Error)
	}
	b.API.SetRunEnv(true)
	var got struct {
		Task struct{ Status string } `json:"task"`
	}
	if code := e2eDo(t, authed(b), "POST", "/api/board/"+made.Task.ID+"/discard", map[string]any{}, &got); code != http.StatusOK || got.Task.Status != "cancelled" {
		t.Fatalf("discard on a host's server: %d %+v", code, got)
	}
	if code := e2eDo(t, authed(b), "POST", "/api/board/no-such-task/discard", map[string]any{}, nil); code != http.StatusNotFound {
		t.Fatalf("an unknown task: %d", code)
	}
}
