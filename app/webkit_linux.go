//go:build desktop && linux && cgo

package app

/*
#cgo !webkit2_41 pkg-config: webkit2gtk-4.0
#cgo webkit2_41 pkg-config: webkit2gtk-4.1
#include "webkit_linux.h"
*/
import "C"

import (
	"runtime"
	"runtime/debug"
	"time"
)

// WebKit takes the thread that first touches it for its main thread, and
// GTK must stay on that thread too. tuneWebKit runs in Run before Wails
// starts GTK, so the main goroutine (which calls Run) is kept on the main
// thread from init on, and Wails' GTK loop later runs on that same thread.
func init() { runtime.LockOSThread() }

// tuneWebKit sets WebKit up for one local page drawn on the CPU
// (webkit_linux.c), before Wails creates the window: no GTK GL and no EGL
// in the app's own process (so no Mesa or LLVM there), and the
// document-viewer cache model. It must run on the thread GTK will use.
func tuneWebKit() { C.clawboo_tune_webkit() }

// settleMemory, called once the page has first loaded, hands the memory
// start-up left behind back to the OS a second later: the Go heap's and
// the C heap's (GTK, WebKit's UI side), which glibc keeps otherwise.
func settleMemory() {
	time.AfterFunc(time.Second, func() {
		debug.FreeOSMemory()
		C.clawboo_trim_malloc()
	})
}
