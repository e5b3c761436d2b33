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
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawboo/desktop/backend/adapters/mock"
	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/api"
	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/devices"
	"github.com/clawboo/desktop/backend/dispatch"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/hosts"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/mcp/toolbroker"
	"github.com/clawboo/desktop/backend/notices"
	"github.com/clawboo/desktop/backend/orchestrate"
	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/quota"
	"github.com/clawboo/desktop/backend/remote"
	"github.com/clawboo/desktop/backend/routines"
	"github.com/clawboo/desktop/backend/runtimes"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/teams"
	"github.com/clawboo/desktop/backend/vault"
	"github.com/clawboo/desktop/backend/worktree"
)

// Options configure a Backend.
type Options struct {
	Config  config.Config
	UI      fs.FS // built frontend; nil serves a "not built" page
	Log     *slog.Logger
	Version string
	// Getenv and Environ read the process environment (nil = os's, set once
	// in New so no part below needs its own fallback); tests inject their
	// own.
	Getenv  func(string) string
	Environ func() []string
	// QuotaClock is the quota ledger's clock (nil: time.Now): tests step it
	// past a window's reset.
	QuotaClock func() time.Time
	// HostBuilds is the folder of the headless builds a host gets
	// (clawboo-<os>-<arch> and .sha256; `make package` ships them).
	HostBuilds string
	// Bridge starts the stdio MCP bridge (`clawboo mcp bridge`; the server's
	// URL is appended) for ACP agents that take MCP servers only as stdio
	// children. nil: those agents run without Clawboo's MCP servers.
	Bridge []string
	// HostServer: this is a host's server (`clawboo host`), which takes the
	// keys a desktop sends with a run (POST …/run {env}) and keeps them in
	// memory for that run only.
	HostServer bool
	// HostRecheck is how often a host found unreachable is looked at
	// again (default one minute).
	HostRecheck time.Duration
}

// Backend is a running Clawboo backend.
type Backend struct {
	Config     config.Config
	Store      *store.Store
	Registry   *executor.Registry
	Supervisor *supervisor.Supervisor
	Vault      *vault.Vault
	Catalog    *runtimes.Catalog
	API        *api.API
	// Auth checks the API token of every request over TCP (<home>/api-token,
	// made at the first start) and mints the browser's one-time login links.
	Auth *api.Auth
	log  *slog.Logger

	Board     *board.Board
	Worktrees *worktree.Manager // nil when git is missing
	Budget    *budget.Ledger
	MCP       *mcp.Hub
	listenURL atomic.Value // string, set by Listen
	Approvals *approval.Queue
	// Hosts are the other machines runs may go to, reached over SSH.
	Hosts *hosts.Service
	// Devices are the phones paired with this Clawboo (phone.go).
	Devices *devices.Service
	Tools   *toolbroker.Broker // clawboo-tools' broker, handed over by the hub
	// Agents owns agents and their native configs; its Load is what the
	// native adapter reads an agent's config through.
	Agents *agents.Service
	// Teams and Orchestrator make agents a team (docs/teams.md).
	Teams        *teams.Service
	Orchestrator *orchestrate.Engine
	// Routines fires agents' schedules (docs/routines.md), through the
	// door.
	Routines *routines.Service
	// door is the policy of the one door (backend/dispatch): admission,
	// deferred work, routine fires, readiness.
	door *dispatch.Door
	// Quota is the quota ledger and governor (docs/quota.md).
	Quota       *quota.Service
	quotaEvents *bus.Broker[quota.Event]
	stopQuota   context.CancelFunc

	resolver     *proc.Resolver
	placer       *remote.Placer // runs on hosts (hostsw.go)
	phone        *phoneLAN      // the phones' LAN listener, while it is on (phone.go)
	notices      *notices.Service
	watcher      *proc.Watcher
	boardEvents  *bus.Broker[board.Event]
	budgetEvents *bus.Broker[budget.Event]
	stopLoops    context.CancelFunc
	loops        sync.WaitGroup
	// runtimesChanged wakes live streams when a runtime's state may have
	// changed.
	runtimesChanged *bus.Broker[struct{}]
	// acp adds and removes a person's own ACP agents (acp.go).
	acp *acpAgents

	closeMu sync.Mutex
	closed  bool

	openClaw *openClawService    // set by openOpenClaw; nil when not registered
	ollama   *runtimes.OllamaURL // the saved Ollama address, overlaid on Getenv
}

