package remote

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/hosts"
	"github.com/clawboo/desktop/backend/worktree"
)

// Options wire the placer.
type Options struct {
	Hosts     *hosts.Service
	Worktrees *worktree.Manager
	Board     *board.Board
	Log       *slog.Logger
	// Keys are the runtime's keys from this computer's vault (env name →
	// value), sent with each run to the host's server, which keeps them in
	// memory for that run's child only. nil: none.
	Keys func(ctx context.Context, runtime executor.ID) map[string]string
	// Attach is a run's attachment to this computer's MCP servers (its run
	// token, revoked when ctx ends, and each server's path), sent with the
	// run for the host to reach through the reverse-forwarded socket.
	// ok false: nothing to attach. nil: runs on hosts get no MCP servers.
	Attach func(ctx context.Context, req executor.StartRequest) (token string, paths map[string]string, ok bool, err error)
	// Approvals is this computer's queue: what a run on a host asks a
	// person is asked here, naming the host (nil: asked only there).
	Approvals *approval.Queue
	// Reattach is how long a dropped link is tried again before the run
	// is lost (default 2 minutes).
	Reattach time.Duration
}

// Placer makes the adapters that run a runtime on a host.
type Placer struct {
	o Options

	mu     sync.Mutex
	clones map[string]string // host id + repository key → the clone's path there, once made with a commit
}

// New makes a placer.
func New(o Options) *Placer {
	if o.Reattach <= 0 {
		o.Reattach = 2 * time.Minute
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Placer{o: o, clones: map[string]string{}}
}

// Adapter stands for inner on the host hostID.
func (p *Placer) Adapter(inner executor.Adapter, hostID string) executor.Adapter {
	return &adapter{p: p, inner: inner, host: hostID}
}

type adapter struct {
	p     *Placer
	inner executor.Adapter
	host  string
}

func (a *adapter) ID() executor.ID                     { return a.inner.ID() }
func (a *adapter) Name() string                        { return a.inner.Name() }
func (a *adapter) Capabilities() executor.Capabilities { return a.inner.Capabilities() }

// Health is the host's: ready, or its state in words.
func (a *adapter) Health(ctx context.Context) executor.Health {
	h, err := a.p.o.Hosts.Get(ctx, a.host)
	if err != nil {
		return executor.Health{Message: err.Error()}
	}
	if h.State != hosts.Ready {
		return executor.Health{Message: h.Name + ": " + string(h.State) + " " + h.Reason}
	}
	return executor.Health{OK: true}
}

// Start reaches the host, sends the task's branch there and starts the
// run on the host's server; its events follow from there.
func (a *adapter) Start(ctx context.Context, req executor.StartRequest) (executor.Run, error) {
	r := &run{a: a, req: req, id: req.RunID, em: req.Emitter, stopped: make(chan struct{})}
	if err := r.launch(ctx); err != nil {
		return nil, err
	}
	r.em.Go(r.follow)
	return r, nil
}
