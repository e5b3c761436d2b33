//go:build desktopsmoke

package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/internal/testkit"
)

// The window under a real window manager (openbox, from Debian): closing
// it the way a person does (the WM's close, WM_DELETE_WINDOW), the approval
// popup's stacking, the remembered geometry, and the editing keys.

// ensureWM makes sure a window manager runs on the display: the one there
// is, else openbox started for the test run (stopped by the cleanup).
func ensureWM(t *testing.T) {
	if wmRunning() {
		return
	}
	ob, err := exec.LookPath("openbox")
	if err != nil {
		t.Fatalf("a window manager is needed (apt-get install openbox, done by build/deps.sh test): %v", err)
	}
	for _, tool := range []string{"xprop", "wmctrl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed (apt-get install x11-utils wmctrl): %v", tool, err)
		}
	}
	// A display that xvfb-run has only just handed over can refuse the
	// first client now and then: openbox is given three tries.
	for try := 1; ; try++ {
		logf, err := os.Create(filepath.Join(t.TempDir(), "openbox.log"))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(ob, "--sm-disable")
		cmd.Stdout, cmd.Stderr = logf, logf
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		logf.Close()
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		gone := false
		testkit.EventuallySays(t, 15*time.Second, "openbox to manage the screen", func() (bool, string) {
			select {
			case <-exited:
				gone = true
				return true, ""
			default:
			}
			out, _ := run(5*time.Second, "xprop", "-root", "_NET_SUPPORTING_WM_CHECK")
			return wmRunning(), strings.TrimSpace(out)
		})
		if !gone {
			t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); <-exited })
			return
		}
		b, _ := os.ReadFile(logf.Name())
		if try == 3 {
			t.Fatalf("openbox exited (%v):\n%s", cmd.ProcessState, b)
		}
		t.Logf("openbox exited (%v), trying again: %s", cmd.ProcessState, strings.TrimSpace(string(b)))
		time.Sleep(time.Second)
	}
}

// wmRunning: the root names a WM check window and that window exists (the
// property outlives a window manager that was stopped).
func wmRunning() bool {
	out, err := run(5*time.Second, "xprop", "-root", "_NET_SUPPORTING_WM_CHECK")
	_, id, ok := strings.Cut(out, "window id # ")
	if err != nil || !ok {
		return false
	}
	_, err = run(5*time.Second, "xprop", "-id", strings.TrimSpace(id), "_NET_WM_NAME")
	return err == nil
}

// mainWindow waits for the visible Clawboo window and returns its id.
func mainWindow(t *testing.T) string {
	t.Helper()
	var win string
	testkit.EventuallySays(t, 30*time.Second, "a visible window named Clawboo", func() (bool, string) {
		out, err := run(5*time.Second, "xdotool", "search", "--onlyvisible", "--name", "^Clawboo$")
		if f := strings.Fields(out); err == nil && len(f) > 0 {
			win = f[0]
		}
		return win != "", fmt.Sprint(out, err)
	})
	return win
}

// wmClose asks the window manager to close the window, as its close
// button does (_NET_CLOSE_WINDOW, which openbox turns into WM_DELETE_WINDOW).
func wmClose(t *testing.T, win string) {
	t.Helper()
	if out, err := run(5*time.Second, "wmctrl", "-i", "-c", win); err != nil {
		t.Fatalf("wmctrl -c %s: %v %s", win, err, out)
	}
}

func waitExit(t *testing.T, d *desktop, within time.Duration, what string) {
	t.Helper()
	select {
	case <-d.done:
	case <-time.After(within):
		t.Fatalf("%s: the app did not quit within %v", what, within)
	}
	if code := d.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("%s: exit %d, want 0", what, code)
	}
}

