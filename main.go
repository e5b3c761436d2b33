// Command clawboo is Clawboo Desktop: `clawboo` opens the desktop window and
// `clawboo serve` runs the same backend and UI headless for a browser.
//
// Only main.go and app/ know about Wails; everything else lives in backend/.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/clawboo/desktop/app"
	"github.com/clawboo/desktop/backend"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/instance"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

//go:embed all:frontend/dist
var dist embed.FS

// appIcon is the window icon; build/ also holds it for packaging.
//
//go:embed build/appicon.png
var appIcon []byte

const usage = `Clawboo Desktop runs many AI coding agents as one team.

Usage:
  clawboo                 open the desktop app
  clawboo serve [flags]   run headless; open the printed login link in a browser
  clawboo open [--home DIR]
                          open the default browser on a fresh login link to the
                          running Clawboo
  clawboo token [--rotate] [--home DIR]
                          print the API token programs send as
                          "Authorization: Bearer <token>" (--rotate replaces it)
  clawboo version         print the version
  clawboo mcp config [--client claude|codex|hermes|openclaw|json] [--home DIR] [--rotate]
                          print a config attaching an MCP client (holds the token;
                          --rotate replaces the token first)
  clawboo mcp bridge URL  an MCP server over stdio, forwarded to Clawboo's at URL
                          (token from CLAWBOO_MCP_TOKEN; ACP agents start it)
  clawboo host --start|--serve [--home DIR] [--enable-mock]
                          this program as another machine's server for a desktop's
                          runs, on a Unix socket in its home (~/.clawboo-host)

Serve flags:
  --addr HOST:PORT   listen address (default: 127.0.0.1, first free port of 18790-18809)
  --home DIR         state folder (default: $CLAWBOO_HOME, else ~/.clawboo)

Environment:
  CLAWBOO_HOME                  state folder
  CLAWBOO_ENABLE_MOCK_RUNTIME   set to exactly 1 to offer the clawboo-mock runtime
  CLAWBOO_MOCK_WORKTREES        set to exactly 1 to give that mock worktrees (!write); off by default
  CLAWBOO_RUN_IDLE_TIMEOUT      abort runs silent this long (Go duration or ms; default 30m)
  CLAWBOO_TEAM_PUMP_EVERY       the team dispatch pump's period (Go duration or ms; default 1m)
`

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return desktop(stderr)
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "mcp":
		return mcpCommand(args[1:], stdout, stderr)
	case "host":
		return hostCommand(args[1:], stdout, stderr)
	case "token":
		return tokenCommand(args[1:], stdout, stderr)
	case "open":
		return openCommand(args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "clawboo", version)
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "clawboo: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}

// ui is the embedded frontend build, or nil when it was not built.
func ui() fs.FS {
	sub, err := fs.Sub(dist, "frontend/dist")
	if err != nil {
		return nil
	}
	if _, err := fs.Stat(sub, "index.html"); err != nil {
		return nil
	}
	return sub
}

