//go:build desktopsmoke

package app_test

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

// alreadyOpen is app.AlreadyOpenMarker, which needs the desktop tag.
const alreadyOpen = "clawboo: Clawboo is already open"

// ownWindow is the visible main window of pid ("" when it has none).
func ownWindow(pid int) string {
	out, err := run(5*time.Second, "xdotool", "search", "--onlyvisible", "--pid", fmt.Sprint(pid), "--name", "^Clawboo$")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// launchAgain runs a second desktop launch on home and returns its exit
// code, output and duration; it must end on its own within 15 s.
func launchAgain(t *testing.T, bin, home string) (int, string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = appEnv("CLAWBOO_HOME="+home, "CLAWBOO_ENABLE_MOCK_RUNTIME=1", "NO_AT_BRIDGE=1")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("the second launch did not exit within 15s (it opened another app?):\n%s", out)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), string(out), took
}

// testSingleInstance: one Clawboo per home. A second desktop launch on the
// home shows the window already open (after it was hidden or minimised)
// and exits 0 within seconds; a serve on the desktop's home is refused
// naming it; after a kill -9 the home is free for the next launch.
func testSingleInstance(t *testing.T, bin string) {
	d := startDesktop(t, bin)
	pid := d.cmd.Process.Pid
	var win string
	testkit.EventuallySays(t, 30*time.Second, "the first app's window", func() (bool, string) {
		win = ownWindow(pid)
		return win != "", "none"
	})
	win = strings.Fields(win)[0]
	base := d.baseURL(t)
	p := page{t: t, base: base}
	p.waitTrue(30*time.Second, "the page", `document.body.dataset.ready === "1"`)

	b, err := os.ReadFile(filepath.Join(d.home, "clawboo.instance.json"))
	var info struct {
		PID       int
		Mode, URL string
	}
	if err != nil || json.Unmarshal(b, &info) != nil || info.PID != pid || info.Mode != "desktop" || info.URL != base {
		t.Fatalf("instance file %s (%v), want pid %d desktop at %s", b, err, pid, base)
	}

	// With a window manager (_NET_ACTIVE_WINDOW), a raised window must
	// also get the focus.
	_, err = run(5*time.Second, "xdotool", "getactivewindow")
	wm := err == nil
	t.Logf("window manager: %v", wm)

	// Each way the window can be out of sight: hidden as closing into the
	// tray does (gtk_widget_hide), unmapped behind GTK's back, and
	// minimised when a window manager is there to do it.
	hides := []struct {
		name string
		hide func() error
	}{
		{"hidden", func() error { _, err := p.eval(`(window.runtime.WindowHide(), true)`); return err }},
		{"unmapped", func() error { _, err := run(5*time.Second, "xdotool", "windowunmap", win); return err }},
		{"minimised", func() error { _, err := run(5*time.Second, "xdotool", "windowminimize", win); return err }},
	}
	for _, h := range hides {
		if err := h.hide(); err != nil {
			t.Fatalf("%s: %v", h.name, err)
		}
		deadline := time.Now().Add(3 * time.Second)
		for ownWindow(pid) != "" && time.Now().Before(deadline) {
			time.Sleep(25 * time.Millisecond)
		}
		if ownWindow(pid) != "" {
			if h.name == "minimised" {
				t.Logf("%s: no window manager minimises here; skipped", h.name)
				continue
			}
			t.Fatalf("%s: the window is still visible", h.name)
		}
		code, out, took := launchAgain(t, bin, d.home)
		if code != 0 || !strings.Contains(out, alreadyOpen) || strings.Contains(out, readyMarker) {
			t.Fatalf("%s: second launch exit %d, want 0 with %q and no window of its own:\n%s", h.name, code, alreadyOpen, out)
		}
		if took > 5*time.Second {
			t.Fatalf("%s: the second launch took %v", h.name, took)
		}
		testkit.EventuallySays(t, 5*time.Second, "the first window to show again ("+h.name+")", func() (bool, string) {
			return ownWindow(pid) != "", "not visible"
		})
		if d.exited() {
			t.Fatalf("%s: the first app exited", h.name)
		}
		if wm { // shown and given the focus (gtk_window_present)
			testkit.EventuallySays(t, 5*time.Second, "the first window to be active ("+h.name+")", func() (bool, string) {
				active, err := run(5*time.Second, "xdotool", "getactivewindow")
				return strings.TrimSpace(active) == win, fmt.Sprint(strings.TrimSpace(active), err)
			})
		}
		t.Logf("%s: second launch exited 0 in %v: %s", h.name, took.Round(time.Millisecond), strings.TrimSpace(out))
	}
	// Still one window, still the same app, still answering.
	if all, _ := run(5*time.Second, "xdotool", "search", "--onlyvisible", "--name", "^Clawboo$"); len(strings.Fields(all)) != 1 {
		t.Fatalf("visible Clawboo windows: %q, want one", all)
	}
	var health struct{ OK bool }
	if err := getJSON(base+"/api/health", &health); err != nil || !health.OK {
		t.Fatalf("the first app after the launches: %v", err)
	}

	// A serve on the desktop's home is refused, naming the desktop.
	out, err := exec.Command(bin, "serve", "--home", d.home).CombinedOutput()
	want := fmt.Sprintf("clawboo: the home %s is in use by the Clawboo desktop app (pid %d, %s) — stop it or use --home\n", d.home, pid, base)
	if code := exitCode(err); code != 1 || string(out) != want {
		t.Fatalf("serve on the desktop's home: exit %d %q, want 1 and %q", code, out, want)
	}

	// kill -9: the lock goes with the process; the next launch opens.
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	<-d.done
	again := startDesktop(t, bin, "CLAWBOO_HOME="+d.home)
	again.home = d.home
	testkit.EventuallySays(t, 30*time.Second, "a window after the kill -9", func() (bool, string) {
		return ownWindow(again.cmd.Process.Pid) != "", strings.TrimSpace(again.output())
	})
	if again.exited() {
		t.Fatalf("the launch after the kill -9 exited:\n%s", again.output())
	}
	// It took the crashed one's socket place too.
	code, outAgain, _ := launchAgain(t, bin, d.home)
	if code != 0 || !strings.Contains(outAgain, fmt.Sprintf("(pid %d)", again.cmd.Process.Pid)) {
		t.Fatalf("a launch beside the restarted app: exit %d\n%s", code, outAgain)
	}
	_ = again.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-again.done:
	case <-time.After(15 * time.Second):
		t.Fatal("the restarted app did not quit on SIGTERM")
	}
	if code := again.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d after SIGTERM", code)
	}
	if _, err := os.Stat(filepath.Join(d.home, "clawboo.instance.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the instance file outlived a clean quit: %v", err)
	}

	// A desktop launch on a home `clawboo serve` holds fails, naming it.
	srv := exec.Command(bin, "serve", "--home", d.home, "--addr", "127.0.0.1:0")
	srv.Env = appEnv()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	testkit.EventuallySays(t, 20*time.Second, "the serve's instance file", func() (bool, string) {
		b, err := os.ReadFile(filepath.Join(d.home, "clawboo.instance.json"))
		info.PID, info.URL = 0, ""
		return err == nil && json.Unmarshal(b, &info) == nil && info.PID == srv.Process.Pid && info.URL != "", string(b)
	})
	code, out2, took := launchAgain(t, bin, d.home)
	want = fmt.Sprintf("clawboo: the home %s is in use by clawboo serve (pid %d, %s) — stop it, or set CLAWBOO_HOME to use another folder\n", d.home, srv.Process.Pid, info.URL)
	if code == 0 || out2 != want || took > 5*time.Second {
		t.Fatalf("desktop launch on a served home: exit %d after %v, %q; want non-zero and %q", code, took, out2, want)
	}
}

func exitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