// testWMClose: the window manager's close quits when no tray host could
// bring the window back (even with a run live, which is aborted), hides
// into the tray while runs are live and a tray host is there, and quits
// once nothing runs.
func testWMClose(t *testing.T, bin string) {
	ensureWM(t)

	// No tray host: closing quits, the live run recorded as aborted.
	d := startDesktop(t, bin)
	win := mainWindow(t)
	p := page{t: t, base: d.baseURL(t)}
	p.waitTrue(30*time.Second, "the page", `document.body.dataset.ready === "1"`)
	live := postRun(t, p.base, "!abort")
	testkit.EventuallySays(t, 10*time.Second, "the run to run", func() (bool, string) {
		var r struct{ Status string }
		_ = getJSON(p.base+"/api/runs/"+live, &r)
		return r.Status == "running", r.Status
	})
	wmClose(t, win)
	waitExit(t, d, 15*time.Second, "close without a tray host")
	if got := runStatus(t, d.home, live); got != "aborted" {
		t.Fatalf("the live run is %q, want aborted", got)
	}

	// A tray host: closing with a run live hides the window, the app and the
	// run go on; with nothing running closing quits.
	conn := startTrayHost(t)
	d = startDesktop(t, bin, "CLAWBOO_VAULT=file")
	win = mainWindow(t)
	p = page{t: t, base: d.baseURL(t)}
	p.waitTrue(30*time.Second, "the page", `document.body.dataset.ready === "1"`)
	testkit.EventuallySays(t, 10*time.Second, "the tray to be shown", func() (bool, string) {
		return strings.Contains(d.output(), `msg="tray shown"`), "not yet"
	})
	live = postRun(t, p.base, "!abort")
	var r struct{ Status string }
	testkit.EventuallySays(t, 10*time.Second, "the run to run", func() (bool, string) {
		_ = getJSON(p.base+"/api/runs/"+live, &r)
		return r.Status == "running", r.Status
	})
	wmClose(t, win)
	testkit.EventuallySays(t, 10*time.Second, "the window to hide", func() (bool, string) { return !windowVisible(), "still visible" })
	time.Sleep(300 * time.Millisecond)
	if d.exited() {
		t.Fatal("closing the window with a run live and a tray host quit the app")
	}
	if err := getJSON(p.base+"/api/runs/"+live, &r); err != nil || r.Status != "running" {
		t.Fatalf("the run is %q (%v), want running", r.Status, err)
	}
	dest := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", d.cmd.Process.Pid)
	click(t, conn, dest, trayMenu(t, conn, dest)["Open Clawboo"])
	win = mainWindow(t)
	if code := apiCall(t, "POST", p.base+"/api/runs/"+live+"/abort", nil, nil); code >= 300 {
		t.Fatalf("abort: %d", code)
	}
	testkit.EventuallySays(t, 10*time.Second, "the run to be aborted", func() (bool, string) {
		_ = getJSON(p.base+"/api/runs/"+live, &r)
		return r.Status == "aborted", r.Status
	})
	wmClose(t, win)
	waitExit(t, d, 15*time.Second, "close with nothing running")
}

// stacking is the managed windows, bottom to top (_NET_CLIENT_LIST_STACKING).
func stacking(t *testing.T) []int64 {
	t.Helper()
	out, err := run(5*time.Second, "xprop", "-root", "_NET_CLIENT_LIST_STACKING")
	if err != nil {
		t.Fatalf("xprop: %v %s", err, out)
	}
	_, list, _ := strings.Cut(out, "#")
	var ids []int64
	for _, f := range strings.Split(list, ",") {
		if id, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(f), "0x"), 16, 64); err == nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// checkPopupAbove activates the main window, as a person clicking it
// does, and checks the approval popup stays stacked above it (the popup is
// the main window's transient and kept above).
func checkPopupAbove(t *testing.T, popup string) {
	t.Helper()
	if !wmRunning() {
		t.Fatal("the popup's stacking is checked under a window manager (openbox)")
	}
	main := mainWindow(t)
	if out, err := run(5*time.Second, "xdotool", "windowactivate", "--sync", main); err != nil {
		t.Fatalf("activate the main window: %v %s", err, out)
	}
	if out, err := run(5*time.Second, "xdotool", "windowraise", main); err != nil {
		t.Fatalf("raise the main window: %v %s", err, out)
	}
	mainID, _ := strconv.ParseInt(main, 10, 64)
	popupID, _ := strconv.ParseInt(popup, 10, 64)
	time.Sleep(300 * time.Millisecond) // let the WM restack
	order := stacking(t)
	mi, pi := slices.Index(order, mainID), slices.Index(order, popupID)
	if mi < 0 || pi < 0 || pi < mi {
		t.Fatalf("with the main window (%#x at %d) activated the popup (%#x at %d) must stay above it; stacking %x", mainID, mi, popupID, pi, order)
	}
	out, _ := run(5*time.Second, "xprop", "-id", popup, "WM_TRANSIENT_FOR", "_NET_WM_STATE")
	t.Logf("popup above the main window (stack %d over %d): %s", pi, mi, strings.Join(strings.Fields(out), " "))
}