func logger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func serve(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("serve", flag.ContinueOnError)
	fl.SetOutput(stderr)
	addr := fl.String("addr", "", "listen address")
	home := fl.String("home", "", "state folder")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "clawboo serve: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	log := logger(stderr)
	cfg, err := config.Load(*home, os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "clawboo:", err)
		return 1
	}
	// One Clawboo per home (backend/instance): held before the database
	// opens, freed after it is closed.
	lock, err := instance.Acquire(cfg.Home, instance.Serve)
	if err != nil {
		var inUse *instance.InUseError
		if errors.As(err, &inUse) {
			err = fmt.Errorf("%w — stop it or use --home", err)
		}
		fmt.Fprintln(stderr, "clawboo:", err)
		return 1
	}
	defer lock.Release()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	b, err := backend.New(ctx, backend.Options{Config: cfg, UI: ui(), Log: log, Version: version, Bridge: selfBridge(), HostBuilds: hostBuilds()})
	if err != nil {
		fmt.Fprintln(stderr, "clawboo:", err)
		return 1
	}
	ln, err := b.Listen(*addr)
	if err != nil {
		_ = b.Close(context.Background())
		fmt.Fprintln(stderr, "clawboo:", err)
		return 1
	}
	if err := lock.SetURL("http://" + ln.Addr().String()); err != nil {
		log.Warn("cannot record this instance", "err", err)
	}
	fmt.Fprintf(stdout, "Clawboo is serving http://%s/ (home %s)\n", ln.Addr(), cfg.Home)
	// The API needs this home's token; a browser gets in once through this
	// link (a one-time code, not the token). `clawboo open` makes another.
	if link, err := b.LoginURL(); err != nil {
		log.Warn("no login link", "err", err)
	} else {
		fmt.Fprintf(stdout, "Open this link to log in (it works once, for ten minutes; `clawboo open` makes another):\n%s\n", link)
	}
	if err := b.Serve(ctx, ln, 10*time.Second); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "clawboo:", err)
		return 1
	}
	return 0
}

const mcpUsage = `Usage:
  clawboo mcp config [--client claude|codex|hermes|openclaw|json] [--home DIR] [--rotate]
  clawboo mcp bridge URL

config prints a ready-to-paste configuration that attaches an MCP client to
this Clawboo's servers (clawboo-tasks, -memory, -tools, -teamchat). The
output holds the attach token: keep it private. Runtimes never get this
token: each run has its own, valid while it runs.

  --rotate   replace the attach token first (through the running server,
             else in the vault); every client with the old one stops working

bridge speaks MCP over stdin/stdout and forwards it to the Clawboo MCP
server at URL, with the token from CLAWBOO_MCP_TOKEN. Clawboo starts it
itself for an ACP agent that takes MCP servers only as child processes.
`

// mcpCommand parses `clawboo mcp …` and returns the exit status: 2 for a
// usage error, 1 when the configuration could not be made.
func mcpCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "bridge" {
		return mcpBridge(args[1:], os.Getenv, os.Stdin, stdout, stderr)
	}
	if len(args) == 0 || args[0] != "config" {
		if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
			fmt.Fprint(stdout, mcpUsage)
			return 0
		}
		fmt.Fprint(stderr, "clawboo mcp: expected the subcommand config or bridge\n\n"+mcpUsage)
		return 2
	}
	fl := flag.NewFlagSet("mcp config", flag.ContinueOnError)
	fl.SetOutput(stderr)
	client := fl.String("client", defaultMCPClient, strings.Join(mcpClients(), ", "))
	home := fl.String("home", "", "state folder")
	rotate := fl.Bool("rotate", false, "replace the attach token first")
	if err := fl.Parse(args[1:]); err != nil {
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "clawboo mcp config: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	if !slices.Contains(mcpClients(), *client) {
		fmt.Fprintf(stderr, "clawboo mcp config: --client %q is not one of %s\n", *client, strings.Join(mcpClients(), ", "))
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcpConfigRequest{Client: *client, Home: *home, Rotate: *rotate, Getenv: os.Getenv}
	if err := printMCPConfig(ctx, req, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "clawboo:", err)
		return 1
	}
	return 0
}

func desktop(stderr io.Writer) int {
	err := app.Run(app.Options{UI: ui(), Log: logger(stderr), Version: version, Icon: appIcon, Bridge: selfBridge(), HostBuilds: hostBuilds()})
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "clawboo:", err)
	return 2
}

// hostBuilds is the folder of the headless builds other machines get:
// $CLAWBOO_HOST_BUILDS, else lib/clawboo/host beside the program's bin
// folder (/usr/lib/clawboo/host for the package).
func hostBuilds() string {
	if d := os.Getenv("CLAWBOO_HOST_BUILDS"); d != "" {
		return d
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return filepath.Join(filepath.Dir(exe), "..", "lib", "clawboo", "host")
}
