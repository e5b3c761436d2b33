// Package supervisor hosts runs: it starts a run on an adapter, consumes its
// events, records them in the runs ledger, publishes them live, and keeps
// the process safe from adapters that misbehave.
//
// Invariants:
//   - Every run the supervisor starts reaches exactly one terminal status in
//     the ledger, and its stored event log ends with exactly one done event,
//     whatever the adapter does: a stream that closes without done fails the
//     run ("runtime ended without a result"); a panic in Start, Events or an
//     adapter goroutine fails only that run; a run silent for longer than the
//     idle timeout is aborted and recorded as timed_out; an adapter that
//     ignores an abort is abandoned after a grace period.
//   - A caller going away never stops a run; only Abort or Close does.
//   - A run's row, events and run-end spend are persisted in order through
//     one writer (the journal): one batch at a time, many runs' writes
//     sharing a commit (group commit), a short run's whole life in the one
//     commit that answers its result. No event the host read is dropped;
//     when they cannot be saved (a full disk) the run is stopped with a
//     clear error rather than streaming on.
//   - A run's result is reported (Handle.Wait, Live) only once its row is
//     durable. A final write that fails after the journal's retries ends the
//     run failed in memory, saying its result was not saved; the host never
//     shows it running or succeeded, and keeps writing that row with a
//     backoff until it lands (persist.go).
//   - Identical warnings and errors are logged once per window, with a
//     count (ratelog.go), so a failing disk cannot flood the log.
//   - Finished runs' text deltas are compacted past the retention budgets
//     (retention.go), off the runs' path and never while someone streams
//     the run for the size rule.
//   - Readers tail the store (Watch wakes them after each commit), so a
//     replay and a live stream are the same code path.
//   - At start-up, runs a previous process left live are marked failed.
//   - A task's branch is merged only through Land (landing.go), one merge
//     at a time: a person's merge and merge-when-green share it. A verified
//     change with a diff waits in review; it is done once merged (`merged`
//     recorded in the same transaction as the move), or closed by a person.
package supervisor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/redact"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/worktree"
)

// Errors callers can match.
var (
	ErrUnknownRuntime = errors.New("unknown runtime")
	ErrUnknownRun     = errors.New("unknown run")
	ErrRunFinished    = errors.New("run already finished")
	ErrClosed         = errors.New("supervisor is shutting down")
)

// Options configure a Supervisor.
type Options struct {
	Store    *store.Store
	Registry *executor.Registry
	Log      *slog.Logger
	// Board, Worktrees and Budget make task runs possible (each may be nil
	// for a supervisor of ad-hoc runs only; Budget nil records no spend).
	Board     *board.Board
	Worktrees *worktree.Manager
	Budget    *budget.Ledger
	// HeartbeatEvery keeps a task's claim alive (default 30 s).
	HeartbeatEvery time.Duration
	// VerifyTimeout bounds a task's verify command (default 10 minutes),
	// SetupTimeout its repository's .clawboo/setup (default 10 minutes).
	VerifyTimeout time.Duration
	SetupTimeout  time.Duration
	// MaxTaskDepth refuses tasks nested deeper (default board.MaxDepth,
	// which the board already enforces at creation).
	MaxTaskDepth int
	// IdleTimeout aborts a run silent for this long (default 30 minutes).
	IdleTimeout time.Duration
	// AbortGrace is how long an aborted run may take to end before the host
	// abandons it (default 10 seconds).
	AbortGrace time.Duration
	// RetentionEvery is how often runs past the age budget have their
	// events compacted (default 10 minutes), and RetentionGrace how long
	// after a run ends, and its last reader left, the size budget waits
	// (default 1 minute); see retention.go.
	RetentionEvery time.Duration
	RetentionGrace time.Duration
	// TeamCritic reports whether a team lets the critic review its tasks'
	// auto-mode changes (nil: every team does; see backend/review).
	TeamCritic func(ctx context.Context, teamID string) bool
	// TaskSecrets reads the values of the vault secrets a task names; an
	// error (one is missing) fails the run before the runtime starts. nil
	// gives a task that names secrets none (and fails it).
	TaskSecrets func(ctx context.Context, names []string) (map[string]string, error)
	// Quota is the quota governor (nil: no work is held back; quota.go).
	Quota QuotaGate
	// TeamMergeWhenGreen reports whether a team has Clawboo merge its
	// tasks' verified changes (nil: no team does; landing.go), AgentName
	// an agent's name for the trailer of a merge commit (nil or "": none).
	TeamMergeWhenGreen func(ctx context.Context, teamID string) bool
	AgentName          func(ctx context.Context, agentID string) string
	// Place answers where an agent's runs go (in the team teamID's work,
	// "" for none): "" for this computer (a is used as it is), else a host
	// and the adapter that runs a there (backend/remote). An error refuses
	// the run before anything is claimed. nil: every run is here.
	Place func(ctx context.Context, agentID, teamID string, a executor.Adapter) (executor.Adapter, string, error)
	Now   func() time.Time
}