// geometryOf is a window's contents' place and size, as xdotool reports
// them (root coordinates).
func geometryOf(t *testing.T, win string) (x, y, w, h int) {
	t.Helper()
	out, err := run(5*time.Second, "xdotool", "getwindowgeometry", "--shell", win)
	if err != nil {
		t.Fatalf("getwindowgeometry: %v %s", err, out)
	}
	v := map[string]int{}
	for _, l := range strings.Fields(out) {
		if k, val, ok := strings.Cut(l, "="); ok {
			v[k], _ = strconv.Atoi(val)
		}
	}
	return v["X"], v["Y"], v["WIDTH"], v["HEIGHT"]
}

func near(a, b, tol int) bool { return a-b <= tol && b-a <= tol }

// testGeometry: a window moved and resized comes back there at the next
// launch on the same home; one remembered off-screen and too large comes
// back inside the screen; a maximised one comes back maximised.
func testGeometry(t *testing.T, bin string) {
	ensureWM(t)
	home := filepath.Join(t.TempDir(), "home")
	launch := func() *desktop {
		d := startDesktop(t, bin, "CLAWBOO_HOME="+home)
		d.home = home
		return d
	}

	d := launch()
	win := mainWindow(t)
	p := page{t: t, base: d.baseURL(t)}
	p.waitTrue(30*time.Second, "the page", `document.body.dataset.ready === "1"`)
	if out, err := run(5*time.Second, "xdotool", "windowsize", "--sync", win, "900", "600"); err != nil {
		t.Fatalf("windowsize: %v %s", err, out)
	}
	if out, err := run(5*time.Second, "xdotool", "windowmove", "--sync", win, "150", "100"); err != nil {
		t.Fatalf("windowmove: %v %s", err, out)
	}
	var x, y, w, h int
	testkit.EventuallySays(t, 5*time.Second, "the window at 150,100 sized 900x600", func() (bool, string) {
		x, y, w, h = geometryOf(t, win)
		return w == 900 && h == 600 && near(x, 150, 50) && near(y, 100, 50), fmt.Sprint(x, y, w, h)
	})
	wmClose(t, win)
	waitExit(t, d, 15*time.Second, "close")
	saved, err := os.ReadFile(filepath.Join(home, "window.json"))
	if err != nil {
		t.Fatalf("no window geometry saved: %v", err)
	}
	t.Logf("moved to %d,%d %dx%d; saved %s", x, y, w, h, strings.TrimSpace(string(saved)))

	d = launch()
	win = mainWindow(t)
	var x2, y2, w2, h2 int
	testkit.EventuallySays(t, 10*time.Second, "the window where it was left", func() (bool, string) {
		x2, y2, w2, h2 = geometryOf(t, win)
		return w2 == w && h2 == h && near(x2, x, 2) && near(y2, y, 2), fmt.Sprintf("%d,%d %dx%d, want %d,%d %dx%d", x2, y2, w2, h2, x, y, w, h)
	})
	t.Logf("relaunched at %d,%d %dx%d", x2, y2, w2, h2)
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, d, 15*time.Second, "SIGTERM")

	// Remembered on a screen that is not there, and larger than this one.
	off, _ := json.Marshal(map[string]int{"x": 4000, "y": 3000, "width": 3000, "height": 2000})
	if err := os.WriteFile(filepath.Join(home, "window.json"), off, 0o644); err != nil {
		t.Fatal(err)
	}
	d = launch()
	win = mainWindow(t)
	sw, sh := screenSize(t)
	testkit.EventuallySays(t, 10*time.Second, "the window inside the screen", func() (bool, string) {
		x, y, w, h = geometryOf(t, win)
		return x >= 0 && y >= 0 && x+w <= sw && y+h <= sh && w >= 720, fmt.Sprintf("%d,%d %dx%d on %dx%d", x, y, w, h, sw, sh)
	})
	t.Logf("off-screen geometry came back as %d,%d %dx%d on a %dx%d screen", x, y, w, h, sw, sh)

	// Maximised through the window manager: it comes back maximised.
	if out, err := run(5*time.Second, "wmctrl", "-i", "-r", win, "-b", "add,maximized_vert,maximized_horz"); err != nil {
		t.Fatalf("maximise: %v %s", err, out)
	}
	testkit.EventuallySays(t, 10*time.Second, "the window maximised", func() (bool, string) { return maximized(win), "not maximised" })
	wmClose(t, win)
	waitExit(t, d, 15*time.Second, "close")
	saved, _ = os.ReadFile(filepath.Join(home, "window.json"))
	if !strings.Contains(string(saved), `"maximized":true`) {
		t.Fatalf("maximised, saved %s", saved)
	}
	d = launch()
	win = mainWindow(t)
	testkit.EventuallySays(t, 10*time.Second, "the window maximised again", func() (bool, string) { return maximized(win), "not maximised" })
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, d, 15*time.Second, "SIGTERM")
}

