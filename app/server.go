//go:build desktop

package app

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/clawboo/desktop/backend"
)

// server is the desktop's loopback HTTP server: the same listener, port file
// and handler `clawboo serve` uses, so a browser, the CLIs and MCP clients
// reach the very backend the window shows.
type server struct {
	b       *backend.Backend
	srv     *http.Server
	handler http.Handler // also mounted in the webview (see inProcess)
	url     string
	// base is the context of every request, TCP or in-process; cancelling
	// it ends long event streams at shutdown.
	base       context.Context
	endStreams context.CancelFunc
	errc       chan error
}

func startServer(b *backend.Backend, h http.Handler) (*server, error) {
	ln, err := b.Listen("")
	if err != nil {
		return nil, err
	}
	base, endStreams := context.WithCancel(context.Background())
	s := &server{
		b: b, srv: b.Server(), handler: h, url: "http://" + ln.Addr().String() + "/",
		base: base, endStreams: endStreams, errc: make(chan error, 1),
	}
	s.srv.Handler = h
	s.srv.BaseContext = func(net.Listener) context.Context { return base }
	go func() { s.errc <- s.srv.Serve(ln) }()
	return s, nil
}

// shutdown stops everything in the order backend.Serve uses: live runs are
// aborted first (so their final events are recorded and every stream sees
// done), then streams are ended, in-flight requests finish (bounded by
// grace), and the database is closed last.
func (s *server) shutdown(grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	runsErr := s.b.Supervisor.Close(ctx)
	s.endStreams()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
	}
	serveErr := <-s.errc
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	// Close repeats the (idempotent) supervisor close and then closes the
	// store, and will cover whatever later parts the backend grows.
	return errors.Join(runsErr, serveErr, s.b.Close(ctx))
}
