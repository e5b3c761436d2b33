//go:build desktopsmoke

package app_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/internal/testkit"
)

// testWindow runs one desktop app through its life: window and page up,
// a run's events arriving live in the real webview, an abort from the UI, a
// screenshot, then SIGTERM with a run still live.
func testWindow(t *testing.T, bin string) {
	d := startDesktop(t, bin)

	// (a) The window is mapped and the page has loaded.
	var win string
	testkit.EventuallySays(t, 30*time.Second, "a visible window named Clawboo", func() (bool, string) {
		out, err := run(5*time.Second, "xdotool", "search", "--onlyvisible", "--name", "^Clawboo$")
		win = strings.TrimSpace(out)
		return err == nil && win != "", fmt.Sprint(out, err)
	})
	toWindow := time.Since(d.start)
	testkit.EventuallySays(t, 30*time.Second, "the "+readyMarker+" line", func() (bool, string) {
		return strings.Contains(d.output(), readyMarker), "no marker yet"
	})
	p := page{t: t, base: d.baseURL(t)}
	p.waitTrue(30*time.Second, "document.body.dataset.ready", `document.body.dataset.ready === "1"`)
	toReady := time.Since(d.start)
	// The page must come through the Wails asset server (in-process), the
	// path whose streaming this test exists to prove, not from loopback.
	if loc := p.mustEval(`location.href`); !strings.HasPrefix(loc, "wails://") {
		t.Fatalf("the page is at %s, want wails://", loc)
	}
	d.helpers = descendants(d.cmd.Process.Pid) // for the cleanup, should a step fail
	t.Logf("window after %v, page ready after %v", toWindow.Round(time.Millisecond), toReady.Round(time.Millisecond))
	geo, _ := run(5*time.Second, "xdotool", "getwindowgeometry", strings.Fields(win)[0])
	t.Logf("window %s", strings.Join(strings.Fields(geo), " "))

	// A nil dereference in a handler goroutine must not kill the app
	// (WebKit's signal handlers lack SA_ONSTACK until fixSignals runs).
	if resp, err := http.Post(p.base+"/__e2e/nilderef", "text/plain", nil); err == nil {
		resp.Body.Close()
	}
	var health struct{ OK bool }
	if err := getJSON(p.base+"/api/health", &health); err != nil || !health.OK || d.exited() {
		t.Fatalf("the app did not survive a nil dereference in a handler: %v", err)
	}

	// (b) Live events through the real UI: "first" must show while the run
	// is still running, 1.5 s before "second" and the end.
	p.startRun("clawboo-mock", "!ok first\n!silent 1500\n!ok second")
	var liveFirst time.Time
	v := p.waitRun(20*time.Second, "the run to succeed", "", func(v runView) {
		if liveFirst.IsZero() && v.Status == "running" && strings.Contains(v.Output, "first") && !strings.Contains(v.Output, "second") {
			liveFirst = time.Now()
		}
	}, func(v runView) bool { return terminal[v.Status] })
	if v.Status != "succeeded" || !strings.Contains(v.Output, "first") || !strings.Contains(v.Output, "second") {
		t.Fatalf("run ended as %+v, want succeeded with first and second", v)
	}
	if liveFirst.IsZero() {
		t.Fatal(`"first" never showed while the run was running: events did not reach the page live`)
	}
	t.Logf(`"first" showed live, %v before the run was seen to succeed`, time.Since(liveFirst).Round(time.Millisecond))
	firstRun := v.ID

	// Abort from the UI.
	p.startRun("clawboo-mock", "!abort")
	p.waitRun(15*time.Second, "the !abort run to run", firstRun, nil, func(v runView) bool { return v.Status == "running" })
	p.waitTrue(5*time.Second, "an enabled abort button", `!!q('run-abort') && !q('run-abort').disabled`)
	p.mustEval(`(q('run-abort').click(), true)`)
	p.waitRun(15*time.Second, "the run to be aborted", firstRun, nil, func(v runView) bool { return v.Status == "aborted" })

	// (c) A screenshot of the whole screen shows something.
	shot := screenshot(t)

	// (d) SIGTERM with a run still live: exit 0, the run recorded as
	// aborted, no WebKit helper left behind.
	live := postRun(t, p.base, "!abort")
	testkit.EventuallySays(t, 10*time.Second, "the API run to be running", func() (bool, string) {
		var r struct{ Status string }
		err := getJSON(p.base+"/api/runs/"+live, &r)
		return r.Status == "running", fmt.Sprint(r.Status, err)
	})
	d.helpers = descendants(d.cmd.Process.Pid)
	if len(d.helpers) == 0 {
		t.Fatal("found no WebKit helper processes below the app")
	}
	t.Logf("helpers: %v", d.helpers)
	stop := time.Now()
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the app did not exit within 10s of SIGTERM")
	}
	t.Logf("exited %v after SIGTERM", time.Since(stop).Round(time.Millisecond))
	if code := d.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit status %d after SIGTERM, want 0", code)
	}
	if got := runStatus(t, d.home, live); got != "aborted" {
		t.Fatalf("the live run is %q in the database, want aborted", got)
	}
	testkit.EventuallySays(t, 5*time.Second, "the WebKit helpers to exit", func() (bool, string) {
		var left []string
		for _, h := range d.helpers {
			if h.alive() {
				left = append(left, strconv.Itoa(h.pid)+" "+h.comm)
			}
		}
		return len(left) == 0, strings.Join(left, ", ")
	})
	t.Logf("screenshot %s; whole test window phase %v", shot, time.Since(d.start).Round(time.Millisecond))
}

// terminal are the API's words for a finished run.
var terminal = map[string]bool{"succeeded": true, "failed": true, "aborted": true, "timed_out": true}

// screenshot captures the root window and fails if it is blank: a rendered
// page has text, so anti-aliasing alone gives it many distinct colours.
func screenshot(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CLAWBOO_SMOKE_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "desktop-smoke.png")
	if out, err := run(20*time.Second, "/usr/bin/import", "-window", "root", file); err != nil {
		t.Fatalf("import -window root: %v\n%s", err, out)
	}
	out, err := run(20*time.Second, "/usr/bin/identify", "-format", "%k", file)
	colours, _ := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || colours < 16 {
		t.Fatalf("screenshot %s looks blank: %d distinct colours (%v %s)", file, colours, err, out)
	}
	t.Logf("screenshot: %d distinct colours", colours)
	return file
}
