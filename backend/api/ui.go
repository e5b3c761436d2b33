package api

import (
	"bytes"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// contentSecurityPolicy keeps the page to its own origin: no inline script,
// no third-party anything.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

const notBuiltPage = `<!doctype html><meta charset="utf-8"><title>Clawboo</title>
<p>The Clawboo UI was not built into this binary. Run <code>make build</code> (or <code>make run</code>).</p>
<p>The API is up: <a href="/api/runtimes">/api/runtimes</a>.</p>`

// uiHandler serves the built single-page app: real files as they are, with
// hashed assets cached for good, and index.html for every other path so
// client-side routes survive a reload.
type uiHandler struct {
	files fs.FS
	index []byte
	start time.Time
}

func newUIHandler(files fs.FS) http.Handler {
	h := &uiHandler{files: files, start: time.Now()}
	if files != nil {
		if b, err := fs.ReadFile(files, "index.html"); err == nil {
			h.index = b
		}
	}
	if h.index == nil {
		h.files = nil
		h.index = []byte(notBuiltPage)
	}
	return h
}

func (h *uiHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "method %s not allowed", r.Method)
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", contentSecurityPolicy)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if h.files != nil && name != "" && name != "index.html" {
		if st, err := fs.Stat(h.files, name); err == nil && !st.IsDir() {
			if strings.HasPrefix(name, "assets/") {
				hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
			}
			if path.Ext(name) == ".webmanifest" { // the phone page's; Go's own types do not name it
				hdr.Set("Content-Type", "application/manifest+json")
			}
			http.ServeFileFS(w, r, h.files, name)
			return
		}
		if path.Ext(name) != "" {
			// A missing asset is a 404, not the app shell.
			http.NotFound(w, r)
			return
		}
	}
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	http.ServeContent(w, r, "index.html", h.start, bytes.NewReader(h.index))
}
