// Package backend is the composition root: it builds every part of Clawboo
// from a Config, wires them together, and tears them down in order.
//
// Invariants:
//   - This is the only place that decides which adapters exist (the mock only
//     when the config enables it) and how parts are connected; parts never
//     find each other through globals.
//   - Close stops things in reverse order of start: no new runs, live runs
//     aborted and their children reaped, the ledger flushed, then the
//     database closed.
//   - Nothing here imports app/ or Wails; the desktop and the headless server
//     both drive the same Backend.
package backend

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"

	"github.com/clawboo/desktop/backend/adapters/mock"
	"github.com/clawboo/desktop/backend/api"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/runtimes"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
)

// Options configure a Backend.
type Options struct {
	Config  config.Config
	UI      fs.FS // built frontend; nil serves a "not built" page
	Log     *slog.Logger
	Version string
}

// Backend is a running Clawboo backend.
type Backend struct {
	Config     config.Config
	Store      *store.Store
	Registry   *executor.Registry
	Supervisor *supervisor.Supervisor
	API        *api.API
	log        *slog.Logger
}

// New opens the database, recovers from any crash, and builds the API.
func New(ctx context.Context, opts Options) (*Backend, error) {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg := opts.Config
	if err := cfg.EnsureHome(); err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, cfg.DBPath())
	if err != nil {
		return nil, err
	}
	reg := executor.NewRegistry()
	if cfg.EnableMock {
		if err := reg.Register(mock.New()); err != nil {
			st.Close()
			return nil, err
		}
	}
	sup, err := supervisor.New(ctx, supervisor.Options{
		Store: st, Registry: reg, Log: log.With("part", "supervisor"), IdleTimeout: cfg.IdleTimeout,
	})
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("start supervisor: %w", err)
	}
	b := &Backend{Config: cfg, Store: st, Registry: reg, Supervisor: sup, log: log}
	b.API = api.New(api.Options{
		Store: st, Supervisor: sup, Catalog: runtimes.NewCatalog(reg), UI: opts.UI,
		Log: log.With("part", "api"), Version: opts.Version,
	})
	return b, nil
}

// Handler is the one http.Handler serving the API and the UI.
func (b *Backend) Handler() http.Handler { return b.API }

// Close aborts live runs (bounded by ctx), flushes the ledger and closes the
// database.
func (b *Backend) Close(ctx context.Context) error {
	return errors.Join(b.Supervisor.Close(ctx), b.Store.Close())
}
