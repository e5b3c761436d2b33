// Package orchestrate makes a team work as one: a person's message in the
// room becomes a team turn of the leader (or a named member) on its own
// runtime; the leader's delegations become board tasks that members work
// through the task runner; finished children report up to the room and, in
// a batched [Task Update], back to the leader for a follow-up turn.
//
// Invariants:
//   - All work enters through one door: every team turn and every
//     delegated task is a supervisor.Start with a reason ("team-turn",
//     "delegation"); nothing here runs a runtime itself.
//   - Delegation signals are typed only: the StartRequest.Delegate callback
//     (native's delegate tool, the mock's !delegate), a signed team_delegate
//     MCP call from the live turn of that leader, and <delegate>/<plan> tags
//     in a turn's final summary. Only a leader's turn is given a Delegate;
//     an MCP delegate from an agent with no live leader turn in that team is
//     refused. Free text in the middle of a run is never read as a signal.
//   - An unknown or ambiguous assignee creates nothing and is answered with
//     the members' names. Every limit hit (fan-out 8 a turn, 3 automatic
//     follow-ups a mission, 3 failed starts a delegation) is a system post in
//     the room saying what was refused: never silence. Every team run has
//     an idle watchdog: 8 minutes of silence stops it, 24 while a tool call
//     is open.
//   - A delegation's state is durable (the delegations table), so a restart
//     in the middle loses nothing: a child whose run died is dispatched
//     again, an ended child not yet reported is reported once. A child's end
//     is reported to the leader exactly once (ended → reported in one
//     conditional update before the follow-up turn starts).
//   - Mail (posts an agent has not seen) is delivered at most once per
//     agent, marked durably in team_deliveries: in a run-start digest
//     (addressed first, then ambient, within a 4,000-character budget), or
//     as a live signal to a native run.
//   - Posts are published on Posts only after they are stored, and stored
//     scrubbed of secret-looking tokens (a run's summary may quote a key).
//   - A person's stop is final (stop.go): a delegation whose run a person
//     stopped, or that was waiting when they pressed Stop, is 'stopped' and
//     nothing automatic (the pump, recovery, a quota resume, a plan's next
//     step, a [Task Update]) starts it again; only a person's run of its
//     task does (watch.go). A stop is told in the room once, by task title
//     and member name, and never wakes the leader.
//   - Posts about a task carry its id; a mission is in progress while a
//     child is open, in review while one waits for a person, else done.
package orchestrate

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/redact"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/teams"
)

// The reference's limits.
const (
	MaxFanout       = 8                // delegations one turn may make
	MaxAutoFires    = 3                // automatic follow-up turns of one mission
	MaxFailures     = 3                // failed starts of one delegation before it is given up
	MaxExchange     = 5                // turns of one peer exchange (until a person speaks)
	UpdateWindow    = 3 * time.Second  // [Task Update]s of one team are batched this long
	DigestBudget    = 4000             // characters of room posts in a run's context
	PumpEvery       = time.Minute      // the dispatch pump's period
	IdleWatchdog    = 8 * time.Minute  // a team run silent this long is stopped…
	IdleToolOpen    = 24 * time.Minute // …or this long while a tool call is open
	pumpFirst       = 10 * time.Second
	maxReply        = 16 << 10 // bytes of a turn's reply kept in the room
	maxSummaryShown = 2000     // characters of a child's summary in a report-up
)

// Errors callers can match.
var (
	ErrNoLeader = errors.New("the team has no leader: choose one first")
	ErrNoMember = errors.New("not a member of this team")
	ErrClosed   = errors.New("orchestrator is shutting down")
)

// Options wire an Engine.
type Options struct {
	Store       *store.Store
	Teams       *teams.Service
	Board       *board.Board
	BoardEvents *bus.Broker[board.Event] // may be nil: no board events in rooms
	Supervisor  *supervisor.Supervisor
	Budget      *budget.Ledger // may be nil: no team cost today
	Log         *slog.Logger
	Now         func() time.Time
	// UpdateWindow and PumpEvery override the defaults (tests).
	UpdateWindow time.Duration
	PumpEvery    time.Duration
}

// LiveEvent is what a room's stream carries besides posts: a turn's text
// (lossy), a turn starting or ending, a team task changing.
type LiveEvent struct {
	TeamID string
	Kind   string // delta, turn, board
	Delta  *Delta
	Turn   *TurnState
	Task   *BoardChange
}

// Delta is live text of a turn.
type Delta struct {
	RunID   string `json:"runId"`
	AgentID string `json:"agentId"`
	Text    string `json:"text"`
}

// TurnState is a turn starting or ending.
type TurnState struct {
	RunID   string `json:"runId"`
	AgentID string `json:"agentId"`
	Status  string `json:"status"` // running, ended
	Reason  string `json:"reason,omitempty"`
}

// BoardChange is a team task changing.
type BoardChange struct {
	TaskID          string  `json:"taskId"`
	Title           string  `json:"title"`
	Status          string  `json:"status"`
	AssigneeAgentID *string `json:"assigneeAgentId"`
}