// withDefaults fills the optional process-wide inputs once: a silent log
// and the real process environment.
func withDefaults(opts Options) Options {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ
	}
	return opts
}

// openHome makes the home and its API token, opens the database and
// starts the registry (with the mock first when the config enables it).
func openHome(ctx context.Context, opts Options) (*Backend, error) {
	cfg, log := opts.Config, opts.Log
	if err := cfg.EnsureHome(); err != nil {
		return nil, err
	}
	if _, err := config.EnsureAPIToken(cfg.Home); err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, cfg.DBPath())
	if err != nil {
		return nil, err
	}
	reg := executor.NewRegistry()
	b := &Backend{
		Config: cfg, Store: st, Registry: reg, log: log, runtimesChanged: bus.New[struct{}](0),
		Auth: api.NewAuth(api.AuthOptions{Home: cfg.Home}),
		door: &dispatch.Door{Registry: reg, Store: st, Log: log.With("part", "dispatch")},
	}
	if cfg.EnableMock {
		m := mock.New()
		if cfg.MockWorktrees {
			m = mock.NewWithWorktrees()
		}
		if err := reg.Register(m.WithAsk(b.askMock)); err != nil {
			st.Close()
			return nil, err
		}
	}
	return b, nil
}

// New opens the database, recovers from any crash, and builds the API.
func New(ctx context.Context, opts Options) (*Backend, error) {
	opts = withDefaults(opts)
	b, err := openHome(ctx, opts)
	if err != nil {
		return nil, err
	}
	st := b.Store
	if opts, err = b.withOllama(ctx, opts); err != nil {
		st.Close()
		return nil, fmt.Errorf("read the Ollama setting: %w", err)
	}
	b.openWork(opts)
	b.door.Board, b.door.Budget = b.Board, b.Budget
	if err := b.openQuota(ctx, opts.QuotaClock); err != nil {
		b.closeWork()
		st.Close()
		return nil, fmt.Errorf("open the quota ledger: %w", err)
	}
	sup, err := supervisor.New(ctx, supervisor.Options{
		Store: st, Registry: b.Registry, Log: b.log.With("part", "supervisor"), IdleTimeout: b.Config.IdleTimeout,
		Board: b.Board, Worktrees: b.Worktrees, Budget: b.Budget, TeamCritic: b.teamCritic, TaskSecrets: b.taskSecrets,
		Quota: b.door.Gate(), TeamMergeWhenGreen: b.teamMergeWhenGreen, AgentName: b.agentName, Place: b.place,
	})
	if err != nil {
		b.closeWork()
		st.Close()
		return nil, fmt.Errorf("start supervisor: %w", err)
	}
	b.Supervisor, b.door.Supervisor = sup, sup
	if err := b.startWork(ctx); err != nil {
		_ = b.Close(ctx)
		return nil, err
	}
	if err := b.openRuntimes(opts); err != nil {
		_ = b.Close(ctx)
		return nil, err
	}
	b.door.Catalog = b.Catalog
	if err := b.openMCP(ctx, opts.Version); err != nil {
		_ = b.Close(ctx)
		return nil, fmt.Errorf("start MCP servers: %w", err)
	}
	b.Agents = b.openAgents()
	b.door.Agents, b.door.Approvals = b.Agents, b.Approvals
	// clawboo-native needs the hub and the agents, so it joins the
	// registry last; the catalog reads the registry on every listing.
	if err := b.Registry.Register(b.openNative(opts)); err != nil {
		_ = b.Close(ctx)
		return nil, err
	}
	// The runtimes outside the process, in this order (the catalog lists
	// them in registration order). A new runtime is one more opener here.
	if err := b.register(opts, openClaude, openCodex, openHermes, openOpenClaw); err != nil {
		_ = b.Close(ctx)
		return nil, err
	}
	if b.acp, err = b.openACP(ctx, opts); err != nil {
		_ = b.Close(ctx)
		return nil, err
	}
	b.Hosts = b.openHosts(opts)
	if err := b.openTeams(ctx); err != nil {
		_ = b.Close(ctx)
		return nil, fmt.Errorf("start teams: %w", err)
	}
	b.door.Teams, b.door.Orchestrator = b.Teams, b.Orchestrator
	b.openRoutines()
	b.openDevices()
	b.openNotices(opts)
	b.API = b.openAPI(opts)
	if !opts.HostServer {
		b.resumePhones(ctx)
	}
	b.Routines.Start()
	b.startQuota()
	return b, nil
}