// Supervisor owns every live run of this process.
type Supervisor struct {
	opts      Options
	journal   *journal
	resave    *resaver
	retention *retention
	drivers   *drivers

	// Updates carries run lifecycle changes (created, running, finished).
	Updates *bus.Broker[store.Run]

	watchMu  sync.Mutex
	watchers map[string]map[chan struct{}]struct{}

	root   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	live map[string]*liveRun
	// claiming are task runs whose claim is committed (the task already
	// names them) while their workspace is still being made: the API
	// answers for them as "starting" instead of "unknown run".
	claiming map[string]store.Run
	closed   bool

	// landing serializes Land: one merge at a time (landing.go).
	landing sync.Mutex
}

// New makes a supervisor and fails any run a previous process left live.
func New(ctx context.Context, opts Options) (*Supervisor, error) {
	if opts.Store == nil || opts.Registry == nil {
		return nil, errors.New("supervisor: store and registry are required")
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	// A failure that repeats is logged once per window, not per write.
	opts.Log = slog.New(newRateLimited(opts.Log.Handler(), logWindow, time.Now))
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 30 * time.Minute
	}
	if opts.AbortGrace <= 0 {
		opts.AbortGrace = 10 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.HeartbeatEvery <= 0 {
		opts.HeartbeatEvery = 30 * time.Second
	}
	if opts.MaxTaskDepth <= 0 {
		opts.MaxTaskDepth = board.MaxDepth
	}
	if opts.VerifyTimeout <= 0 {
		opts.VerifyTimeout = worktree.DefaultVerifyTimeout
	}
	if opts.SetupTimeout <= 0 {
		opts.SetupTimeout = worktree.DefaultSetupTimeout
	}
	s := &Supervisor{
		opts:     opts,
		Updates:  bus.New[store.Run](500 * time.Millisecond),
		live:     map[string]*liveRun{},
		claiming: map[string]store.Run{},
		watchers: map[string]map[chan struct{}]struct{}{},
	}
	s.journal = newJournal(opts.Store, opts.Log, s.notify)
	s.root, s.cancel = context.WithCancel(context.Background())
	if err := s.recoverOrphans(ctx); err != nil {
		s.journal.close()
		s.cancel()
		return nil, err
	}
	s.resave = newResaver()
	s.retention = newRetention(s, opts.RetentionEvery, opts.RetentionGrace)
	s.drivers = newDrivers()
	go s.resaveLoop()
	go s.retention.loop()
	return s, nil
}

// Carry is a task run's place in its chain of runs.
type Carry struct {
	// Generation counts the successors since the first run of this task
	// hit its turn limit (each starts a fresh session).
	Generation int
	// Fixes counts the critic's fix runs so far in this chain (critic.go).
	Fixes int
	// ContinueSession resumes the task's last session even in a successor:
	// the run that was stopped mid-way (a quota pause) goes on where it was.
	ContinueSession bool
}

// StartParams describe a run to start: an ad-hoc message, or a board task.
type StartParams struct {
	RuntimeID executor.ID
	Message   string
	Context   string
	AgentID   string
	Model     string
	// TaskID runs a board task (claim, worktree, verification, ledger).
	TaskID string
	// Kind and RepoPath override the task's own.
	Kind     string
	RepoPath string
	// SessionKey names the conversation the run continues (an agent's
	// 1:1 chat is "agent:<id>:chat"); a task run's is always "task:<id>".
	SessionKey string
	// TeamID makes an ad-hoc run a team turn: it counts against the team's
	// budget and binds the run's MCP sessions to the team (a task run takes
	// its task's team instead).
	TeamID string
	// Delegate lets the run delegate (a team leader's turn only).
	Delegate executor.DelegateFunc
	// Env is what a desktop sent a host's server with the run (the
	// runtime's keys, the task's secrets): given to the runtime's child,
	// kept in memory for this run only, never recorded or logged.
	Env map[string]string
	// MCP is the desktop's MCP attachment a host's server was sent with the
	// run (executor.StartRequest.MCPFrom); kept in memory, never recorded.
	MCP *executor.CarriedMCP
	// Reason says why the run was started (chat, team-turn, delegation,
	// routine, api); it is logged with the run's start.
	Reason string
	// IdleTimeout, when set, replaces Options.IdleTimeout for this run, and
	// IdleToolOpen applies instead while a tool call has no result yet
	// (a team's idle watchdog: 8 minutes, 24 with a tool open).
	IdleTimeout  time.Duration
	IdleToolOpen time.Duration

	// Carry is what work brings along from the run it continues: set by
	// the runner for successors and fix runs, and by the composition root
	// for work coming back after a quota deferral. Zero for new work.
	Carry Carry

	workDir string // the task's worktree, set by the runner
	title   string // what people read for the run ("" = the message's first line): never an id
	// scopes charges an ad-hoc run to a task's budgets (the critic's),
	// and hider hides that task's secret values in what it records (the
	// diff it reviews may hold one).
	scopes *budget.Scopes
	hider  *redact.Hider
	// routedFrom is the runtime the governor moved the work away from.
	routedFrom executor.ID
	routedWhy  string
	// hostID is the host the run goes to ("": this computer); its
	// repository's setup runs there, not here.
	hostID string
}

// Start records a new run and launches it on its runtime; the run proceeds
// in the background. Until it ends, Live answers for it.
func (s *Supervisor) Start(ctx context.Context, p StartParams) (*Handle, error) {
	a, ok := s.opts.Registry.Get(p.RuntimeID)
	if !ok {
		return nil, fmt.Errorf("%w '%s'", ErrUnknownRuntime, p.RuntimeID)
	}
	var tc *taskCtx
	var id string
	if p.TaskID != "" {
		var err error
		if tc, id, err = s.startTask(ctx, &a, &p); err != nil {
			return nil, err
		}
		p.Message = taskMessage(tc.task, p.Message)
		p.title = tc.task.Title
	} else {
		var err error
		if id, err = s.startAdHoc(ctx, &a, &p); err != nil {
			return nil, err
		}
	}
	now := s.opts.Now().UnixMilli()
	var agent *string
	if p.AgentID != "" {
		agent = &p.AgentID
	}
	l := newLiveRun(s, id, a, p, now)
	l.setTask(tc)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		if tc != nil {
			s.unclaiming(id)
			_, _ = s.opts.Board.Release(context.Background(), tc.task.ID, id, "Not started: Clawboo is shutting down.")
		}
		return nil, ErrClosed
	}
	s.live[id] = l
	delete(s.claiming, id)
	s.wg.Add(1)
	s.mu.Unlock()

	// The row is written with the run's first events rather than waited for:
	// until the run ends, the live view answers for it, and a row that
	// cannot be written stops the run like any lost event.
	create := op{
		kind: opCreate, runID: id, runtimeID: string(p.RuntimeID), agentID: agent,
		title: l.view.Title, prompt: l.view.Prompt, at: now, model: p.Model, onFail: l.persistFailed, reviewKey: reviewKey(p.SessionKey),
	}
	if tc != nil {
		// A claim already names this run: its row must exist before the
		// run can do anything, or a crash right now would leave a claim
		// pointing at nothing. (Ad-hoc runs skip the wait; see above.)
		create.taskID, create.teamID = tc.task.ID, tc.scopes.TeamID
		if err := s.journal.call(context.Background(), create); err != nil {
			s.forget(id)
			s.wg.Done()
			_, _ = s.opts.Board.Release(context.Background(), tc.task.ID, id, "Not started: the run could not be recorded.")
			return nil, fmt.Errorf("record run: %w", err)
		}
	} else {
		create.teamID = p.TeamID
		s.journal.submit(create)
	}
	if p.hostID != "" {
		if err := s.opts.Store.SetRunHost(context.Background(), id, p.hostID); err != nil {
			s.opts.Log.Warn("the run's host not recorded", "run", id, "err", err)
		}
	}
	if p.Reason != "" {
		s.opts.Log.Debug("run started", "run", id, "reason", p.Reason, "runtime", p.RuntimeID, "agent", p.AgentID, "team", l.view.TeamID)
	}
	s.Updates.PublishMust(l.snapshot())
	s.drivers.drive(l)
	return &Handle{ID: id, live: l}, nil
}

