package app

import "errors"

// ErrNoDisplay is returned by the desktop Run when there is nothing to draw a
// window on. GTK would otherwise panic ("failed to init GTK") and exit 2
// with a stack trace, which tells a user nothing.
var ErrNoDisplay = errors.New("no display: neither DISPLAY nor WAYLAND_DISPLAY is set; " +
	"use `clawboo serve` to run headless and open the printed URL in a browser")

// checkDisplay reports ErrNoDisplay unless an X11 or Wayland display is named
// in the environment. It only looks at the variables: a display that is
// named but unreachable still fails inside GTK, which is rare enough not to
// probe for at start-up.
func checkDisplay(getenv func(string) string) error {
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return ErrNoDisplay
	}
	return nil
}
