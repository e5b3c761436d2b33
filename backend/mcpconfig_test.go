package backend

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/vault"
)

// mcpCmd runs `clawboo mcp …` with env as the whole environment.
func mcpCmd(env map[string]string, args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = RunMCPCommand(args, func(k string) string { return env[k] }, &o, &e)
	return code, o.String(), e.String()
}

var exportLine = regexp.MustCompile(`(?m)^export CLAWBOO_MCP_TOKEN='([A-Za-z0-9_-]{43})'$`)

func TestMCPConfigCommand(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"CLAWBOO_VAULT": "file", "HOME": t.TempDir()}

	// First run: no token yet (generated and stored), no port file (the
	// default port, said on stderr).
	code, out, errs := mcpCmd(env, "config", "--client", "codex", "--home", home)
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
		code, out, errs = mcpCmd(env, "config", "--client", client)
		if code != 0 || strings.Contains(errs, "does not exist") {
			t.Fatalf("%s: %d %s", client, code, errs)
		}
		if !strings.Contains(out, `"Authorization": "Bearer `+token+`"`) || !strings.Contains(out, `"url": "http://127.0.0.1:18801/mcp/tasks"`) {
			t.Fatalf("%s:\n%s", client, out)
		}
	}
	if code, out, _ = mcpCmd(env, "config"); code != 0 || !strings.Contains(out, `"mcpServers"`) {
		t.Fatalf("default client: %d\n%s", code, out)
	}

	// Usage errors are 2; a broken port file is 1.
	for _, args := range [][]string{{}, {"conf"}, {"config", "--client", "cursor"}, {"config", "extra"}, {"config", "--nope"}} {
		if code, _, _ := mcpCmd(env, args...); code != 2 {
			t.Fatalf("%v: %d", args, code)
		}
	}
	if code, _, _ := mcpCmd(env, "help"); code != 0 {
		t.Fatal(code)
	}
	if err := os.WriteFile(filepath.Join(home, "api-port.txt"), []byte("eighteen\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := mcpCmd(env, "config"); code != 1 || !strings.Contains(errs, "not a port") {
		t.Fatalf("%d %s", code, errs)
	}
}

// TestMCPSecretNeverReplacesAnUnreadableSecret: a token that is stored but
// cannot be read is an error, not a reason to mint a new one.
func TestMCPSecretNeverReplacesAnUnreadableSecret(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	open := func(key string) *vault.Vault {
		env := map[string]string{vault.EnvMasterKey: key}
		v, err := vault.Open(vault.Options{Home: home, Getenv: func(k string) string { return env[k] }, ForceFile: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { v.Close() })
		return v
	}
	v := open(strings.Repeat("a", 64))
	first, err := MCPSecret(ctx, v, mcpTokenName)
	if err != nil || len(first) != 43 {
		t.Fatal(first, err)
	}
	if again, err := MCPSecret(ctx, v, mcpTokenName); err != nil || again != first {
		t.Fatal(again, err)
	}
	if _, err := MCPSecret(ctx, open(strings.Repeat("b", 64)), mcpTokenName); err == nil || strings.Contains(err.Error(), first) {
		t.Fatalf("an unreadable token was replaced: %v", err)
	}
	if got, _ := open(strings.Repeat("a", 64)).Get(ctx, mcpTokenName); got != first {
		t.Fatal("the stored token changed")
	}
}