// setTask makes l a run of task tc (nil: an ad-hoc run) and fills the
// view's task, team and model.
func (l *liveRun) setTask(tc *taskCtx) {
	l.task = tc
	if tc != nil {
		l.view.TaskID = &tc.task.ID
		if tc.scopes.TeamID != "" {
			l.view.TeamID = &tc.scopes.TeamID
		}
	} else if l.params.TeamID != "" {
		l.view.TeamID = &l.params.TeamID
	}
	if l.params.Model != "" {
		l.view.Model = &l.params.Model
	}
	if l.params.hostID != "" {
		l.view.HostID = &l.params.hostID
	}
}

// Abort is a person's stop of a live run: it ends aborted with an error
// starting StoppedByYou, and that work is not started again until a person
// asks. It returns ErrUnknownRun or ErrRunFinished when there is nothing
// to abort.
func (s *Supervisor) Abort(ctx context.Context, id string) error {
	return s.abort(ctx, id, StoppedByYou)
}

// AbortAll asks every live run to stop (the tray's "Pause all runs"): task
// runs end aborted with their work committed to the task's branch and the
// task released, exactly as a single abort leaves them. It returns how many
// runs were asked.
func (s *Supervisor) AbortAll() int {
	s.mu.Lock()
	runs := make([]*liveRun, 0, len(s.live))
	for _, l := range s.live {
		runs = append(runs, l)
	}
	s.mu.Unlock()
	n := 0
	for _, l := range runs {
		if !l.ended.Load() {
			l.stopAsk(StoppedByYou + " (Pause all runs)")
			n++
		}
	}
	return n
}

