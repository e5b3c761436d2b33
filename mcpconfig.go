package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/clawboo/desktop/backend"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/vault"
)

// `clawboo mcp config`: a person's own MCP client's attach configuration
// for the Clawboo serving a home, printed from the same vault the server
// reads (flag parsing in mcpCommand, main.go).

// mcpConfigOptions configure mcpConfig.
type mcpConfigOptions struct {
	Home   string              // --home; empty: $CLAWBOO_HOME, else ~/.clawboo
	Getenv func(string) string // nil = os.Getenv
	// Keyring replaces the OS keychain (tests); nil = the real one.
	Keyring vault.Keyring
}

// mcpConfig is what `clawboo mcp config` prints from.
type mcpConfig struct {
	Attach mcp.Attach // with the real token
	Token  string
	// PortGuessed is true when <home>/api-port.txt was absent and the
	// default port was assumed.
	PortGuessed bool
	PortFile    string
}

// loadMCPConfig builds the unbound attach configuration of the Clawboo at
// a home folder, as a person's own MCP client needs it: the token from the
// same vault the server uses (generated and stored if this runs first),
// the port the server last recorded in api-port.txt.
func loadMCPConfig(ctx context.Context, o mcpConfigOptions) (mcpConfig, error) {
	cfg, err := config.Load(o.Home, o.Getenv)
	if err != nil {
		return mcpConfig{}, err
	}
	if err := cfg.EnsureHome(); err != nil {
		return mcpConfig{}, err
	}
	port, guessed, err := readPort(cfg.PortFile())
	if err != nil {
		return mcpConfig{}, err
	}
	v, err := vault.Open(vault.Options{Home: cfg.Home, Getenv: o.Getenv, ForceFile: cfg.FileVault, Keyring: o.Keyring})
	if err != nil {
		return mcpConfig{}, err
	}
	defer v.Close()
	token, err := v.Minted(ctx, mcp.TokenSlot, mcp.NewToken)
	if err != nil {
		return mcpConfig{}, err
	}
	a, err := mcp.BuildAttach(mcp.AttachOptions{BaseURL: "http://127.0.0.1:" + strconv.Itoa(port), Token: token})
	if err != nil {
		return mcpConfig{}, err
	}
	return mcpConfig{Attach: a, Token: token, PortGuessed: guessed, PortFile: cfg.PortFile()}, nil
}

// readPort reads the port the server recorded; an absent file means the
// default port (guessed), a malformed one is an error.
func readPort(path string) (port int, guessed bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return backend.FirstPort, true, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read %s: %w", path, err)
	}
	p, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || p <= 0 || p > 65535 {
		return 0, false, fmt.Errorf("%s holds %q, not a port", path, strings.TrimSpace(string(b)))
	}
	return p, false, nil
}

// MCPClients are the clients `clawboo mcp config --client` can print an
// attach configuration for; defaultMCPClient is the generic JSON one.
func mcpClients() []string { return slices.Clone(mcp.Clients) }

// defaultMCPClient is what `clawboo mcp config` prints without --client.
const defaultMCPClient = mcp.ClientJSON

// mcpConfigRequest is `clawboo mcp config` as main parsed it.
type mcpConfigRequest struct {
	Client string              // one of MCPClients
	Home   string              // --home; empty: $CLAWBOO_HOME, else ~/.clawboo
	Rotate bool                // replace the attach token first
	Getenv func(string) string // nil = os.Getenv
}

// printMCPConfig does `clawboo mcp config`: the configuration goes to
// stdout (so it can be redirected into a file), notes to stderr. The
// returned error is for the caller to print; nothing was written to
// stdout then.
func printMCPConfig(ctx context.Context, r mcpConfigRequest, stdout, stderr io.Writer) error {
	if !slices.Contains(mcpClients(), r.Client) {
		return fmt.Errorf("--client %q is not one of %s", r.Client, strings.Join(mcpClients(), ", "))
	}
	o := mcpConfigOptions{Home: r.Home, Getenv: r.Getenv}
	if r.Rotate {
		note, err := rotateMCPToken(ctx, o)
		if err != nil {
			return fmt.Errorf("rotate the attach token: %w", err)
		}
		fmt.Fprintln(stderr, "# "+note)
	}
	c, err := loadMCPConfig(ctx, o)
	if err != nil {
		return err
	}
	if c.PortGuessed {
		fmt.Fprintf(stderr, "clawboo: %s does not exist (Clawboo has not served from this home yet); assuming the default port %d\n", c.PortFile, backend.FirstPort)
	}
	cc := c.Attach.Clients[r.Client]
	fmt.Fprintf(stderr, "# %s: %s\n# This output holds the attach token; keep it private.\n", r.Client, cc.Where)
	fmt.Fprint(stdout, cc.Text)
	if r.Client == mcp.ClientCodex {
		fmt.Fprintf(stdout, "\n# In the environment Codex starts from:\nexport %s='%s'\n", mcp.TokenEnv, c.Token)
	}
	return nil
}

// rotateMCPToken replaces the install's attach token. A running server
// (found through api-port.txt) does it itself, so it stores the new token
// and serves it at once (POST /api/mcp/token/rotate); with no server
// listening the vault's token is replaced and served at the next start.
// The note says which happened; the token is read from the vault after.
func rotateMCPToken(ctx context.Context, o mcpConfigOptions) (note string, err error) {
	cfg, err := config.Load(o.Home, o.Getenv)
	if err != nil {
		return "", err
	}
	port, guessed, err := readPort(cfg.PortFile())
	if err != nil {
		return "", err
	}
	if !guessed {
		served, err := rotateOnServer(ctx, cfg.Home, port)
		if err != nil {
			return "", err
		}
		if served {
			return "the running server replaced the attach token; clients with the old one must be given this configuration", nil
		}
	}
	if err := cfg.EnsureHome(); err != nil {
		return "", err
	}
	v, err := vault.Open(vault.Options{Home: cfg.Home, Getenv: o.Getenv, ForceFile: cfg.FileVault, Keyring: o.Keyring})
	if err != nil {
		return "", err
	}
	defer v.Close()
	tok, err := mcp.NewToken()
	if err != nil {
		return "", err
	}
	if err := v.Set(ctx, mcp.TokenSlot, tok); err != nil {
		return "", fmt.Errorf("store %s: %w", mcp.TokenSlot, err)
	}
	return "no server is listening; the new attach token is served from its next start", nil
}

// rotateOnServer asks the server at port (serving home) to rotate. served is false (and
// err nil) when nothing listens there; any answer but 200 is an error.
func rotateOnServer(ctx context.Context, home string, port int) (served bool, err error) {
	u := "http://127.0.0.1:" + strconv.Itoa(port) + "/api/mcp/token/rotate"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader("{}"))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	// The API answers only holders of this home's token (a home never
	// served from has none: nothing listens for it either).
	if tok, err := config.ReadAPIToken(home); err == nil {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := (&http.Client{Timeout: 15 * time.Second}).Do(req)
	if errors.Is(err, syscall.ECONNREFUSED) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("ask the server on port %d: %w", port, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		_ = json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&e)
		return false, fmt.Errorf("the server on port %d answered %d %s", port, resp.StatusCode, e.Error)
	}
	return true, nil
}
