//go:build desktopsmoke

package app_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/internal/testkit"
)

// desktop is the real desktop binary running as a child process, its
// stdout and stderr going to a file (not a pipe: WebKit's helper processes
// inherit the descriptors, and a pipe would keep Wait blocked if one of them
// outlived the app, hiding exactly the leak we check for).
type desktop struct {
	cmd   *exec.Cmd
	home  string
	log   string
	start time.Time
	done  chan struct{} // closed when the process has exited
	// helpers are the WebKit processes seen below the app, killed by the
	// cleanup if they outlive it.
	helpers []proc
}

// startDesktop starts bin with a fresh home and the mock runtime enabled. Its
// cleanup kills the process group and any recorded helper that survived, so
// a failing test leaves nothing running.
func startDesktop(t *testing.T, bin string, extraEnv ...string) *desktop {
	t.Helper()
	dir := t.TempDir()
	d := &desktop{home: filepath.Join(dir, "home"), log: filepath.Join(dir, "desktop.log"), done: make(chan struct{})}
	logf, err := os.Create(d.log)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	d.cmd = exec.Command(bin)
	d.cmd.Env = appEnv(append([]string{"CLAWBOO_HOME=" + d.home, "CLAWBOO_ENABLE_MOCK_RUNTIME=1", "NO_AT_BRIDGE=1"}, extraEnv...)...)
	d.cmd.Stdout, d.cmd.Stderr = logf, logf
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	d.start = time.Now()
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = d.cmd.Wait(); close(d.done) }()
	t.Cleanup(func() {
		if !d.exited() {
			_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
			<-d.done
		}
		for _, p := range d.helpers {
			if p.alive() {
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
			}
		}
		if t.Failed() {
			t.Logf("desktop output:\n%s", d.output())
		}
	})
	return d
}

func (d *desktop) exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

func (d *desktop) output() string {
	b, _ := os.ReadFile(d.log)
	return string(b)
}

// baseURL waits for the port file the loopback server writes.
func (d *desktop) baseURL(t *testing.T) string {
	t.Helper()
	var port string
	testkit.EventuallySays(t, 30*time.Second, "api-port.txt", func() (bool, string) {
		b, err := os.ReadFile(filepath.Join(d.home, "api-port.txt"))
		port = strings.TrimSpace(string(b))
		return err == nil && port != "", fmt.Sprint(err)
	})
	apiHomes.Store("127.0.0.1:"+port, d.home)
	return "http://127.0.0.1:" + port
}

// appEnv is this process's environment without any display-independent
// Clawboo settings a developer may have exported, plus extra.
func appEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CLAWBOO_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// proc identifies a process across pid reuse by its start time.
type proc struct {
	pid   int
	start string
	comm  string
}

// descendants lists every live process below pid (WebKitWebProcess,
// WebKitNetworkProcess, ...), read from /proc.
func descendants(pid int) []proc {
	children := map[int][]proc{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ppid, ok := readStat(n); ok {
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []proc
	queue := []int{pid}
	for len(queue) > 0 {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
		queue = queue[1:]
	}
	return out
}

// alive reports whether p still runs (a zombie has exited and counts as
// gone: only its parent, now init, has yet to collect it).
func (p proc) alive() bool {
	q, _, ok := readStat(p.pid)
	if !ok || q.start != p.start {
		return false
	}
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.pid))
	f := statFields(b)
	return len(f) > 0 && f[0] != "Z"
}

// readStat parses /proc/PID/stat: comm is in parentheses and may hold
// spaces, so the fields after the last ')' are split separately.
func readStat(pid int) (proc, int, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return proc{}, 0, false
	}
	lp, rp := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	f := statFields(b)
	if lp < 0 || rp < lp || len(f) < 20 {
		return proc{}, 0, false
	}
	ppid, _ := strconv.Atoi(f[1])
	// f[0] is the state (field 3 of stat); starttime is field 22.
	return proc{pid: pid, start: f[19], comm: string(b[lp+1 : rp])}, ppid, true
}

func statFields(b []byte) []string {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// run runs a short command with a timeout and returns its combined output.
func run(timeout time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	return string(out), err
}
