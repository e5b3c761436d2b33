package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/internal/testkit"
)

// serveOn starts `clawboo serve` on an existing home and waits for its
// serving line.
func serveOn(t *testing.T, home string, env ...string) *server {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--home", home, "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), env...)
	stdout, _ := cmd.StdoutPipe()
	errs := &testkit.SyncBuffer{}
	cmd.Stderr = errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, home: home, errs: errs, done: make(chan error, 1)}
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-s.done })
	lines := make(chan string, 1)
	s.pipeLines(stdout, lines)
	select {
	case l := <-lines:
		m := servingLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("unexpected first line %q; stderr: %s", l, errs.String())
		}
		s.url = m[1]
	case <-time.After(20 * time.Second):
		t.Fatalf("serve did not start; stderr: %s", errs.String())
	}
	return s
}

// secondServe runs a serve that is expected to be refused, and returns its
// exit code and output.
func secondServe(t *testing.T, home string, args ...string) (int, string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(ctx, bin, append([]string{"serve", "--home", home}, args...)...).CombinedOutput()
	took := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("second serve: %v\n%s", err, out)
	}
	if ctx.Err() != nil {
		t.Fatalf("the second serve was not refused: it ran for 20s\n%s", out)
	}
	return exit.ExitCode(), string(out), took
}

func readInstance(t *testing.T, home string) (info struct {
	PID  int
	Mode string
	URL  string
},
) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "clawboo.instance.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return info
}

func TestInstanceSecondServeOnAHomeIsRefused(t *testing.T) {
	first := startServe(t, []string{"CLAWBOO_ENABLE_MOCK_RUNTIME=1"}, "--addr", "127.0.0.1:0")
	port, _ := os.ReadFile(filepath.Join(first.home, "api-port.txt"))
	if info := readInstance(t, first.home); info.PID != first.cmd.Process.Pid || info.Mode != "serve" || info.URL != first.url {
		t.Fatalf("instance file %+v, want pid %d at %s", info, first.cmd.Process.Pid, first.url)
	}
	want := fmt.Sprintf("clawboo: the home %s is in use by clawboo serve (pid %d, %s) — stop it or use --home\n",
		first.home, first.cmd.Process.Pid, first.url)

	// With and without --addr: refused before it binds a port or opens
	// the database.
	for _, args := range [][]string{{"--addr", "127.0.0.1:0"}, nil} {
		code, out, took := secondServe(t, first.home, args...)
		if code != 1 || out != want {
			t.Fatalf("second serve %v: exit %d, output %q; want exit 1 and %q", args, code, out, want)
		}
		t.Logf("refused in %v: %s", took.Round(time.Millisecond), strings.TrimSpace(out))
	}

	// The first is unharmed: it answers, its port file and instance file
	// are its own, and it still runs.
	if code, b := first.get(t, "/api/health"); code != 200 || !strings.Contains(string(b), `"ok":true`) {
		t.Fatalf("the first serve after the refusals: %d %s", code, b)
	}
	if code, b := first.post(t, "/api/runtimes/clawboo-mock/run", `{"message":"!ok still here"}`); code != 200 || !strings.Contains(string(b), "still here") {
		t.Fatalf("the first serve's run: %d %s", code, b)
	}
	if now, _ := os.ReadFile(filepath.Join(first.home, "api-port.txt")); string(now) != string(port) {
		t.Fatalf("the port file changed from %q to %q", port, now)
	}
	if info := readInstance(t, first.home); info.PID != first.cmd.Process.Pid {
		t.Fatalf("the instance file now names %+v", info)
	}

	// Stopped cleanly, it frees the home.
	if err := first.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := first.wait(t); code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, first.errs.String())
	}
	if _, err := os.Stat(filepath.Join(first.home, "clawboo.instance.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the instance file outlived a clean stop: %v", err)
	}
	next := serveOn(t, first.home)
	if code, _ := next.get(t, "/api/health"); code != 200 {
		t.Fatal(code)
	}
}

func TestInstanceKill9ThenServeAgain(t *testing.T) {
	first := startServe(t, nil, "--addr", "127.0.0.1:0")
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.wait(t)
	// The crash left its instance file; it names a dead process and the
	// lock died with it.
	if info := readInstance(t, first.home); info.PID != first.cmd.Process.Pid {
		t.Fatalf("instance file %+v", info)
	}
	start := time.Now()
	again := serveOn(t, first.home)
	t.Logf("serving again %v after the kill -9", time.Since(start).Round(time.Millisecond))
	if code, b := again.get(t, "/api/health"); code != 200 || !strings.Contains(string(b), `"ok":true`) {
		t.Fatal(code, string(b))
	}
	if info := readInstance(t, first.home); info.PID != again.cmd.Process.Pid || info.URL != again.url {
		t.Fatalf("instance file %+v, want the new serve %d at %s", info, again.cmd.Process.Pid, again.url)
	}
	// And it holds the home in turn.
	if code, out, _ := secondServe(t, first.home, "--addr", "127.0.0.1:0"); code != 1 || !strings.Contains(out, fmt.Sprintf("pid %d", again.cmd.Process.Pid)) {
		t.Fatalf("exit %d %q", code, out)
	}
}
