package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The window remembers where a person left it: its geometry is saved in
// <home>/window.json whenever the window is moved or resized (debounced)
// and when the app quits, and restored at the next launch, fitted to the
// screens there are then, so a window last seen on a monitor that is gone,
// or larger than today's screen, never opens off-screen.

// geometryFile is the file in the home folder.
const geometryFile = "window.json"

// windowGeometry is the frame's top-left corner in root coordinates and the
// size of the window's contents, as GTK reports and takes them; Maximized
// keeps the size to come back to when un-maximised.
type windowGeometry struct {
	X         int  `json:"x"`
	Y         int  `json:"y"`
	Width     int  `json:"width"`
	Height    int  `json:"height"`
	Maximized bool `json:"maximized,omitempty"`
}

// rect is a monitor's work area (the screen minus panels).
type rect struct{ X, Y, W, H int }

// Room a frame adds around the contents (title bar and borders), kept free
// when a remembered size has to shrink to fit, so the frame fits too.
const (
	frameAllowanceW = 8
	frameAllowanceH = 40
)

// fit is g moved and shrunk to lie inside the work area it overlaps most
// (the first one when it overlaps none), and no smaller than min×min.
func (g windowGeometry) fit(areas []rect, minW, minH int) windowGeometry {
	g.Width, g.Height = max(g.Width, minW), max(g.Height, minH)
	if len(areas) == 0 {
		return g
	}
	best, bestArea := areas[0], -1
	for _, a := range areas {
		ow := min(g.X+g.Width, a.X+a.W) - max(g.X, a.X)
		oh := min(g.Y+g.Height, a.Y+a.H) - max(g.Y, a.Y)
		if ow > 0 && oh > 0 && ow*oh > bestArea {
			best, bestArea = a, ow*oh
		}
	}
	a := best
	if g.Width > a.W-frameAllowanceW {
		g.Width = max(a.W-frameAllowanceW, 1)
	}
	if g.Height > a.H-frameAllowanceH {
		g.Height = max(a.H-frameAllowanceH, 1)
	}
	g.X = min(max(g.X, a.X), a.X+a.W-g.Width-frameAllowanceW)
	g.Y = min(max(g.Y, a.Y), a.Y+a.H-g.Height-frameAllowanceH)
	g.X, g.Y = max(g.X, a.X), max(g.Y, a.Y)
	return g
}

// loadGeometry reads the remembered geometry; ok is false when there is
// none (first launch) or it is unreadable (then the default size is used).
func loadGeometry(home string) (g windowGeometry, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(home, geometryFile))
	if errors.Is(err, fs.ErrNotExist) {
		return g, false, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &g)
	}
	if err == nil && (g.Width <= 0 || g.Height <= 0) {
		err = fmt.Errorf("size %dx%d", g.Width, g.Height)
	}
	if err != nil {
		return windowGeometry{}, false, fmt.Errorf("%s: %w", geometryFile, err)
	}
	return g, true, nil
}

// saveGeometry writes g atomically (a crash mid-write leaves the old file).
func saveGeometry(home string, g windowGeometry) error {
	b, _ := json.Marshal(g)
	tmp, err := os.CreateTemp(home, geometryFile+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(home, geometryFile))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// geometryKeeper follows the window's moves and saves them, at most once
// per geometrySaveDelay while the window moves and once more at the end.
type geometryKeeper struct {
	home  string
	log   *slog.Logger
	delay time.Duration

	mu    sync.Mutex
	cur   windowGeometry
	dirty bool
	timer *time.Timer
}

const geometrySaveDelay = 500 * time.Millisecond

func newGeometryKeeper(home string, log *slog.Logger) *geometryKeeper {
	return &geometryKeeper{home: home, log: log, delay: geometrySaveDelay}
}

// configured records where the window is now; a maximised window keeps the
// size and place it will return to.
func (k *geometryKeeper) configured(g windowGeometry) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if g.Maximized {
		if k.cur.Maximized {
			return
		}
		k.cur.Maximized = true
	} else {
		k.cur = g
	}
	k.dirty = true
	if k.timer == nil {
		k.timer = time.AfterFunc(k.delay, k.flush)
	} else {
		k.timer.Reset(k.delay)
	}
}

// seed is the geometry the window starts with (restored or not), so that
// starting maximised keeps the remembered normal size.
func (k *geometryKeeper) seed(g windowGeometry) {
	k.mu.Lock()
	k.cur = g
	k.mu.Unlock()
}

// flush saves what has changed since the last save.
func (k *geometryKeeper) flush() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.timer != nil {
		k.timer.Stop()
	}
	if !k.dirty {
		return
	}
	k.dirty = false
	if err := saveGeometry(k.home, k.cur); err != nil {
		k.log.Warn("window geometry not saved", "err", err)
	}
}
