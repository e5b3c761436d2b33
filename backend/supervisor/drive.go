package supervisor

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/redact"
	"github.com/clawboo/desktop/backend/store"
)

// Messages the host writes when it ends a run itself.
const (
	msgNoResult   = "runtime ended without a result"
	msgNotSaved   = "run events could not be saved"
	msgAbandoned  = "runtime did not stop after abort; abandoned"
	msgNotStarted = "aborted before the runtime started"
)

// liveRun is the host's state for one run in this process.
type liveRun struct {
	s       *Supervisor
	id      string
	adapter executor.Adapter
	params  StartParams
	em      *executor.Emitter

	// aborted ends when an abort is requested; a context rather than a
	// channel so the launch can be tied to it without a goroutine.
	aborted     context.Context
	requestStop context.CancelFunc
	stopWhy     atomic.Pointer[string] // who asked it to stop, in words (stop.go)
	abandon     chan struct{}
	abandonMu   sync.Once
	persistErr  atomic.Pointer[error]
	persistCh   chan struct{}
	persistMu   sync.Once

	task       *taskCtx      // nil for an ad-hoc run
	hider      *redact.Hider // hides the task's secret values (nil: none)
	sessionKey string        // the conversation the run belongs to, once started

	mu   sync.Mutex
	view store.Run    // the ledger row as the host knows it
	rt   executor.Run // the runtime's handle once started (for steer and model changes)

	// Kept by the drive goroutine alone, for the final write.
	doneRow    *store.NewEvent // the done event as recorded
	deltaBytes int64           // stored bytes of its text deltas (the retention size rule)

	finished  chan struct{}
	ended     atomic.Bool // the done event is recorded (readers may see it before finished closes)
	final     store.Run
	saveErr   error       // set when the final write failed (see finish)
	taskFinal *board.Task // the task as the run left it (task runs)
	successor string      // the run that continues this task after a turn limit
}

func newLiveRun(s *Supervisor, id string, a executor.Adapter, p StartParams, now int64) *liveRun {
	l := &liveRun{
		s: s, id: id, adapter: a, params: p, hider: p.hider,
		em:        executor.NewEmitter(executor.RunID(id), 0),
		abandon:   make(chan struct{}),
		persistCh: make(chan struct{}),
		finished:  make(chan struct{}),
	}
	l.aborted, l.requestStop = context.WithCancel(context.Background())
	l.view = store.Run{
		ID: id, RuntimeID: string(p.RuntimeID), Title: title(firstNonEmpty(p.title, p.Message)),
		Prompt: runPrompt(p.hider.Hide(p.Message)), Status: store.RunStarting, CreatedAt: now,
	}
	if p.AgentID != "" {
		agent := p.AgentID
		l.view.AgentID = &agent
	}
	return l
}

func (l *liveRun) snapshot() store.Run {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.view
}

func (l *liveRun) requestAbort() { l.requestStop() }
func (l *liveRun) abandonNow()   { l.abandonMu.Do(func() { close(l.abandon) }) }

func (l *liveRun) persistFailed(err error) {
	l.persistErr.CompareAndSwap(nil, &err)
	l.persistMu.Do(func() { close(l.persistCh) })
}

// outcome accumulates what the events said, for the ledger row.
type outcome struct {
	lastSeq    int64
	done       *executor.Event
	fatalMsg   string
	usage      executor.Usage
	timedOut   bool
	abandoned  bool
	notStarted bool // aborted while the runtime was still launching
	hostError  string
	session    string // the runtime's own session id, last reported

	// What the run spent, as charged to the ledger while it ran.
	spend spent
	// budgetStop names the cap budget that stopped the run.
	budgetStop string
	// quotaStop is the rejected window that stopped a task run (quota.go).
	quotaStop *executor.QuotaWindow
}

func (o *outcome) observe(ev executor.Event) {
	o.lastSeq = ev.Seq
	switch ev.Kind {
	case executor.KindCost:
		if ev.Usage != nil {
			o.usage.InputTokens += ev.Usage.InputTokens
			o.usage.OutputTokens += ev.Usage.OutputTokens
		}
	case executor.KindError:
		if ev.Fatal {
			o.fatalMsg = ev.Message
		}
	case executor.KindStatus:
		if ev.Session != "" {
			o.session = ev.Session
		}
	case executor.KindDone:
		d := ev
		o.done = &d
	}
}

