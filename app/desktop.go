//go:build desktop

package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/clawboo/desktop/backend"
	"github.com/clawboo/desktop/backend/config"
)

// ReadyMarker is printed to stderr each time the page has loaded, so a test
// or a script can wait for the window instead of guessing with sleeps.
const ReadyMarker = "clawboo: page ready"

// shutdownGrace bounds how long quitting waits for live runs to abort and
// requests to finish before it closes the database anyway.
const shutdownGrace = 10 * time.Second

// Run opens the desktop window on the same backend `clawboo serve` runs, and
// returns when the window closes or the process gets SIGINT/SIGTERM, after
// shutting everything down. It fails fast, before touching GTK, when there
// is no display.
func Run(opts Options) error {
	if err := checkDisplay(os.Getenv); err != nil {
		return err
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg, err := config.Load(opts.Home, os.Getenv)
	if err != nil {
		return err
	}
	lock, err := takeHome(cfg.Home) // single.go: one instance per home
	if lock == nil {
		return err // nil: the one already open was asked to show its window
	}
	defer releaseHome(lock, log) // last, after the database is closed
	b, err := backend.New(context.Background(), backend.Options{
		Config: cfg, UI: opts.UI, Log: log, Version: opts.Version, Bridge: opts.Bridge, HostBuilds: opts.HostBuilds,
	})
	if err != nil {
		return err
	}
	sh := &shell{log: log, b: b, icon: opts.Icon, started: make(chan struct{}), ready: make(chan struct{}), finished: make(chan struct{})}
	sh.restoreGeometry(cfg.Home)
	srv, err := startServer(b, withE2E(b.Handler(), sh))
	if err != nil {
		return errors.Join(err, b.Close(context.Background()))
	}
	log.Info("Clawboo is serving", "url", srv.url, "home", cfg.Home)
	sh.raiseOnRequest(lock, srv.url)

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go sh.quitOnSignal(sigs)

	tuneWebKit() // webkit_linux.c: before Wails' GTK, on its thread
	runErr := runWails(sh.options(opts, inProcess(srv.handler, srv.Base())))
	sh.geom.flush()
	signal.Stop(sigs)
	close(sh.finished)
	d := sh.desk.Load()
	d.stopDesk()
	err = srv.shutdown(shutdownGrace)
	d.stopTray() // after the backend: it closes the session bus the keychain uses
	return errors.Join(runErr, err)
}

// runWails runs the window. Wails panics when GTK cannot open the display
// (DISPLAY names a server that is not there); that becomes an error, so the
// server and the database still shut down in order and the user reads one
// line instead of a stack trace.
func runWails(o *options.App) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot open the window on display %q: %v; use `clawboo serve` to run headless",
				os.Getenv("DISPLAY")+os.Getenv("WAYLAND_DISPLAY"), r)
		}
	}()
	return wails.Run(o)
}

// shell holds what the Wails callbacks share: the Wails context, which every
// runtime call needs and which exists only from OnStartup on.
type shell struct {
	log       *slog.Logger
	ctx       context.Context // set once, before started is closed
	started   chan struct{}   // closed by OnStartup
	ready     chan struct{}   // closed after the first page load
	readyOnce sync.Once
	finished  chan struct{} // closed when wails.Run has returned

	b        *backend.Backend
	icon     []byte
	desk     atomic.Pointer[desk] // popups, notifications, tray; set by startup
	quitting atomic.Bool          // a quit was asked for (tray, signal): closing must not hide

	geom     *geometryKeeper // remembers where the window is (geometry.go)
	saved    windowGeometry  // where it was last time
	restored bool            // saved is real (not the first launch)
}

func (s *shell) options(opts Options, handler http.Handler) *options.App {
	return &options.App{
		Title:     "Clawboo",
		Width:     s.saved.Width,
		Height:    s.saved.Height,
		MinWidth:  windowMinWidth,
		MinHeight: windowMinHeight,
		// The page, not the bindings, is the app: it talks HTTP to /api
		// through the asset server, exactly as it does in a browser.
		AssetServer: &assetserver.Options{Handler: handler},
		Linux: &linux.Options{
			Icon:        opts.Icon,
			ProgramName: "clawboo",
			// Wails picks Never when Linux is nil (wails#2977: blank
			// windows on some GPUs); a non-nil Linux would default to
			// Always, so keep Never explicitly.
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
		Logger:        wailsLogger{s.log.With("part", "wails")},
		OnStartup:     s.startup,
		OnDomReady:    s.domReady,
		OnBeforeClose: s.beforeClose,
	}
}

func (s *shell) startup(ctx context.Context) {
	s.ctx = ctx
	startWindow(s.geom, s.saved, s.restored, func(js string) { runtime.WindowExecJS(ctx, js) })
	s.startDesk(s.b, s.icon)
	close(s.started)
}

// domReady runs after every page load: WebKit's JavaScriptCore has by then
// installed signal handlers without SA_ONSTACK, which turn any nil
// dereference in any goroutine into a fatal crash; fixSignals restores the
// flag (platform.md §4.2).
func (s *shell) domReady(context.Context) {
	fixSignals()
	s.readyOnce.Do(func() { close(s.ready); settleMemory() })
	fmt.Fprintln(os.Stderr, ReadyMarker)
}

// quitOnSignal turns SIGINT/SIGTERM into a clean quit, the same path as
// closing the window; a second signal exits at once, for a shutdown that
// hangs.
//
// A quit is only acted on once the first page has loaded: runtime.Quit
// before GTK's main loop runs is silently lost (gtk_main_quit has no loop to
// stop), so an early signal is remembered rather than dropped. Wails v2.9.2
// also calls the same Quit on these signals from inside wails.Run; quitting
// twice is harmless (g_main_loop_quit is idempotent and thread-safe), and
// our handler is the one that covers the start-up window and the second
// signal.
func (s *shell) quitOnSignal(sigs <-chan os.Signal) {
	select {
	case sig := <-sigs:
		s.log.Info("quitting", "signal", sig.String())
	case <-s.finished:
		return
	}
	select {
	case <-s.ready:
		<-s.started // OnStartup runs before the page loads; s.ctx is set
		s.quitting.Store(true)
		runtime.Quit(s.ctx)
	case sig := <-sigs:
		s.log.Error("second signal before the window was up; exiting", "signal", sig.String())
		os.Exit(1)
	case <-s.finished:
		return
	}
	select {
	case sig := <-sigs:
		s.log.Error("second signal; exiting without a clean shutdown", "signal", sig.String())
		os.Exit(1)
	case <-s.finished:
	}
}