// LiveCount is how many runs are live in this process.
func (s *Supervisor) LiveCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.live)
}

// IsLive reports a run still in this process (for the board's sweep).
func (s *Supervisor) IsLive(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live[id] != nil
}

// AgentLive reports whether any run of agentID is still in this process
// (so the agent cannot be deleted from under it).
func (s *Supervisor) AgentLive(agentID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.live {
		if l.params.AgentID == agentID {
			return true
		}
	}
	return false
}

// Live returns the host's own view of a run, when it has one that the
// ledger may not show yet: a run still in this process, or one that ended
// but whose result is not saved (which Live reports as it ended).
func (s *Supervisor) Live(id string) (store.Run, bool) {
	s.mu.Lock()
	l := s.live[id]
	c, claiming := s.claiming[id]
	s.mu.Unlock()
	if l != nil {
		return l.snapshot(), true
	}
	if claiming {
		return c, true
	}
	return s.unsaved(id)
}

// Pending reports whether more of a run's events may still become durable:
// it is live in this process, or claimed and about to start.
func (s *Supervisor) Pending(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, claiming := s.claiming[id]
	return s.live[id] != nil || claiming
}

// claimed notes a task run whose claim is committed but which is not live
// yet (its worktree is being made).
func (s *Supervisor) claimed(id string, v store.Run) {
	s.mu.Lock()
	s.claiming[id] = v
	s.mu.Unlock()
}

// unclaiming forgets a run that will not start after its claim, and wakes
// anyone streaming it so they see it gone.
func (s *Supervisor) unclaiming(id string) {
	s.mu.Lock()
	delete(s.claiming, id)
	s.mu.Unlock()
	s.notify(id)
}

// Close aborts every live run, waits for them to end (bounded by ctx, after
// which they are abandoned), and flushes the ledger.
func (s *Supervisor) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	runs := make([]*liveRun, 0, len(s.live))
	for _, l := range s.live {
		runs = append(runs, l)
	}
	s.mu.Unlock()

	// The reason first: cancelling the runs' context can end a run before
	// its stop is asked, and it must still say Clawboo's shutdown stopped it.
	for _, l := range runs {
		l.stopAsk(stopShutdown)
	}
	s.cancel()
	waited := make(chan struct{})
	go func() { s.wg.Wait(); close(waited) }()
	var err error
	select {
	case <-waited:
	case <-ctx.Done():
		for _, l := range runs {
			l.abandonNow()
		}
		<-waited
		err = fmt.Errorf("runs did not stop in time: %w", ctx.Err())
	}
	s.drivers.close()
	s.retention.close()
	s.stopResaver()
	s.journal.close()
	s.Updates.Close()
	return err
}

func (s *Supervisor) forget(id string) {
	s.mu.Lock()
	delete(s.live, id)
	s.mu.Unlock()
}
