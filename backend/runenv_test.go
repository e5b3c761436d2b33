package backend

import (
	"net/http"
	"strings"
	"testing"
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
