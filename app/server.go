//go:build desktop

package app

import (
	"net/http"
	"time"

	"github.com/clawboo/desktop/backend"
)

// server is the desktop's loopback HTTP server: the same listener, port file
// and handler `clawboo serve` uses, so a browser, the CLIs and MCP clients
// reach the very backend the window shows.
type server struct {
	*backend.Serving
	handler http.Handler // also mounted in the webview (see inProcess)
	url     string
}

func startServer(b *backend.Backend, h http.Handler) (*server, error) {
	ln, err := b.Listen("")
	if err != nil {
		return nil, err
	}
	return &server{Serving: b.Start(ln, h), handler: h, url: "http://" + ln.Addr().String() + "/"}, nil
}

// shutdown stops everything in the order backend.Serving uses: live runs
// aborted, streams ended (in-process ones too, through Base), requests
// finished within grace, database closed.
func (s *server) shutdown(grace time.Duration) error { return s.Shutdown(grace) }