func maximized(win string) bool {
	out, _ := run(5*time.Second, "xprop", "-id", win, "_NET_WM_STATE")
	return strings.Contains(out, "_NET_WM_STATE_MAXIMIZED_VERT") && strings.Contains(out, "_NET_WM_STATE_MAXIMIZED_HORZ")
}

func screenSize(t *testing.T) (int, int) {
	t.Helper()
	out, err := run(5*time.Second, "xdotool", "getdisplaygeometry")
	f := strings.Fields(out)
	if err != nil || len(f) != 2 {
		t.Fatalf("getdisplaygeometry: %v %s", err, out)
	}
	w, _ := strconv.Atoi(f[0])
	h, _ := strconv.Atoi(f[1])
	return w, h
}

// testEditKeys: the editing keys work in the page's fields with real key
// presses: type, select all, copy, paste into another field, cut, undo.
func testEditKeys(t *testing.T, bin string) {
	ensureWM(t)
	d := startDesktop(t, bin)
	win := mainWindow(t)
	p := page{t: t, base: d.baseURL(t)}
	p.waitTrue(30*time.Second, "the page", `document.body.dataset.ready === "1"`)
	p.mustEval(`(location.hash = "#/settings", true)`)
	p.waitTrue(15*time.Second, "the port fields", `!!q('ports-first') && !!q('ports-last') && q('ports-last').value !== ''`)
	if out, err := run(5*time.Second, "xdotool", "windowactivate", "--sync", win); err != nil {
		t.Fatalf("activate: %v %s", err, out)
	}
	clickField := func(id string) {
		t.Helper()
		var box struct{ X, Y float64 }
		v := p.mustEval(fmt.Sprintf(`(() => { const r = q(%q).getBoundingClientRect(); return JSON.stringify({x: r.x + r.width / 2, y: r.y + r.height / 2}); })()`, id))
		if err := json.Unmarshal([]byte(v), &box); err != nil {
			t.Fatal(err)
		}
		if out, err := run(5*time.Second, "xdotool", "mousemove", "--window", win, "--sync", strconv.Itoa(int(box.X)), strconv.Itoa(int(box.Y)), "click", "1"); err != nil {
			t.Fatalf("click %s: %v %s", id, err, out)
		}
		p.waitTrue(5*time.Second, id+" focused", fmt.Sprintf(`document.activeElement === q(%q)`, id))
	}
	key := func(keys ...string) {
		t.Helper()
		for _, k := range keys {
			if out, err := run(5*time.Second, "xdotool", "key", "--clearmodifiers", k); err != nil {
				t.Fatalf("key %s: %v %s", k, err, out)
			}
			time.Sleep(60 * time.Millisecond)
		}
	}
	value := func(id string) string {
		t.Helper()
		return p.mustEval(fmt.Sprintf(`q(%q).value`, id))
	}
	waitValue := func(id, want, what string) {
		t.Helper()
		testkit.EventuallySays(t, 5*time.Second, what, func() (bool, string) { v := value(id); return v == want, fmt.Sprintf("%s is %q, want %q", id, v, want) })
	}

	clickField("ports-first")
	key("ctrl+a")
	if out, err := run(10*time.Second, "xdotool", "type", "--delay", "30", "copy me 42"); err != nil {
		t.Fatalf("type: %v %s", err, out)
	}
	waitValue("ports-first", "copy me 42", "typing over the selected field (Ctrl+A selected it)")
	key("ctrl+a", "ctrl+c")
	clickField("ports-last")
	key("ctrl+a", "ctrl+v")
	waitValue("ports-last", "copy me 42", "Ctrl+V pasting what Ctrl+C copied")
	key("ctrl+a", "ctrl+x")
	waitValue("ports-last", "", "Ctrl+X cutting the selection")
	key("ctrl+z")
	waitValue("ports-last", "copy me 42", "Ctrl+Z undoing the cut")
	key("ctrl+shift+z")
	waitValue("ports-last", "", "Ctrl+Shift+Z redoing it")
	// And into a text area (the run form's message).
	p.mustEval(`(location.hash = "#/runs", true)`)
	p.waitTrue(15*time.Second, "the run form", `!!q('run-message') || (q('nav-runs')?.click(), false)`)
	clickField("run-message")
	key("ctrl+v")
	waitValue("run-message", "copy me 42", "Ctrl+V into the message text area")
	if resp, err := http.Get(p.base + "/api/health"); err == nil {
		resp.Body.Close()
	}
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, d, 15*time.Second, "SIGTERM")
}
