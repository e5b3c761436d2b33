//go:build desktopsmoke

package app_test

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/clawboo/desktop/internal/testkit"
)

// trayMenu reads the item's dbusmenu: label → id.
func trayMenu(t *testing.T, conn *dbus.Conn, dest string) map[string]int32 {
	t.Helper()
	var rev uint32
	var root []any
	call := conn.Object(dest, "/StatusNotifierItem/menu").Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{})
	if err := call.Store(&rev, &root); err != nil {
		t.Fatalf("GetLayout: %v", err)
	}
	out := map[string]int32{}
	var walk func(node []any)
	walk = func(node []any) {
		if len(node) != 3 {
			return
		}
		id, _ := node[0].(int32)
		if props, ok := node[1].(map[string]dbus.Variant); ok {
			if l, ok := props["label"]; ok {
				out[fmt.Sprint(l.Value())] = id
			}
		}
		kids, _ := node[2].([]dbus.Variant)
		for _, k := range kids {
			if n, ok := k.Value().([]any); ok {
				walk(n)
			}
		}
	}
	walk(root)
	return out
}

// click sends a dbusmenu "clicked" event, as a tray host does.
func click(t *testing.T, conn *dbus.Conn, dest string, id int32) {
	t.Helper()
	call := conn.Object(dest, "/StatusNotifierItem/menu").Call("com.canonical.dbusmenu.Event", 0, id, "clicked", dbus.MakeVariant(int32(0)), uint32(0))
	if call.Err != nil {
		t.Fatalf("click %d: %v", id, call.Err)
	}
}

func findLabel(menu map[string]int32, prefix string) (string, int32, bool) {
	for l, id := range menu {
		if strings.HasPrefix(l, prefix) {
			return l, id, true
		}
	}
	return "", 0, false
}

func windowVisible() bool {
	out, err := run(5*time.Second, "xdotool", "search", "--onlyvisible", "--name", "^Clawboo$")
	return err == nil && strings.TrimSpace(out) != ""
}

// testTray: under a real StatusNotifier host the tray item registers, shows
// the live-run count in its menu, keeps the app alive when the window is
// closed with a run live, reopens the window, pauses every run and quits.
func testTray(t *testing.T, bin string) {
	conn := startTrayHost(t)

	d := startDesktop(t, bin, "CLAWBOO_VAULT=file")
	base := d.baseURL(t)
	p := page{t: t, base: base}
	p.waitTrue(30*time.Second, "the page", `document.body.dataset.ready === "1"`)
	testkit.EventuallySays(t, 10*time.Second, "the tray to be shown", func() (bool, string) {
		return strings.Contains(d.output(), `msg="tray shown"`), "not yet"
	})
	dest := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", d.cmd.Process.Pid)
	var owner string
	if err := conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, dest).Store(&owner); err != nil {
		t.Fatalf("our item %s is not on the bus: %v", dest, err)
	}
	testkit.EventuallySays(t, 10*time.Second, "the host to list our item", func() (bool, string) {
		v, err := conn.Object("org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher").
			GetProperty("org.kde.StatusNotifierWatcher.RegisteredStatusNotifierItems")
		items, _ := v.Value().([]string)
		for _, it := range items {
			if it == dest || strings.HasPrefix(it, owner) {
				return true, ""
			}
		}
		return false, fmt.Sprint(v, err, " owner ", owner)
	})

	// A live run shows in the menu.
	live := postRun(t, base, "!abort")
	var menu map[string]int32
	testkit.EventuallySays(t, 10*time.Second, "the menu to count the live run", func() (bool, string) {
		menu = trayMenu(t, conn, dest)
		_, _, ok := findLabel(menu, "Pause all runs (1 live)")
		return ok, fmt.Sprint(menu)
	})
	for _, want := range []string{"Open Clawboo", "Pending approvals (0)", "Quit"} {
		if _, ok := menu[want]; !ok {
			t.Fatalf("menu %v lacks %q", menu, want)
		}
	}

	// Closing the window (the same "Q" message the close button sends)
	// with a run live hides it; the app and the run go on.
	p.mustEval(`(window.WailsInvoke('Q'), true)`)
	testkit.EventuallySays(t, 10*time.Second, "the window to hide", func() (bool, string) { return !windowVisible(), "still visible" })
	time.Sleep(300 * time.Millisecond)
	if d.exited() {
		t.Fatal("closing the window with a run live quit the app")
	}
	var r struct{ Status string }
	if err := getJSON(base+"/api/runs/"+live, &r); err != nil || r.Status != "running" {
		t.Fatalf("the run is %q (%v), want running", r.Status, err)
	}

	// The tray brings the window back and pauses the run.
	click(t, conn, dest, menu["Open Clawboo"])
	testkit.EventuallySays(t, 10*time.Second, "the window to show again", func() (bool, string) { return windowVisible(), "hidden" })
	_, pause, _ := findLabel(menu, "Pause all runs")
	click(t, conn, dest, pause)
	testkit.EventuallySays(t, 10*time.Second, "the run to be paused", func() (bool, string) {
		_ = getJSON(base+"/api/runs/"+live, &r)
		return r.Status == "aborted", r.Status
	})

	// Quit from the tray with another run live: a clean exit, the run
	// recorded as aborted.
	live2 := postRun(t, base, "!abort")
	testkit.EventuallySays(t, 10*time.Second, "the second run to run", func() (bool, string) {
		_ = getJSON(base+"/api/runs/"+live2, &r)
		return r.Status == "running", r.Status
	})
	click(t, conn, dest, menu["Quit"])
	select {
	case <-d.done:
	case <-time.After(15 * time.Second):
		t.Fatal("Quit in the tray did not quit")
	}
	if code := d.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d after Quit", code)
	}
	if got := runStatus(t, d.home, live2); got != "aborted" {
		t.Fatalf("the live run is %q, want aborted", got)
	}
}

