package backend

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"time"
)

// Default port range of the local server.
const (
	FirstPort = 18790
	LastPort  = 18809
)

// Listen binds the local server. With an explicit addr it binds exactly that
// (a non-loopback address is refused: nothing listens beyond this machine
// unless a later version adds a token for it). Without one it takes the
// first free port of 127.0.0.1:18790..18809 and records the port in
// <home>/api-port.txt for other tools.
func (b *Backend) Listen(addr string) (net.Listener, error) {
	if addr != "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("--addr %q: %w", addr, err)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, fmt.Errorf("--addr %q: only loopback addresses are allowed", addr)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, err
		}
		return ln, b.writePort(ln)
	}
	var errs []error
	for p := FirstPort; p <= LastPort; p++ {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err == nil {
			return ln, b.writePort(ln)
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("no free port in %d-%d: %w", FirstPort, LastPort, errors.Join(errs...))
}

func (b *Backend) writePort(ln net.Listener) error {
	b.listenURL.Store("http://" + ln.Addr().String())
	port := ln.Addr().(*net.TCPAddr).Port
	tmp := b.Config.PortFile() + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(port)+"\n"), 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("write port file: %w", err)
	}
	if err := os.Rename(tmp, b.Config.PortFile()); err != nil {
		ln.Close()
		return fmt.Errorf("write port file: %w", err)
	}
	return nil
}

// BaseURL is where this backend's server listens (http://127.0.0.1:port),
// "" before Listen: MCP clients attach here, the desktop included.
func (b *Backend) BaseURL() string {
	u, _ := b.listenURL.Load().(string)
	return u
}

// Server is the HTTP server for the handler, with timeouts that suit long
// event streams (no write timeout) but cut slow or idle clients.
func (b *Backend) Server() *http.Server {
	return &http.Server{
		Handler:           b.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

// Serving is the loopback server running a handler.
type Serving struct {
	b          *Backend
	srv        *http.Server
	base       context.Context
	endStreams context.CancelFunc
	errc       chan error
}

// Start serves h (nil means the backend's own handler) on ln in the
// background. Every request's context derives from Base, which Shutdown
// ends, so long event streams learn of the shutdown.
func (b *Backend) Start(ln net.Listener, h http.Handler) *Serving {
	srv := b.Server()
	if h != nil {
		srv.Handler = h
	}
	base, endStreams := context.WithCancel(context.Background())
	srv.BaseContext = func(net.Listener) context.Context { return base }
	s := &Serving{b: b, srv: srv, base: base, endStreams: endStreams, errc: make(chan error, 1)}
	go func() { s.errc <- srv.Serve(ln) }()
	go s.settle(base)
	return s
}

// settleAfter is how long after start-up the server hands the memory its
// start-up left behind (migrations, package set-up, the first requests)
// back to the OS, once, so an idle Clawboo stays small.
const settleAfter = 10 * time.Second

// settle returns start-up garbage to the OS once the server has been up a
// while; the Go scavenger alone gives it back only slowly.
func (s *Serving) settle(base context.Context) {
	t := time.NewTimer(settleAfter)
	defer t.Stop()
	select {
	case <-t.C:
		debug.FreeOSMemory()
	case <-base.Done():
	}
}

// Base is the context every request of this server derives from; other
// transports of the same handler (the desktop webview) use it too.
func (s *Serving) Base() context.Context { return s.base }

// Done delivers the server's error if it stops serving on its own.
func (s *Serving) Done() <-chan error { return s.errc }

// Shutdown stops in order: live runs are aborted (so callers waiting on them
// get their result and every stream sees done), streams are ended,
// in-flight requests finish (bounded by grace), and the database is closed
// last.
func (s *Serving) Shutdown(grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	runsErr := s.b.Supervisor.Close(ctx)
	s.b.closeWork()
	s.endStreams()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
	}
	var serveErr error
	select {
	case serveErr = <-s.errc:
	default:
	}
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	return errors.Join(serveErr, runsErr, s.b.Store.Close(), s.b.closeRuntimes())
}

// Serve serves the backend's handler on ln until ctx ends (or the server
// fails), then shuts down in order.
func (b *Backend) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	s := b.Start(ln, nil)
	var serveErr error
	select {
	case serveErr = <-s.errc:
	case <-ctx.Done():
	}
	return errors.Join(serveErr, s.Shutdown(grace))
}