// Engine runs teams.
type Engine struct {
	o Options
	// Posts carries every stored post of every room (PublishMust).
	Posts *bus.Broker[teams.Post]
	// Live carries deltas, turn states and board changes (lossy).
	Live *bus.Broker[LiveEvent]

	mu      sync.Mutex
	turns   map[string]*turn       // live turns by run id
	leading map[string]*turn       // live leader turns by team+"\x00"+agent
	batch   map[string]*time.Timer // pending [Task Update] per team
	fires   map[string]int         // automatic follow-ups per mission task
	closed  bool
	// dispatching holds the delegations a dispatch is starting right now:
	// the delegate path, a finished dependency and the pump may all try
	// the same one at once, and only one may claim its task.
	dispatching sync.Map
	// pumps counts the dispatch pump's passes (mission control shows it,
	// so a test can see the pump ran rather than sleep past it).
	pumps atomic.Int64
	// inReview and merged are the delegated tasks seen in review (a
	// claim after it is a send-back) and those whose merge the room was
	// told of (watch.go), under mu.
	inReview map[string]bool
	merged   map[string]bool
	// stopped is when a person last pressed Stop on a team (key(team, ""))
	// or a member (key(team, agent)), Unix ms, under mu: a turn the quota
	// held before it is not taken (resume.go).
	stopped map[string]int64

	root   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New makes an engine; Start begins its background work.
func New(o Options) *Engine {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.UpdateWindow <= 0 {
		o.UpdateWindow = UpdateWindow
	}
	if o.PumpEvery <= 0 {
		o.PumpEvery = PumpEvery
	}
	e := &Engine{
		o: o, Posts: bus.New[teams.Post](0), Live: bus.New[LiveEvent](0),
		turns: map[string]*turn{}, leading: map[string]*turn{}, batch: map[string]*time.Timer{}, fires: map[string]int{},
		inReview: map[string]bool{}, merged: map[string]bool{}, stopped: map[string]int64{},
	}
	e.root, e.cancel = context.WithCancel(context.Background())
	return e
}

// Start recovers delegations a previous process left in the middle, then
// starts the dispatch pump and the board forwarder.
func (e *Engine) Start(ctx context.Context) error {
	if err := e.recover(ctx); err != nil {
		return err
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.pumpLoop()
	}()
	if e.o.BoardEvents != nil {
		sub := e.o.BoardEvents.Subscribe(256)
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			defer sub.Close()
			e.forwardBoard(sub)
		}()
	}
	return nil
}

// Shutdown stops new work before the supervisor stops the live runs: no
// turn or delegation starts after it, and children ended by the shutdown
// are left for the next start's recovery (not counted as failures).
func (e *Engine) Shutdown() {
	e.mu.Lock()
	e.closed = true
	for _, t := range e.batch {
		t.Stop()
	}
	e.mu.Unlock()
	e.cancel()
}

// Close waits for the engine's goroutines, once the supervisor has ended
// the runs they wait on.
func (e *Engine) Close() {
	e.Shutdown()
	e.wg.Wait()
}

func (e *Engine) isClosed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

func (e *Engine) forwardBoard(sub *bus.Subscription[board.Event]) {
	for {
		select {
		case <-e.root.Done():
			return
		case ev, ok := <-sub.C():
			if !ok {
				return
			}
			if ev.Task == nil || ev.Task.TeamID == nil {
				continue
			}
			t := ev.Task
			e.onTask(*t)
			e.Live.Publish(LiveEvent{TeamID: *t.TeamID, Kind: "board", Task: &BoardChange{
				TaskID: t.ID, Title: t.Title,
				Status: string(t.Status), AssigneeAgentID: t.AssigneeAgentID,
			}})
		}
	}
}

// post stores a post and publishes it.
func (e *Engine) post(ctx context.Context, p teams.Post) (teams.Post, error) {
	p.RoomID = p.TeamID
	p.CreatedAt = e.o.Now().UnixMilli()
	p.Body = redact.Secrets(p.Body) // a summary or a message may carry a key
	seq, err := teams.AppendPost(ctx, e.o.Store, p)
	if err != nil {
		e.o.Log.Error("team room post not stored", "team", p.TeamID, "err", err)
		return teams.Post{}, err
	}
	p.Seq = seq
	e.Posts.PublishMust(p)
	e.signal(p)
	return p, nil
}

// system posts the orchestrator's own note (a limit hit, a refusal).
func (e *Engine) system(teamID, body string) {
	_, _ = e.post(context.Background(), teams.Post{TeamID: teamID, Author: teams.AuthorSystem, Kind: teams.KindSystem, Body: body})
}

// Posted is told of a post another part stored (the TeamChat MCP server):
// it is read back and published like the engine's own.
func (e *Engine) Posted(teamID string, seq int64) {
	ps, _, _, err := teams.ReadPosts(context.Background(), e.o.Store, teamID, seq-1, "", 1)
	if err != nil || len(ps) == 0 {
		return
	}
	e.Posts.PublishMust(ps[0])
	e.signal(ps[0])
	if ps[0].Kind == teams.KindPeer {
		e.peerWake(context.Background(), ps[0])
	}
}