// startTrayHost starts a StatusNotifier host (with its own watcher) and
// answers a session-bus connection once the host is registered with its
// watcher; the host is killed and the connection closed when the test
// ends. The host is a third-party program: one that dies or loses its bus
// name while starting (seen under load) is started again, at most three
// times, and the failure quotes each attempt's output.
func startTrayHost(t *testing.T) *dbus.Conn {
	t.Helper()
	host, err := exec.LookPath("gtk-sni-tray-standalone")
	if err != nil {
		t.Fatalf("the tray host is needed (apt-get install haskell-gtk-sni-tray-utils, done by build/deps.sh test): %v", err)
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var why []string
	for attempt := 1; attempt <= 3; attempt++ {
		kill, failed := tryTrayHost(host, conn)
		if failed == "" {
			t.Cleanup(kill)
			return conn
		}
		why = append(why, fmt.Sprintf("attempt %d: %s", attempt, failed))
	}
	t.Fatalf("no tray host came up:\n%s", strings.Join(why, "\n"))
	return nil
}

// tryTrayHost starts the host and waits until its watcher says a host is
// registered: the name alone comes before that, and an item registered in
// that gap is refused. It answers how to stop the host, or why it did not
// come up (the host then already stopped).
func tryTrayHost(host string, conn *dbus.Conn) (kill func(), failed string) {
	var out testkit.SyncBuffer
	cmd := exec.Command(host, "--watcher")
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err.Error()
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	kill = func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); <-exited }
	up, last := testkit.Within(40*time.Second, func() (bool, string) {
		select {
		case <-exited:
			return true, "the host exited"
		default:
		}
		v, err := conn.Object("org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher").
			GetProperty("org.kde.StatusNotifierWatcher.IsStatusNotifierHostRegistered")
		if err != nil {
			return false, err.Error()
		}
		ok, _ := v.Value().(bool)
		return ok, fmt.Sprint(v.Value())
	})
	if up && last != "the host exited" {
		return kill, ""
	}
	kill()
	return nil, fmt.Sprintf("%s; its output: %q", last, out.String())
}
