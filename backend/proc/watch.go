package proc

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watcher reports changes to a set of folders and files, including ones
// that do not exist yet: a missing path is watched through its nearest
// existing ancestor, and the watch moves down as folders appear. Changes
// are coalesced: a burst (an npm install writes thousands of files) calls
// OnChange once, Debounce after it settles.
type Watcher struct {
	fs       *fsnotify.Watcher
	targets  []string
	onChange func()
	debounce time.Duration
	log      *slog.Logger

	mu      sync.Mutex
	watched map[string]bool
	timer   *time.Timer
	closed  bool
	done    chan struct{}
}

// WatcherOptions configure a Watcher.
type WatcherOptions struct {
	// Paths are the folders and files to watch (absolute).
	Paths    []string
	OnChange func()
	Debounce time.Duration // default 150 ms
	Log      *slog.Logger
}

// NewWatcher starts watching.
func NewWatcher(opts WatcherOptions) (*Watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if opts.Debounce <= 0 {
		opts.Debounce = 150 * time.Millisecond
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.OnChange == nil {
		opts.OnChange = func() {}
	}
	w := &Watcher{
		fs: fw, onChange: opts.OnChange, debounce: opts.Debounce, log: opts.Log,
		watched: map[string]bool{}, done: make(chan struct{}),
	}
	for _, p := range opts.Paths {
		if p != "" && filepath.IsAbs(p) {
			w.targets = append(w.targets, filepath.Clean(p))
		}
	}
	w.rewatch()
	go w.loop()
	return w, nil
}

// rewatch points a watch at each target, or at its nearest existing
// ancestor while it does not exist. Files are watched through their folder,
// which also sees them being replaced by rename (editors, atomic writers).
func (w *Watcher) rewatch() {
	want := map[string]bool{}
	for _, t := range w.targets {
		dir := t
		if st, err := os.Stat(t); err != nil || !st.IsDir() {
			dir = filepath.Dir(t)
		}
		for {
			if st, err := os.Stat(dir); err == nil && st.IsDir() {
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
		want[dir] = true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	for d := range want {
		if !w.watched[d] {
			if err := w.fs.Add(d); err != nil {
				w.log.Debug("cannot watch", "path", d, "err", err)
				continue
			}
			w.watched[d] = true
		}
	}
	for d := range w.watched {
		if !want[d] {
			_ = w.fs.Remove(d)
			delete(w.watched, d)
		}
	}
}

func (w *Watcher) loop() {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				w.rewatch()
			}
			w.kick()
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.kick() // events were lost: assume everything changed
				continue
			}
			w.log.Debug("watch error", "err", err)
		}
	}
}

func (w *Watcher) kick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if w.timer == nil {
		w.timer = time.AfterFunc(w.debounce, w.fire)
		return
	}
	w.timer.Reset(w.debounce)
}

func (w *Watcher) fire() {
	w.mu.Lock()
	closed := w.closed
	w.mu.Unlock()
	if !closed {
		w.onChange()
	}
}

// Close stops watching; OnChange is not called afterwards.
func (w *Watcher) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	err := w.fs.Close()
	<-w.done
	return err
}
