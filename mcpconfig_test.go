package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/vault"
	"github.com/clawboo/desktop/internal/testkit"
)

// mcpCmd does what `clawboo mcp config` does once main has parsed its flags
// (the parsing is tested on the binary, in test/e2e), with env as the
// whole environment: code is 0, or 1 with the error on stderr.
func mcpCmd(env map[string]string, r mcpConfigRequest) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	r.Getenv = func(k string) string { return env[k] }
	if err := printMCPConfig(context.Background(), r, &o, &e); err != nil {
		fmt.Fprintln(&e, "clawboo:", err)
		code = 1
	}
	return code, o.String(), e.String()
}

var exportLine = regexp.MustCompile(`(?m)^export CLAWBOO_MCP_TOKEN='([A-Za-z0-9_-]{43})'$`)

// TestMCPConfigRotate: `clawboo mcp config --rotate` replaces the install
// token. With no server listening the vault's token is replaced (the next
// start serves it); with one, the server stores and serves the new token
// at once, refuses the old one and derives a new gateway token, and the
// command prints the new token.
func TestMCPConfigRotate(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"CLAWBOO_VAULT": "file", "HOME": t.TempDir()}
	getenv := func(k string) string { return env[k] }
	printed := func(args ...string) (string, string) {
		t.Helper()
		code, out, errs := mcpCmd(env, mcpConfigRequest{Client: "codex", Home: home, Rotate: slices.Contains(args, "--rotate")})
		m := exportLine.FindStringSubmatch(out)
		if code != 0 || m == nil {
			t.Fatalf("mcp config %v: %d\n%s\n%s", args, code, out, errs)
		}
		return m[1], errs
	}
	first, _ := printed()
	second, errs := printed("--rotate")
	if second == first || !strings.Contains(errs, "no server is listening") || strings.Contains(errs, second) {
		t.Fatalf("offline rotation: %q → %q\n%s", first, second, errs)
	}
	v, err := vault.Open(vault.Options{Home: home, Getenv: getenv, ForceFile: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := v.Get(context.Background(), mcp.TokenSlot); got != second {
		t.Fatal("the vault does not hold the rotated token")
	}
	v.Close()

	// A running server serves the vault's token, then rotates it itself.
	cfg, err := config.Load(home, getenv)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b, err := backend.New(ctx, backend.Options{
		Config: cfg, Getenv: getenv, Environ: func() []string { return nil },
		Log: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	ln, err := b.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := b.Server()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	url := b.BaseURL() + "/mcp/tasks"
	if code, _ := testkit.MCPOpen(t, url, second); code != http.StatusOK {
		t.Fatalf("the server does not serve the vault's token: %d", code)
	}
	gw, _ := b.MCP.AttachGateway(b.BaseURL())
	oldGateway := testkit.BearerIn(gw.Clients[mcp.ClientOpenClaw].Text)

	third, errs := printed("--rotate")
	if third == second || !strings.Contains(errs, "the running server replaced the attach token") {
		t.Fatalf("online rotation: %q → %q\n%s", second, third, errs)
	}
	if code, _ := testkit.MCPOpen(t, url, second); code != http.StatusUnauthorized {
		t.Fatalf("the old token after rotation: %d", code)
	}
	if code, _ := testkit.MCPOpen(t, url, oldGateway); code != http.StatusUnauthorized {
		t.Fatalf("the old gateway token after rotation: %d", code)
	}
	if code, _ := testkit.MCPOpen(t, url, third); code != http.StatusOK {
		t.Fatalf("the printed token after rotation: %d", code)
	}
	gw, _ = b.MCP.AttachGateway(b.BaseURL())
	if g := testkit.BearerIn(gw.Clients[mcp.ClientOpenClaw].Text); g == oldGateway || g == third {
		t.Fatal("the gateway token did not rotate with the install token")
	}
	// The printed configuration no longer changes without --rotate.
	if again, _ := printed(); again != third {
		t.Fatal("mcp config prints another token than the one served")
	}
}
