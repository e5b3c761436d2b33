//go:build desktop

package app

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"sync"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"
)

// The system tray is a StatusNotifierItem (fyne.io/systray: pure Go D-Bus,
// no GTK, so no second GTK user beside Wails). It shows how many approvals
// wait and how many tasks run, and its menu opens the window, opens the
// approvals page, pauses every run and quits.
//
// It starts only when a session bus is there (never autolaunching one), and
// it reports whether a StatusNotifierWatcher (a tray host) took the item:
// without one nobody can see it, so closing the window must quit rather
// than hide into an invisible tray.

// trayActions are what the menu does.
type trayActions struct {
	OpenWindow    func()
	OpenApprovals func()
	PauseAll      func()
	Quit          func()
}

type tray struct {
	log  *slog.Logger
	end  func()
	conn *dbus.Conn // the shared session connection systray uses

	mu        sync.Mutex
	ready     bool
	approvals *systray.MenuItem
	pause     *systray.MenuItem
	status    [3]int
	quota     string // the tightest usage window in words ("" when none)
	hosts     string // live runs per host in words ("" when none)
}

// trayIconSize is the edge of the icon sent over D-Bus (hosts scale it).
const trayIconSize = 64

// startTray puts the item on the session bus, or says why it cannot.
func startTray(getenv func(string) string, log *slog.Logger, icon []byte, act trayActions) (*tray, error) {
	if _, err := sessionBusAddress(getenv); err != nil {
		return nil, err
	}
	conn, err := dbus.SessionBus() // the connection systray will use
	if err != nil {
		return nil, fmt.Errorf("session bus: %w", err)
	}
	t := &tray{log: log, conn: conn}
	readyCh := make(chan struct{})
	start, end := systray.RunWithExternalLoop(func() {
		systray.SetIcon(scaledIcon(icon, trayIconSize))
		systray.SetTitle("Clawboo")
		systray.SetTooltip("Clawboo")
		open := systray.AddMenuItem("Open Clawboo", "Show the window")
		t.mu.Lock()
		t.approvals = systray.AddMenuItem("Pending approvals (0)", "Answer what agents are waiting for")
		t.pause = systray.AddMenuItem("Pause all runs", "Stop every live run; tasks keep their work and go back to the board")
		t.mu.Unlock()
		systray.AddSeparator()
		quit := systray.AddMenuItem("Quit", "Stop every run and quit Clawboo")
		go t.clicks(open, quit, act)
		close(readyCh)
	}, func() {})
	start()
	<-readyCh
	t.end = end
	t.mu.Lock()
	t.ready = true
	t.mu.Unlock()
	t.SetStatus(0, 0, 0)
	return t, nil
}

func (t *tray) clicks(open, quit *systray.MenuItem, act trayActions) {
	t.mu.Lock()
	approvals, pause := t.approvals, t.pause
	t.mu.Unlock()
	for {
		select {
		case <-open.ClickedCh:
			act.OpenWindow()
		case <-approvals.ClickedCh:
			act.OpenApprovals()
		case <-pause.ClickedCh:
			act.PauseAll()
		case <-quit.ClickedCh:
			act.Quit()
			return
		}
	}
}

// Hosted reports whether a tray host (StatusNotifierWatcher) is on the bus,
// i.e. whether anyone can see the item.
func (t *tray) Hosted() bool {
	var has bool
	err := t.conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has)
	return err == nil && has
}

// SetQuota shows the tightest usage window under the counts ("" hides it).
func (t *tray) SetQuota(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.quota = line
	if t.ready {
		t.setTooltip()
	}
}

// SetHosts shows the live runs per host under the counts ("" hides it).
func (t *tray) SetHosts(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.hosts == line {
		return
	}
	t.hosts = line
	if t.ready {
		t.setTooltip()
	}
}

// setTooltip writes the counts and the tightest window (t.mu held).
func (t *tray) setTooltip() {
	tip := fmt.Sprintf("Clawboo: %s waiting, %s running", plural(t.status[0], "approval"), plural(t.status[1], "task"))
	if t.hosts != "" {
		tip += "\n" + t.hosts
	}
	if t.quota != "" {
		tip += "\n" + t.quota
	}
	systray.SetTooltip(tip)
}

// SetStatus shows the counts in the tooltip and the menu.
func (t *tray) SetStatus(pendingApprovals, runningTasks, liveRuns int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ready {
		return
	}
	t.status = [3]int{pendingApprovals, runningTasks, liveRuns}
	t.setTooltip()
	if pendingApprovals > 0 {
		systray.SetTitle(fmt.Sprintf("Clawboo (%d)", pendingApprovals))
	} else {
		systray.SetTitle("Clawboo")
	}
	t.approvals.SetTitle(fmt.Sprintf("Pending approvals (%d)", pendingApprovals))
	if liveRuns > 0 {
		t.pause.SetTitle(fmt.Sprintf("Pause all runs (%d live)", liveRuns))
		t.pause.Enable()
	} else {
		t.pause.SetTitle("Pause all runs")
		t.pause.Disable()
	}
}

// stop takes the item off the bus. systray's end closes the shared
// session connection and, when its start-up failed half-way, dereferences
// a nil one (platform.md §5.2); a panic here must not turn a clean quit
// into a crash.
func (t *tray) stop() {
	defer func() {
		if p := recover(); p != nil {
			t.log.Warn("tray did not stop cleanly", "panic", fmt.Sprint(p))
		}
	}()
	if t.end != nil {
		t.end()
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// scaledIcon is the PNG icon scaled to size×size (nearest neighbour), so a
// large app icon does not travel over D-Bus as megabytes of pixels; a
// missing or unreadable icon gives a plain square.
func scaledIcon(src []byte, size int) []byte {
	img, _, err := image.Decode(bytes.NewReader(src))
	dst := image.NewNRGBA(image.Rect(0, 0, size, size))
	if err != nil {
		for y := 0; y < size; y++ {
			for x := 0; x < size; x++ {
				dst.Set(x, y, color.NRGBA{R: 0x6b, G: 0x4e, B: 0xe6, A: 0xff})
			}
		}
	} else {
		b := img.Bounds()
		for y := 0; y < size; y++ {
			for x := 0; x < size; x++ {
				dst.Set(x, y, img.At(b.Min.X+x*b.Dx()/size, b.Min.Y+y*b.Dy()/size))
			}
		}
	}
	var out bytes.Buffer
	_ = png.Encode(&out, dst)
	return out.Bytes()
}
