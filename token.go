package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/instance"
)

const tokenUsage = `Usage:
  clawboo token [--rotate] [--home DIR]

Prints this home's API token (made on first use): programs send it as
"Authorization: Bearer <token>" to reach Clawboo's HTTP API. Keep it private.

  --rotate   replace it; a running Clawboo refuses the old one at once, and
             every browser logged in with it must log in again
`

const openUsage = `Usage:
  clawboo open [--print] [--home DIR]

Opens the default browser on a fresh one-time login link to the Clawboo
serving this home (clawboo serve or the desktop app). The browser is handed
a private file under the home that leads to the link, so the link is never
on a command line other users can read.

  --print    print the link instead (for a browser that cannot open files
             under the home); it works once, for ten minutes
`

// tokenCommand is `clawboo token [--rotate]`.
func tokenCommand(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("token", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() { fmt.Fprint(stderr, tokenUsage) }
	home := fl.String("home", "", "state folder")
	rotate := fl.Bool("rotate", false, "replace the token")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "clawboo token: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	cfg, err := config.Load(*home, os.Getenv)
	if err == nil {
		err = cfg.EnsureHome()
	}
	var tok string
	if err == nil && *rotate {
		tok, err = config.RotateAPIToken(cfg.Home)
	} else if err == nil {
		tok, err = config.EnsureAPIToken(cfg.Home)
	}
	if err != nil {
		fmt.Fprintln(stderr, "clawboo:", err)
		return 1
	}
	fmt.Fprintln(stdout, tok)
	return 0
}

// openCommand is `clawboo open`: it asks the running Clawboo for a login
// link (with the token from the home) and hands it to the default browser.
func openCommand(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("open", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() { fmt.Fprint(stderr, openUsage) }
	home := fl.String("home", "", "state folder")
	printOnly := fl.Bool("print", false, "print the link instead of opening a browser")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "clawboo open: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	cfg, err := config.Load(*home, os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "clawboo:", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	link, err := loginLink(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "clawboo:", err)
		return 1
	}
	if *printOnly {
		fmt.Fprintln(stdout, link)
		return 0
	}
	page, err := writeLoginRedirect(cfg.Home, link)
	if err == nil {
		err = openBrowser(page)
	}
	if err != nil {
		// The link is one person's way in: shown on their terminal only.
		fmt.Fprintf(stderr, "clawboo: cannot open a browser (%v); open this link yourself (one use, ten minutes):\n", err)
		fmt.Fprintln(stdout, link)
		return 0
	}
	fmt.Fprintln(stdout, "Opened Clawboo in your browser.")
	return 0
}

// loginRedirectName is the file under the home that hands a browser its
// login link (as Jupyter's redirect file does): the link holds a one-time
// code, and a command line (xdg-open's) is readable by every user of the
// machine, a 0600 file in the 0700 home is not.
const loginRedirectName = "open-login.html"

// writeLoginRedirect writes the page leading to link, readable by its
// owner only, and returns its file:// URL.
func writeLoginRedirect(home, link string) (string, error) {
	p := filepath.Join(home, loginRedirectName)
	_ = os.Remove(p) // a stale one, perhaps with looser permissions
	esc := html.EscapeString(link)
	page := `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">` +
		`<meta http-equiv="refresh" content="0;url=` + esc + `"><title>Opening Clawboo</title>` +
		`<p>Opening Clawboo… <a href="` + esc + `">continue</a> if nothing happens.</p>` + "\n"
	if err := os.WriteFile(p, []byte(page), 0o600); err != nil {
		return "", fmt.Errorf("write the login page: %w", err)
	}
	if err := os.Chmod(p, 0o600); err != nil {
		return "", err
	}
	slashed := filepath.ToSlash(p)
	if !strings.HasPrefix(slashed, "/") {
		slashed = "/" + slashed // C:/… on Windows: file:///C:/…
	}
	return (&url.URL{Scheme: "file", Path: slashed}).String(), nil
}

// serverURL is where the Clawboo holding cfg's home serves: the instance
// file's URL, else the port it last recorded.
func serverURL(cfg config.Config) (string, error) {
	if info, err := instance.ReadInfo(cfg.Home); err == nil && info.URL != "" {
		return info.URL, nil
	}
	if b, err := os.ReadFile(cfg.PortFile()); err == nil {
		if p, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && p > 0 && p < 65536 {
			return "http://127.0.0.1:" + strconv.Itoa(p), nil
		}
	}
	return "", fmt.Errorf("no Clawboo has served from %s: start `clawboo serve` (or the desktop app) first", cfg.Home)
}

// loginLink asks the server for a fresh one-time login link.
func loginLink(ctx context.Context, cfg config.Config) (string, error) {
	base, err := serverURL(cfg)
	if err != nil {
		return "", err
	}
	tok, err := config.ReadAPIToken(cfg.Home)
	if err != nil {
		return "", fmt.Errorf("read the API token: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/login-link", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("no Clawboo answers at %s (is `clawboo serve` or the desktop app running on %s?): %w", base, cfg.Home, err)
	}
	defer resp.Body.Close()
	var out struct{ URL, Error string }
	_ = json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&out)
	if resp.StatusCode != http.StatusOK || out.URL == "" {
		return "", fmt.Errorf("the Clawboo at %s answered %d %s", base, resp.StatusCode, out.Error)
	}
	return out.URL, nil
}

// openBrowser hands a URL to the desktop's default browser (a variable:
// tests see what would be opened).
var openBrowser = func(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("%s exited with status %d", cmd.Path, ee.ExitCode())
		}
		return err
	}
	return nil
}
