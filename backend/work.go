package backend

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/worktree"
)

// How the board is kept honest in the background.
const (
	sweepEvery = time.Minute      // look for claims whose run died
	staleAfter = 3 * time.Minute  // a claim with no heartbeat this long is suspect
	gcEvery    = time.Hour        // reap old worktrees
	gcMaxAge   = 72 * time.Hour   // a worktree untouched this long is reaped
	gcPerRepo  = 25               // at most this many worktrees per repository
	gcDelay    = 30 * time.Second // first GC after start-up, off the start path
)

// openWork builds the board, the worktree manager and the cost ledger. A
// machine without git still serves the board; code tasks then answer
// workspace_unavailable.
func (b *Backend) openWork(opts Options) {
	b.boardEvents = bus.New[board.Event](0)
	b.budgetEvents = bus.New[budget.Event](0)
	b.Board = board.New(board.Options{Store: b.Store, Events: b.boardEvents, Log: b.log.With("part", "board")})
	b.Budget = budget.New(budget.Options{Store: b.Store, Events: b.budgetEvents, Log: b.log.With("part", "budget")})
	// Setup, verify and teardown see the task's leased ports and the
	// vault secrets it names.
	taskEnv := func(taskID string) map[string]string {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ports, err := b.Board.Ports(ctx, taskID)
		if err != nil {
			b.log.Warn("task ports unreadable", "task", taskID, "err", err)
		}
		env := board.PortEnv(ports)
		if t, err := b.Board.Get(ctx, taskID); err == nil && len(t.Secrets) > 0 {
			vals, err := b.taskSecrets(ctx, t.Secrets)
			if err != nil {
				b.log.Warn("task secrets unreadable; its script runs without them", "task", taskID, "err", err)
			}
			if env == nil {
				env = map[string]string{}
			}
			for k, v := range vals {
				env[k] = v
			}
		}
		return env
	}
	wm, err := worktree.New(worktree.Options{Home: b.Config.Home, Environ: opts.Environ, TaskEnv: taskEnv, Log: b.log.With("part", "worktree")})
	if err != nil {
		b.log.Warn("code tasks cannot run: no worktrees", "err", err)
		return
	}
	b.Worktrees = wm
}

// startWork releases the claims a crash left behind (no run is live at
// start-up, so every claim held by a run is dead), then starts the stale
// sweep and worktree garbage collection.
func (b *Backend) startWork(ctx context.Context) error {
	released, err := b.Board.ReleaseDead(ctx, 0, func(string) bool { return false })
	if err != nil {
		return err
	}
	if len(released) > 0 {
		b.log.Warn("released tasks whose runs died with the last process", "tasks", len(released))
	}
	loopCtx, stop := context.WithCancel(context.Background())
	b.stopLoops = stop
	b.loops.Add(1)
	go func() {
		defer b.loops.Done()
		b.maintain(loopCtx)
	}()
	return nil
}

func (b *Backend) maintain(ctx context.Context) {
	sweep := time.NewTicker(sweepEvery)
	defer sweep.Stop()
	gc := time.NewTimer(gcDelay)
	defer gc.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-sweep.C:
			staleMs := staleAfter.Milliseconds()
			if ids, err := b.Board.ReleaseDead(ctx, staleMs, b.Supervisor.IsLive); err != nil {
				b.log.Warn("stale sweep failed", "err", err)
			} else if len(ids) > 0 {
				b.log.Warn("released stale claims", "tasks", ids)
			}
		case <-gc.C:
			gc.Reset(gcEvery)
			if b.Worktrees == nil {
				continue
			}
			removed, err := b.Worktrees.GC(ctx, worktree.GCPolicy{
				MaxAge: gcMaxAge, MaxPerRepo: gcPerRepo,
				Keep: func(taskID string) bool { return b.Board.Protected(ctx, taskID) },
			})
			if err != nil {
				b.log.Warn("worktree GC failed", "err", err)
			}
			for _, id := range removed {
				_ = b.Board.SetWorktreeStatus(ctx, id, "paused")
			}
			b.janitor(ctx)
		}
	}
}

// janitor prunes dependency folders from finished worktrees and keeps each
// repository's finished worktrees within the disk budget; a worktree it
// pauses is recorded paused (its port lease freed).
func (b *Backend) janitor(ctx context.Context) {
	budget, err := b.Board.WorktreeBudget(ctx)
	if err != nil {
		b.log.Warn("worktree budget unreadable; no budget this pass", "err", err)
	}
	rep, err := b.Worktrees.Janitor(ctx, worktree.JanitorPolicy{
		BudgetPerRepo: budget,
		Finished:      func(taskID string) bool { return b.Board.Finished(ctx, taskID) },
	})
	if err != nil {
		b.log.Warn("worktree janitor failed", "err", err)
	}
	for _, id := range rep.Removed() {
		_ = b.Board.SetWorktreeStatus(ctx, id, "paused")
	}
	if len(rep.Reclaimed) > 0 {
		b.log.Info("worktree janitor reclaimed disk", "bytes", rep.TotalBytes, "tasks", len(rep.Reclaimed), "paused", rep.Removed())
		if err := b.Board.SetJanitorReport(ctx, rep); err != nil {
			b.log.Warn("janitor report not kept", "err", err)
		}
	}
}

// closeWork stops the background loops and the board's claim writer.
func (b *Backend) closeWork() {
	if b.stopQuota != nil {
		b.stopQuota() // its timer is one of the loops waited for below
	}
	if b.stopLoops != nil {
		b.stopLoops()
		b.loops.Wait()
		b.stopLoops = nil
	}
	if b.Board != nil {
		b.Board.Close()
	}
	if b.boardEvents != nil {
		b.boardEvents.Close()
		b.budgetEvents.Close()
	}
}

// taskSecrets reads the vault secrets a task names (for its runtime and
// its setup, verify and teardown): every one must be stored and may not
// take a name the host owns or a provider key's; the error names the
// first that fails, never a value.
func (b *Backend) taskSecrets(ctx context.Context, names []string) (map[string]string, error) {
	if b.Vault == nil {
		return nil, errors.New("no vault is open")
	}
	out := make(map[string]string, len(names))
	for _, n := range names {
		if proc.HostOwned(n) || slices.Contains(config.ProviderEnvVars(), n) {
			return nil, fmt.Errorf("%s may not be a task secret's name", n)
		}
		v, ok := b.Vault.TaskSecret(ctx, n)
		if !ok {
			return nil, fmt.Errorf("%s is not in the vault (add it in Settings → Secrets)", n)
		}
		out[n] = v
	}
	return out, nil
}