// drive runs one run from launch to its saved result.
func (l *liveRun) drive() {
	s := l.s
	defer s.wg.Done()
	defer l.requestStop() // releases the abort context
	defer s.forget(l.id)
	var o outcome
	defer func() {
		// A bug in the host loop itself must still leave a terminal record.
		if p := recover(); p != nil {
			s.opts.Log.Error("run host panicked", "run", l.id, "panic", fmt.Sprint(p))
			l.em.Abandon()
			o.hostError = fmt.Sprintf("host error: %v", p)
			l.finish(&o)
		}
	}()

	// The run's context bounds its whole life (cancelling it is a hard
	// stop). While the runtime is still launching there is nothing to stop
	// gracefully, so an abort then cancels the launch itself.
	ctx, cancel := context.WithCancel(s.root)
	defer cancel()
	stopLaunchWatch := context.AfterFunc(l.aborted, cancel)
	req := executor.StartRequest{
		RunID: executor.RunID(l.id), AgentID: l.params.AgentID, Message: l.params.Message,
		Context: l.params.Context, Model: l.params.Model, WorkDir: l.params.workDir, Emitter: l.em,
		SessionKey: l.params.SessionKey, TeamID: l.params.TeamID, Delegate: l.params.Delegate,
		MCPFrom: l.params.MCP,
	}
	if l.task != nil && !l.prepareTask(ctx, &req, &o) {
		stopLaunchWatch()
		l.em.Abandon()
		l.finish(&o)
		return
	}
	for k, v := range l.params.Env {
		if req.Env == nil {
			req.Env = map[string]string{}
		}
		if _, host := req.Env[k]; !host { // this host's ports and secrets come first
			req.Env[k] = v
		}
	}
	req.Resume = l.resumeFor(ctx, req.SessionKey)
	l.sessionKey = req.SessionKey
	run, err := safeStart(ctx, l.adapter, req)
	stopLaunchWatch()
	if err != nil {
		l.em.Abandon()
		if ctx.Err() != nil {
			o.notStarted = true
		} else {
			o.hostError = "start: " + err.Error()
		}
		l.finish(&o)
		return
	}
	started := s.opts.Now().UnixMilli()
	l.mu.Lock()
	l.rt = run
	l.view.Status = store.RunRunning
	l.view.StartedAt = &started
	l.mu.Unlock()
	s.journal.submit(op{kind: opRunning, runID: l.id, at: started})
	s.Updates.PublishMust(l.snapshot())

	events, err := safeEvents(run)
	if err != nil {
		l.em.Abandon()
		o.hostError = err.Error()
		l.finish(&o)
		return
	}
	l.consume(run, events, &o)
	l.finish(&o)
}

// prepareTask readies a task run's launch: its session and team, its
// ports and the vault secrets it names in the runtime's environment, and
// the repository's setup. It reports false, with o saying why, when the
// run cannot start.
func (l *liveRun) prepareTask(ctx context.Context, req *executor.StartRequest, o *outcome) bool {
	req.SessionKey = "task:" + l.task.task.ID
	req.TeamID = l.task.scopes.TeamID
	req.Env = board.PortEnv(l.task.ports) // never logged
	secrets, hider, err := l.taskSecrets(ctx)
	if err != nil {
		o.hostError = "secrets: " + err.Error()
		return false
	}
	if req.Env == nil && len(secrets) > 0 {
		req.Env = map[string]string{}
	}
	for k, v := range secrets {
		if _, host := req.Env[k]; !host {
			req.Env[k] = v
		}
	}
	l.hider = hider
	// A run on a host gets its worktree, setup and ports there.
	return l.task.wt == nil || l.params.hostID != "" || l.setupPhase(ctx, o)
}

// consume reads events until done, a closed stream, or abandonment.
func (l *liveRun) consume(run executor.Run, events <-chan executor.Event, o *outcome) {
	s := l.s
	open := map[string]bool{} // tool calls with no result yet
	idleFor := func() time.Duration { return l.idleLimit(len(open) > 0) }
	idle := time.NewTimer(idleFor())
	defer idle.Stop()
	var grace <-chan time.Time
	stopping := false
	stop := func(reason string) {
		if stopping {
			return
		}
		stopping = true
		s.opts.Log.Info("stopping run", "run", l.id, "reason", reason)
		safeAbort(run)
		t := time.NewTimer(s.opts.AbortGrace)
		grace = t.C
	}
	abortReq, persistCh := l.aborted.Done(), l.persistCh
	var heartbeat <-chan time.Time
	if l.task != nil {
		t := time.NewTicker(s.opts.HeartbeatEvery)
		defer t.Stop()
		heartbeat = t.C
	}
	for {
		select {
		case <-heartbeat:
			l.heartbeat()
		case ev, ok := <-events:
			if !ok {
				o.noResult()
				return
			}
			stopTimer(idle)
			switch ev.Kind {
			case executor.KindToolCall:
				if len(open) < 1024 { // bounded: a flood of unanswered calls cannot grow it
					open[ev.ToolCallID] = true
				}
			case executor.KindToolResult:
				delete(open, ev.ToolCallID)
			}
			idle.Reset(idleFor())
			l.take(o, ev)
			if scope := l.account(ev, o); scope != "" && o.budgetStop == "" {
				o.budgetStop = scope
				stop("budget paused: " + scope)
			}
			if ev.Kind == executor.KindQuota && ev.Quota != nil && l.quotaSeen(o, *ev.Quota) {
				stop("quota window rejected: " + ev.Quota.Window)
			}
			if ev.Kind == executor.KindDone {
				return
			}
		case <-idle.C:
			o.timedOut = true
			stop("idle timeout")
		case <-abortReq:
			abortReq = nil
			stop("abort requested")
		case <-persistCh:
			persistCh = nil
			o.notSaved(*l.persistErr.Load())
			stop("events not saved")
		case <-grace:
			o.abandoned = true
			l.drainAbandoned(events, o)
			return
		case <-l.abandon:
			o.abandoned = true
			l.drainAbandoned(events, o)
			return
		}
	}
}

