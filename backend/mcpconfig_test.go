package backend

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/vault"
)

// mcpCmd does what `clawboo mcp config` does once main has parsed its flags
// (main's parsing is tested on the binary, in test/e2e), with env as the
// whole environment: code is 0, or 1 with the error on stderr.
func mcpCmd(env map[string]string, r MCPConfigRequest) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	r.Getenv = func(k string) string { return env[k] }
	if err := PrintMCPConfig(context.Background(), r, &o, &e); err != nil {
		fmt.Fprintln(&e, "clawboo:", err)
		code = 1
	}
	return code, o.String(), e.String()
}

var exportLine = regexp.MustCompile(`(?m)^export CLAWBOO_MCP_TOKEN='([A-Za-z0-9_-]{43})'$`)

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