// openAPI builds the one http.Handler over every part.
func (b *Backend) openAPI(opts Options) *api.API {
	return api.New(api.Options{
		Agents: b.Agents, Teams: b.Teams, Orchestrator: b.Orchestrator, TeamProbes: b.door.Probes(),
		Store: b.Store, Supervisor: b.Supervisor, Catalog: b.Catalog, RuntimesChanged: b.runtimesChanged, UI: opts.UI,
		Board: b.Board, BoardEvents: b.boardEvents, Worktrees: b.Worktrees, Budget: b.Budget, BudgetEvents: b.budgetEvents,
		Routines: b.Routines, GatewayCron: b.door.GatewayCron, Quota: b.Quota, QuotaEvents: b.quotaEvents,
		MCP: b.MCP, MCPBaseURL: b.BaseURL, Approvals: b.Approvals, OpenClaw: b.openClaw.api(), Tools: b.Tools, Secrets: b.Vault, ACPAgents: b.acp,
		Hosts: b.Hosts, RunEnv: opts.HostServer, Devices: b.Devices, Pairing: b.pairing(opts), DevicesChanged: b.devicesChanged, Notices: b.notices,
		Log: b.log.With("part", "api"), Version: opts.Version, Autostart: config.Autostart{Getenv: opts.Getenv}, Auth: b.Auth,
	})
}

// openRuntimes builds the key vault, the binary resolver and the runtime
// catalog, and watches what can change a runtime's state: the folders CLIs
// are installed to, Codex's credential file and OpenClaw's .env.
func (b *Backend) openRuntimes(opts Options) error {
	getenv, environ := opts.Getenv, opts.Environ
	changed := func() { b.runtimesChanged.Publish(struct{}{}) }
	v, err := vault.Open(vault.Options{
		Home: b.Config.Home, Getenv: getenv, ForceFile: b.Config.FileVault,
		Log: b.log.With("part", "vault"), OnChange: changed,
	})
	if err != nil {
		return err
	}
	b.Vault = v
	if err := runtimes.MoveOllamaOutOfVault(context.Background(), v, b.ollama); err != nil {
		b.log.Warn("the Ollama URL an older version kept in the vault was not moved", "err", err)
	}
	b.resolver = proc.NewResolver(proc.ResolverOptions{Getenv: getenv, OnChange: changed, Log: b.log})
	b.Catalog = runtimes.NewCatalog(runtimes.Options{
		Registry: b.Registry, Vault: v, Resolver: b.resolver, Getenv: getenv, Environ: environ,
		EnableMock: b.Config.EnableMock, Ollama: b.ollama, OnChange: changed, Log: b.log.With("part", "runtimes"),
	})
	w, err := proc.NewWatcher(proc.WatcherOptions{Paths: b.Catalog.WatchPaths(), OnChange: changed, Log: b.log})
	if err != nil {
		b.log.Warn("credential files are not watched; logins are noticed on re-check", "err", err)
	} else {
		b.watcher = w
	}
	return nil
}

