//go:build desktop && linux && cgo

// WebKitGTK set up for what the window shows: one local page, drawn on the
// CPU (Wails' WebviewGpuPolicyNever), nothing browsed.

#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <webkit2/webkit2.h>
#include "webkit_linux.h"

// The variable glvnd's libEGL reads for its vendor list; pointing it at a
// file that does not exist leaves the process with no EGL implementation.
#define EGL_VENDORS "__EGL_VENDOR_LIBRARY_FILENAMES"

// on_x11 tells whether GTK will open an X display: no Wayland display named,
// or GDK told to use X11. Only there was leaving the UI process without GL
// tried (under Xvfb); a Wayland session keeps WebKit's defaults.
static int on_x11(void) {
	const char *wl = getenv("WAYLAND_DISPLAY"), *be = getenv("GDK_BACKEND");
	return wl == NULL || *wl == '\0' || (be != NULL && strcmp(be, "x11") == 0);
}

void clawboo_tune_webkit(void) {
	int x11 = on_x11();
	// GTK's own GL: GDK opens GLX when it opens the X display, which loads
	// Mesa and LLVM into the app; nothing in the app draws with GTK's GL.
	if (x11) setenv("GDK_GL", "disable", 0);

	// Creating the default context opens the display (gtk_init) and
	// WebKit's EGL display in this, the UI, process. With the page drawn on
	// the CPU the UI process only shows the frames the web process drew, so
	// it is left without EGL: no Mesa, no LLVM, no GL libraries (the same
	// pixels under Xvfb, compare -metric AE = 0).
	// Only while the context is made: the web process, spawned later,
	// inherits the environment as it was and keeps its EGL.
	int egl_unset = x11 && getenv(EGL_VENDORS) == NULL;
	if (egl_unset) setenv(EGL_VENDORS, "/nonexistent/clawboo-no-egl.json", 1);
	WebKitWebContext *ctx = webkit_web_context_get_default();
	if (egl_unset) unsetenv(EGL_VENDORS);

	// One local document, never browsed: WebKit's smallest memory cache and
	// no back/forward page cache.
	webkit_web_context_set_cache_model(ctx, WEBKIT_CACHE_MODEL_DOCUMENT_VIEWER);
}

void clawboo_trim_malloc(void) { malloc_trim(0); }
