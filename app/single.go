//go:build desktop

package app

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/clawboo/desktop/backend/instance"
)

// AlreadyOpenMarker starts the line a second launch prints when it has
// raised the window of the desktop app already open on its home.
const AlreadyOpenMarker = "clawboo: Clawboo is already open"

// raiseTimeout bounds how long a second launch keeps asking the first to
// show its window (it may be starting, or just quitting: then the home
// comes free and this launch opens normally).
const raiseTimeout = 5 * time.Second

// takeHome holds the home for this desktop app (backend/instance), before
// the backend opens its database. When the desktop app already has it, it
// asks that one to show its window, says so, and returns nil, nil: this
// launch is done. When `clawboo serve` has it, it fails naming that one.
func takeHome(home string) (*instance.Lock, error) {
	deadline := time.Now().Add(raiseTimeout)
	for {
		lock, err := instance.Acquire(home, instance.Desktop)
		var inUse *instance.InUseError
		if !errors.As(err, &inUse) {
			return lock, err
		}
		if !inUse.Known || inUse.Holder.Mode != instance.Desktop {
			return nil, fmt.Errorf("%w — stop it, or set CLAWBOO_HOME to use another folder", err)
		}
		rerr := instance.Raise(inUse.Holder, time.Until(deadline))
		if rerr == nil {
			fmt.Fprintf(os.Stderr, "%s on %s (pid %d); showed its window\n", AlreadyOpenMarker, home, inUse.Holder.PID)
			return nil, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w, which did not show its window: %v", err, rerr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// raiseOnRequest records where the desktop serves, for a second launch's
// message, and shows the window each time a second launch asks.
func (s *shell) raiseOnRequest(lock *instance.Lock, url string) {
	if err := lock.SetURL(strings.TrimSuffix(url, "/")); err != nil {
		s.log.Warn("cannot record this instance", "err", err)
	}
	if err := lock.SocketErr(); err != nil {
		s.log.Warn("a second launch cannot show this window", "err", err)
		return
	}
	go func() {
		for {
			select {
			case <-lock.Raises():
			case <-s.finished:
				return
			}
			select {
			case <-s.started: // s.ctx and the desk are set
			case <-s.finished:
				return
			}
			s.log.Info("a second launch asked for the window")
			if d := s.desk.Load(); d != nil {
				d.openWindow()
			} else {
				runtime.WindowShow(s.ctx)
				runtime.WindowUnminimise(s.ctx)
			}
		}
	}()
}

// releaseHome frees the home, last of all.
func releaseHome(lock *instance.Lock, log *slog.Logger) {
	if err := lock.Release(); err != nil {
		log.Warn("release the home", "err", err)
	}
}
