//go:build unix

package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/clawboo/desktop/backend"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/instance"
	"github.com/clawboo/desktop/backend/proc"
)

// `clawboo host`: this program as the server of another machine a
// desktop sends runs to (docs/remote-hosts.md). It serves the same API on
// a Unix socket in its home (default ~/.clawboo-host, mode 0700), which
// the desktop reaches through a socket its own ssh forwards: no port is
// open, and only this user can connect. `--start` starts it detached when
// it is not running (so its runs outlive the ssh connection that asked).

const hostUsage = `Usage:
  clawboo host --start [--home DIR] [--enable-mock]
  clawboo host --serve [--home DIR] [--enable-mock]
  clawboo host --find PROGRAM...

--start starts the host server detached unless one of this version already
answers, and prints its socket. A server of another version (the desktop
upgraded this program) is stopped first, unless it still has runs going:
then --start says so and exits 3. --serve runs it in the foreground. The
home defaults to ~/.clawboo-host; the socket is <home>/host.sock. --find
prints "rt:PROGRAM" for each program the server would find (its PATH and
the per-user install folders), the runtimes the desktop lists for it.
`

func hostCommand(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("host", flag.ContinueOnError)
	fl.SetOutput(stderr)
	start := fl.Bool("start", false, "start the server detached unless it runs")
	serveIt := fl.Bool("serve", false, "serve in the foreground")
	home := fl.String("home", "", "state folder (default ~/.clawboo-host)")
	mock := fl.Bool("enable-mock", false, "offer the mock runtime (the desktop offers it)")
	find := fl.Bool("find", false, "print the programs of the arguments this server would find")
	if err := fl.Parse(args); err != nil {
		fmt.Fprint(stderr, hostUsage)
		return 2
	}
	if *find && !*start && !*serveIt {
		r := proc.NewResolver(proc.ResolverOptions{NoWatch: true})
		for _, name := range fl.Args() {
			if _, ok := r.Find(name); ok {
				fmt.Fprintln(stdout, "rt:"+name)
			}
		}
		return 0
	}
	if fl.NArg() > 0 || *start == *serveIt || *find {
		fmt.Fprint(stderr, hostUsage)
		return 2
	}
	if *home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			fmt.Fprintln(stderr, "clawboo host:", err)
			return 1
		}
		*home = filepath.Join(h, ".clawboo-host")
	}
	if err := os.MkdirAll(*home, 0o700); err != nil {
		fmt.Fprintln(stderr, "clawboo host:", err)
		return 1
	}
	sock := filepath.Join(*home, "host.sock")
	if *start {
		return hostStart(*home, sock, *mock, stdout, stderr)
	}
	return hostServe(*home, sock, *mock, stderr)
}

// socketClient talks to the host server on sock.
func socketClient(sock string) *http.Client {
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		},
	}}
}

// answering is the version of the host server answering on sock ("" when
// none answers).
func answering(sock string) string {
	res, err := socketClient(sock).Get("http://localhost/api/health")
	if err != nil {
		return ""
	}
	defer res.Body.Close()
	var h struct {
		OK      bool   `json:"ok"`
		Version string `json:"version"`
	}
	if res.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(res.Body, 4096)).Decode(&h) != nil || !h.OK {
		return ""
	}
	return cmp.Or(h.Version, "?")
}

