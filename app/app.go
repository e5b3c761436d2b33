// Package app is the Wails edge of Clawboo Desktop: the window, the signal
// fix WebKit needs, native approval popups (a GTK dialog of our own, see
// popup_gtk.c), desktop notifications (D-Bus) and the tray (fyne.io/systray).
// Only main.go and this package import Wails, and only in files built with
// the desktop tag.
//
// Invariants:
//   - The window shows the same UI as `clawboo serve`: the backend's one
//     http.Handler is mounted as the Wails asset handler, so the page uses
//     relative /api URLs in both shells. No Wails bindings carry app logic.
//   - The desktop also serves that handler on loopback, exactly as `clawboo
//     serve` does (port file included), so a browser, the CLIs and MCP
//     clients reach the very backend the window shows.
//   - Requests from the webview are marked api.MarkInProcess (they arrive
//     in-process with Host "wails", never over TCP) and end when the app
//     shuts down, like the TCP server's.
//   - A desktop start with no display says so and fails; it never panics.
//   - SIGINT, SIGTERM and closing the window all quit the same way, and
//     shutdown runs in order: live runs aborted, HTTP server shut down,
//     database closed; the exit status is 0.
//   - After every page load the SA_ONSTACK flag is put back on the signal
//     handlers WebKit installed, or a nil dereference in any goroutine would
//     kill the app (platform.md §4.2; the smoke test proves it).
//   - Popups, notifications and the tray never answer anything themselves:
//     a popup's choice goes through the approvals queue like the page's, so
//     the first answer anywhere wins and the rest are withdrawn (attention).
//   - Nothing here autolaunches a D-Bus session bus; without one there are
//     popups but no notifications and no tray, and closing the window then
//     quits. Closing hides into the tray only while runs are live and a tray
//     host can show the item.
//   - The JS eval hook (/__e2e/...) exists only in builds tagged e2e.
//   - Built without the desktop tag, Run explains how to get a window and
//     fails, so `go build .` stays a cgo-free headless binary.
//
// Live events in the webview: the Wails asset server on Linux hands WebKit
// each response as a pipe as soon as the handler writes its header, and
// WebKit reads that pipe as data arrives. So the SSE stream from GET
// /api/runs/{id}/events reaches fetch() + response.body.getReader() in the
// page event by event, not buffered to the end (measured under Xvfb: an
// event written 1.5 s before the next arrives 1.5 s earlier), and the
// frontend keeps one code path for both shells. Two differences from TCP,
// handled here or by the API: the response writer has no Flush (each write
// goes straight to the pipe, so none is needed), and Wails gives requests a
// context that never ends, so a page that stops reading is noticed only on
// the next write (the API's keep-alive comments) and all streams end through
// the base context at shutdown.
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
	// Bridge starts `clawboo mcp bridge` (backend.Options.Bridge).
	Bridge []string
	// HostBuilds is backend.Options.HostBuilds.
	HostBuilds string
}