// drainAbandoned keeps what the adapter already sent, then stops reading.
func (l *liveRun) drainAbandoned(events <-chan executor.Event, o *outcome) {
	l.em.Abandon()
	for {
		select {
		case ev, ok := <-events:
			if !ok || ev.Kind == executor.KindDone {
				if ok {
					l.take(o, ev)
				}
				return
			}
			l.take(o, ev)
		default:
			return
		}
	}
}

// record queues one event for the ledger.
func (l *liveRun) record(ev executor.Event) {
	if ev.Kind == executor.KindDone {
		l.ended.Store(true)
	}
	data, err := json.Marshal(ev)
	if err != nil { // cannot happen for Event; keep the seq honest anyway
		data = []byte(fmt.Sprintf(`{"runId":%q,"seq":%d,"kind":"error","message":"unencodable event"}`, l.id, ev.Seq))
	}
	switch ev.Kind {
	case executor.KindTextDelta:
		l.deltaBytes += int64(len(data))
	case executor.KindDone:
		l.doneRow = &store.NewEvent{RunID: l.id, Seq: ev.Seq, Kind: string(ev.Kind), Data: data}
	}
	l.s.journal.submit(op{kind: opEvent, runID: l.id, seq: ev.Seq, ekind: string(ev.Kind), data: data, onFail: l.persistFailed})
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// safeStart calls Start, turning a panic into an error.
func safeStart(ctx context.Context, a executor.Adapter, req executor.StartRequest) (run executor.Run, err error) {
	defer func() {
		if p := recover(); p != nil {
			run, err = nil, fmt.Errorf("runtime crashed while starting: %v", p)
		}
	}()
	run, err = a.Start(ctx, req)
	if err == nil && run == nil {
		err = fmt.Errorf("runtime returned no run")
	}
	return run, err
}

// safeEvents calls Events, turning a panic into an error.
func safeEvents(run executor.Run) (ch <-chan executor.Event, err error) {
	defer func() {
		if p := recover(); p != nil {
			ch, err = nil, fmt.Errorf("runtime crashed: %v", p)
		}
	}()
	ch = run.Events()
	if ch == nil {
		return nil, fmt.Errorf("runtime returned no event stream")
	}
	return ch, nil
}

// safeAbort calls Abort with a bound, ignoring panics: the grace timer
// decides what happens next.
func safeAbort(run executor.Run) {
	go func() {
		defer func() { _ = recover() }()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = run.Abort(ctx)
	}()
}

// idleLimit is how long the run may be silent: the supervisor's limit or
// the run's own, and longer while a tool call is open when the run says so.
func (l *liveRun) idleLimit(toolOpen bool) time.Duration {
	d := l.s.opts.IdleTimeout
	if l.params.IdleTimeout > 0 {
		d = l.params.IdleTimeout
	}
	if toolOpen && l.params.IdleToolOpen > d {
		d = l.params.IdleToolOpen
	}
	return d
}

// heartbeat tells the board the run still holds its task.
func (l *liveRun) heartbeat() {
	if err := l.s.opts.Board.Heartbeat(context.Background(), l.task.task.ID, l.id); err != nil {
		l.s.opts.Log.Warn("task heartbeat failed", "run", l.id, "err", err)
	}
}

// stopTimer stops t and empties its channel, so a Reset starts afresh.
func stopTimer(t *time.Timer) {
	if !t.Stop() {
		select {
		case <-t.C:
		default:
		}
	}
}

// noResult records a stream that closed with no done: the adapter's own
// fatal words, when it gave any, say why.
func (o *outcome) noResult() {
	switch {
	case o.hostError != "":
	case o.fatalMsg == "":
		o.hostError = msgNoResult
	default:
		o.hostError = msgNoResult + ": " + o.fatalMsg
	}
}

// notSaved records that the run's events could not be stored (a full disk
// in those words), unless a host error was recorded first.
func (o *outcome) notSaved(err error) {
	switch {
	case o.hostError != "":
	case store.IsDiskFull(err):
		o.hostError = msgDiskFull + ": " + msgNotSaved
	default:
		o.hostError = fmt.Sprintf("%s: %v", msgNotSaved, err)
	}
}