// liveRuns counts the runs going on the server on sock.
func liveRuns(home, sock string) (int, error) {
	tok, err := config.ReadAPIToken(home)
	if err != nil {
		return 0, err
	}
	req, _ := http.NewRequest("GET", "http://localhost/api/runs?limit=200", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := socketClient(sock).Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	var page struct {
		Runs []struct{ Status string } `json:"runs"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 8<<20)).Decode(&page); err != nil {
		return 0, fmt.Errorf("the running server's runs: %w", err)
	}
	n := 0
	for _, r := range page.Runs {
		if r.Status == "starting" || r.Status == "running" {
			n++
		}
	}
	return n, nil
}

// replaceOlder stops a server of another version that has no runs going;
// false (said on stderr) when it cannot or may not.
func replaceOlder(home, sock, running string, stderr io.Writer) bool {
	live, err := liveRuns(home, sock)
	if err != nil {
		fmt.Fprintln(stderr, "clawboo host: cannot tell whether the running server has runs going:", err)
		return false
	}
	if live > 0 {
		fmt.Fprintf(stderr, "clawboo host: Clawboo %s is still running %d run(s) here; it is replaced by %s once they end\n", running, live, version)
		return false
	}
	lock, err := instance.Acquire(home, instance.Serve)
	if err == nil {
		lock.Release() // it stopped meanwhile: nothing to replace
		return true
	}
	var inUse *instance.InUseError
	if !errors.As(err, &inUse) || !inUse.Known || inUse.Holder.PID <= 0 {
		fmt.Fprintln(stderr, "clawboo host: cannot find the running server's process:", err)
		return false
	}
	if err := syscall.Kill(inUse.Holder.PID, syscall.SIGTERM); err != nil {
		fmt.Fprintln(stderr, "clawboo host: cannot stop the running server:", err)
		return false
	}
	deadline := time.Now().Add(20 * time.Second)
	for answering(sock) != "" {
		if time.Now().After(deadline) {
			fmt.Fprintln(stderr, "clawboo host: the running server did not stop within 20 s")
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

func hostStart(home, sock string, mock bool, stdout, stderr io.Writer) int {
	running := answering(sock)
	if running != "" && running != version && !replaceOlder(home, sock, running, stderr) {
		return 3
	}
	if running == "" || running != version {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(stderr, "clawboo host:", err)
			return 1
		}
		logf, err := os.OpenFile(filepath.Join(home, "host.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintln(stderr, "clawboo host:", err)
			return 1
		}
		args := []string{"host", "--serve", "--home", home}
		if mock {
			args = append(args, "--enable-mock")
		}
		cmd := exec.Command(exe, args...)
		cmd.Stdout, cmd.Stderr = logf, logf
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // outlives the ssh session that started it
		err = cmd.Start()
		logf.Close()
		if err != nil {
			fmt.Fprintln(stderr, "clawboo host:", err)
			return 1
		}
		_ = cmd.Process.Release()
		deadline := time.Now().Add(15 * time.Second)
		for answering(sock) == "" {
			if time.Now().After(deadline) {
				fmt.Fprintf(stderr, "clawboo host: the server did not answer on %s within 15 s (see %s)\n", sock, filepath.Join(home, "host.log"))
				return 1
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	fmt.Fprintln(stdout, sock)
	return 0
}

func hostServe(home, sock string, mock bool, stderr io.Writer) int {
	log := logger(stderr)
	getenv := func(k string) string {
		switch k {
		case "CLAWBOO_HOME":
			return home
		case config.EnvEnableMock, config.EnvMockWorktrees:
			if mock { // the desktop offers the mock: it runs here too, in worktrees
				return "1"
			}
		}
		return os.Getenv(k)
	}
	cfg, err := config.Load(home, getenv)
	if err != nil {
		fmt.Fprintln(stderr, "clawboo host:", err)
		return 1
	}
	lock, err := instance.Acquire(cfg.Home, instance.Serve)
	if err != nil {
		fmt.Fprintln(stderr, "clawboo host:", err)
		return 1
	}
	defer lock.Release()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	b, err := backend.New(ctx, backend.Options{Config: cfg, Log: log, Version: version, Getenv: getenv, Bridge: selfBridge(), HostServer: true})
	if err != nil {
		fmt.Fprintln(stderr, "clawboo host:", err)
		return 1
	}
	_ = os.Remove(sock) // a socket a dead server left
	ln, err := net.Listen("unix", sock)
	if err == nil {
		err = os.Chmod(sock, 0o600)
	}
	if err != nil {
		_ = b.Close(context.Background())
		fmt.Fprintln(stderr, "clawboo host:", err)
		return 1
	}
	log.Info("the host server is serving", "socket", sock, "version", version)
	if err := b.Serve(ctx, ln, 10*time.Second); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "clawboo host:", err)
		return 1
	}
	return 0
}
