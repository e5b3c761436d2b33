package app

import (
	"context"
	"net/http"

	"github.com/clawboo/desktop/backend/api"
)

// inProcess adapts the backend handler for the Wails asset server, which
// serves the webview's own requests in-process (Host "wails", no TCP):
//
//   - every request is marked with api.MarkInProcess, so the API exempts it
//     from the loopback-Host check that guards the TCP server against DNS
//     rebinding;
//   - every request's context also ends when base ends. Wails builds these
//     requests on context.Background(), so without this a long event stream
//     from the page would never learn that the app is shutting down.
//
// It is plain net/http (no Wails import) so it is unit-tested without GTK.
func inProcess(h http.Handler, base context.Context) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		stop := context.AfterFunc(base, cancel)
		defer stop()
		h.ServeHTTP(w, r.WithContext(api.MarkInProcess(ctx)))
	})
}