// openAgents builds the agents service: provider readiness from the vault
// (native) and the catalog (other runtimes), deletion guarded by the
// supervisor's live runs.
func (b *Backend) openAgents() *agents.Service {
	return agents.New(agents.Options{
		Store: b.Store, Budget: b.Budget, Vault: b.Vault, Log: b.log.With("part", "agents"),
		RuntimeReady: func(ctx context.Context, rt string) bool {
			ok, _ := b.door.Ready(ctx, rt)
			return ok
		},
		KnownRuntime: func(rt string) bool {
			_, ok := b.Catalog.Descriptor(executor.ID(rt))
			return ok || executor.ID(rt) == executor.OpenClaw
		},
		LiveAgent:  b.Supervisor.AgentLive,
		HostExists: b.hostExists,
	})
}

// Handler is the one http.Handler serving the API and the UI.
func (b *Backend) Handler() http.Handler { return b.API }

// LoginURL is a fresh one-time login link for a browser (after Listen).
func (b *Backend) LoginURL() (string, error) {
	if b.BaseURL() == "" {
		return "", errors.New("not listening yet")
	}
	return b.Auth.LoginURL(b.BaseURL())
}

// Close aborts live runs (bounded by ctx), flushes the ledger and closes the
// database, then the watchers and the vault.
func (b *Backend) Close(ctx context.Context) error {
	b.closeMu.Lock()
	defer b.closeMu.Unlock()
	if b.closed {
		return nil // closing twice (a test's cleanup after its own close) is harmless
	}
	b.closed = true
	var err error
	if b.phone != nil {
		b.phone.close() // no phone answers while the rest stops
	}
	b.closeNotices() // no notice goes out while the rest stops
	if b.Orchestrator != nil {
		b.Orchestrator.Shutdown() // no new turns or delegations while runs stop
	}
	if b.Routines != nil {
		b.Routines.Close() // no new fires; a fire cut short is recorded interrupted
	}
	if b.stopQuota != nil {
		b.stopQuota() // no deferred work is started again while runs stop
	}
	if b.Supervisor != nil {
		err = b.Supervisor.Close(ctx)
	}
	if b.Orchestrator != nil {
		b.Orchestrator.Close()
	}
	// A run's done can go out before its CLI has exited; adapters that own
	// children say when every one is reaped, so none outlives the app.
	if b.Registry != nil {
		for _, a := range b.Registry.List() {
			if w, ok := a.(executor.Waiter); ok {
				err = errors.Join(err, w.Wait(ctx))
			}
		}
	}
	b.openClaw.close()
	if b.MCP != nil {
		b.MCP.Close()
	}
	b.closeApprovals()
	if b.Hosts != nil {
		b.Hosts.Close()
	}
	b.closeWork()
	err = errors.Join(err, b.Store.Close())
	return errors.Join(err, b.closeRuntimes())
}

func (b *Backend) closeRuntimes() error {
	var errs []error
	if b.watcher != nil {
		errs = append(errs, b.watcher.Close())
	}
	if b.resolver != nil {
		errs = append(errs, b.resolver.Close())
	}
	if b.Vault != nil {
		errs = append(errs, b.Vault.Close())
	}
	b.runtimesChanged.Close()
	return errors.Join(errs...)
}

// teamCritic is the team's critic switch (backend/review); a team that
// cannot be read keeps the default, on.
func (b *Backend) teamCritic(ctx context.Context, teamID string) bool {
	if b.Teams == nil {
		return true
	}
	t, err := b.Teams.Get(ctx, teamID)
	if err != nil {
		return true
	}
	return t.Critic
}
