package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/vault"
)

// mcpCmd runs `clawboo mcp …` with env as the whole environment and
// returns its exit status and output.
func mcpCmd(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	cmd.Env = []string{}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, o.String(), e.String()
}

// mcpTokenName is the vault slot of the attach token (backend's
// mcpTokenName), where the server reads it from.
const mcpTokenName = "CLAWBOO_MCP_TOKEN"

var exportLine = regexp.MustCompile(`(?m)^export CLAWBOO_MCP_TOKEN='([A-Za-z0-9_-]{43})'$`)

func TestMCPConfigCommand(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"CLAWBOO_VAULT": "file", "HOME": t.TempDir()}

	// First run: no token yet (generated and stored), no port file (the
	// default port, said on stderr).
	code, out, errs := mcpCmd(t, env, "config", "--client", "codex", "--home", home)
	if code != 0 {
		t.Fatalf("%d %s", code, errs)
	}
	m := exportLine.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "[mcp_servers.clawboo-teamchat]\nurl = \"http://127.0.0.1:18790/mcp/teamchat\"\nbearer_token_env_var = \"CLAWBOO_MCP_TOKEN\"\n") {
		t.Fatalf("stdout:\n%s", out)
	}
	token := m[1]
	if !strings.Contains(errs, "api-port.txt does not exist") || !strings.Contains(errs, "18790") || strings.Contains(errs, token) {
		t.Fatalf("stderr:\n%s", errs)
	}
	// The token is the vault's, where the server reads it from.
	v, err := vault.Open(vault.Options{Home: home, Getenv: func(k string) string { return env[k] }, ForceFile: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := v.Get(context.Background(), mcpTokenName); got != token {
		t.Fatalf("vault holds %q, printed %q", got, token)
	}
	v.Close()

	// Second run, through $CLAWBOO_HOME, with a recorded port: same token,
	// the recorded port, no note.
	if err := os.WriteFile(filepath.Join(home, "api-port.txt"), []byte("18801\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env["CLAWBOO_HOME"] = home
	for _, client := range []string{"claude", "hermes", "json", "openclaw"} {
		code, out, errs = mcpCmd(t, env, "config", "--client", client)
		if code != 0 || strings.Contains(errs, "does not exist") {
			t.Fatalf("%s: %d %s", client, code, errs)
		}
		if !strings.Contains(out, `"Authorization": "Bearer `+token+`"`) || !strings.Contains(out, `"url": "http://127.0.0.1:18801/mcp/tasks"`) {
			t.Fatalf("%s:\n%s", client, out)
		}
	}
	if code, out, _ = mcpCmd(t, env, "config"); code != 0 || !strings.Contains(out, `"mcpServers"`) {
		t.Fatalf("default client: %d\n%s", code, out)
	}

	// Usage errors are 2; a broken port file is 1.
	for _, args := range [][]string{{}, {"conf"}, {"config", "--client", "cursor"}, {"config", "extra"}, {"config", "--nope"}} {
		if code, _, _ := mcpCmd(t, env, args...); code != 2 {
			t.Fatalf("%v: %d", args, code)
		}
	}
	if code, _, _ := mcpCmd(t, env, "help"); code != 0 {
		t.Fatal(code)
	}
	if err := os.WriteFile(filepath.Join(home, "api-port.txt"), []byte("eighteen\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := mcpCmd(t, env, "config"); code != 1 || !strings.Contains(errs, "not a port") {
		t.Fatalf("%d %s", code, errs)
	}
}
