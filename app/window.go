//go:build desktop

package app

// The editing keys need no Edit menu (whose roles Wails implements on macOS
// only; on Linux it would only add a menu bar): WebKitGTK binds Ctrl+C,
// Ctrl+V, Ctrl+X and Ctrl+A in every field itself, and window_gtk.c adds
// undo and redo (Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y). The smoke test presses
// them all.

// The window's own size limits and its default size at first launch.
const (
	windowMinWidth      = 720
	windowMinHeight     = 480
	windowDefaultWidth  = 1280
	windowDefaultHeight = 800
)

// restoreGeometry reads where the window was last time (geometry.go); the
// size goes into Wails' options at once, the place is applied on the main
// loop once the window exists (startWindowGeometry).
func (s *shell) restoreGeometry(home string) {
	s.geom = newGeometryKeeper(home, s.log.With("part", "window"))
	g, ok, err := loadGeometry(home)
	if err != nil {
		s.log.Warn("window geometry not restored", "err", err)
	}
	if !ok {
		g = windowGeometry{Width: windowDefaultWidth, Height: windowDefaultHeight}
	}
	// Wails takes the size before any screen is known: keep it sane here,
	// the placement fits it to the screen.
	g.Width, g.Height = min(max(g.Width, windowMinWidth), 16384), min(max(g.Height, windowMinHeight), 16384)
	s.saved, s.restored = g, ok
	s.geom.seed(g)
}
