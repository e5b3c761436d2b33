//go:build desktop && linux && cgo

package app

/*
#cgo linux pkg-config: gtk+-3.0
#include "window_gtk.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"
)

// windowExecJS runs a script in the page (runtime.WindowExecJS with the
// Wails context), for the undo keys; set with windowKeeper.
var windowExecJS atomic.Pointer[func(js string)]

// windowKeeper is the geometry keeper the window's GTK callbacks report to
// (window_gtk.c): a C callback has no other way back to Go. Set once, by
// startWindowGeometry, before the callbacks are connected.
var windowKeeper atomic.Pointer[geometryKeeper]

// startWindow places the main window at g (fitted to the screens)
// when restore is set, and from then on reports its moves to k. It runs on
// the GTK main loop, after Wails has centred the window.
func startWindow(k *geometryKeeper, g windowGeometry, restore bool, execJS func(js string)) {
	windowKeeper.Store(k)
	windowExecJS.Store(&execJS)
	C.clawboo_window_start(C.gint(g.X), C.gint(g.Y), C.gint(g.Width), C.gint(g.Height), cbool(g.Maximized), cbool(restore))
}

func cbool(b bool) C.gboolean {
	if b {
		return 1
	}
	return 0
}

//export clawbooWindowConfigured
func clawbooWindowConfigured(x, y, width, height C.gint, maximized C.gboolean) {
	if k := windowKeeper.Load(); k != nil {
		k.configured(windowGeometry{X: int(x), Y: int(y), Width: int(width), Height: int(height), Maximized: maximized != 0})
	}
}

//export clawbooEditCommand
func clawbooEditCommand(redo C.gboolean) {
	cmd := "undo"
	if redo != 0 {
		cmd = "redo"
	}
	if f := windowExecJS.Load(); f != nil {
		go (*f)(`document.execCommand("` + cmd + `")`) // never block the GTK main loop
	}
}

//export clawbooWindowPlace
func clawbooWindowPlace(areas *C.GdkRectangle, n C.gint, x, y, width, height *C.gint) {
	var rs []rect
	for _, a := range unsafe.Slice(areas, int(n)) {
		rs = append(rs, rect{X: int(a.x), Y: int(a.y), W: int(a.width), H: int(a.height)})
	}
	g := windowGeometry{X: int(*x), Y: int(*y), Width: int(*width), Height: int(*height)}.fit(rs, windowMinWidth, windowMinHeight)
	*x, *y, *width, *height = C.gint(g.X), C.gint(g.Y), C.gint(g.Width), C.gint(g.Height)
}
