// Package app is the Wails edge of Clawboo Desktop: the window, the signal
// fix WebKit needs, and (in later issues) the tray, native approval popups
// and notifications. Only main.go and this package import Wails.
//
// Invariants:
//   - The window shows the same UI as `clawboo serve`: the backend's one
//     http.Handler is mounted as the Wails asset handler, so the page uses
//     relative /api URLs in both shells.
//   - A desktop start with no display says so and fails; it never panics.
//   - Built without the desktop tag, Run explains how to get a window and
//     fails, so `go build .` stays a cgo-free headless binary.
package app

import (
	"io/fs"
	"log/slog"
)

// Options configure the desktop app.
type Options struct {
	UI      fs.FS
	Log     *slog.Logger
	Version string
	// Home overrides the state folder (tests); empty uses the default.
	Home string
	// Icon is the window icon (PNG); nil leaves the toolkit default.
	Icon []byte
}
