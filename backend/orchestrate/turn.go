package orchestrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/redact"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/teams"
)

// turn is one live team turn.
type turn struct {
	runID string
	// started is closed once runID is set (or the run did not start): a
	// delegation, which can come from the run's first event, waits for it.
	// nil: the turn was made with its runID.
	started chan struct{}
	teamID  string
	agentID string
	name    string
	runtime string
	leader  bool
	repo    string
	// mission is the mission task the turn's delegations go under: given
	// for a follow-up, made at the turn's first delegation otherwise.
	mission string
	title   string // the mission's title when it has to be made
	fanout  int    // delegations this turn made (under Engine.mu)
	peer    bool   // a turn of a peer exchange: its reply may wake the next peer
}

// turnSpec says why a turn is taken.
type turnSpec struct {
	message string // what the agent is asked
	trigger int64  // the post that asked it (delivered with the turn, not repeated in its digest)
	mission string // the mission a follow-up continues ("" for a person's message)
	title   string // a new mission's title
	peer    bool   // part of a peer exchange
}

func key(team, agent string) string { return team + "\x00" + agent }

// Chat posts a person's message to the room and starts the turn of the
// leader, or of target when given. It returns the stored post and the
// turn's run id; a turn that cannot start leaves the post and a system note
// saying why, and returns the supervisor's error.
func (e *Engine) Chat(ctx context.Context, teamID, message, target string) (teams.Post, string, error) {
	team, err := e.o.Teams.Get(ctx, teamID)
	if err != nil {
		return teams.Post{}, "", err
	}
	var m teams.Member
	var ok bool
	if target != "" {
		if m, ok = team.Member(target); !ok {
			return teams.Post{}, "", fmt.Errorf("%w: '%s'", ErrNoMember, target)
		}
	} else if m, ok = team.Leader(); !ok {
		return teams.Post{}, "", ErrNoLeader
	}
	// A person speaking lifts the limits on waking the leader for mail and
	// on a peer exchange.
	e.mu.Lock()
	delete(e.fires, "wake:"+team.ID)
	delete(e.fires, "peer:"+team.ID)
	e.mu.Unlock()
	p := teams.Post{TeamID: team.ID, Author: teams.AuthorUser, Kind: teams.KindUser, Body: message}
	if target != "" {
		p.Assignee = m.AgentID
	}
	p, err = e.post(ctx, p)
	if err != nil {
		return teams.Post{}, "", err
	}
	// A member already taking a turn here reads the message in that turn
	// (at its next step) rather than in a second run of the same session.
	if live := e.LiveTurns(team.ID)[m.AgentID]; live != "" {
		res, err := e.o.Supervisor.Steer(ctx, live, executor.Steer{Text: message, Mode: executor.SteerNext})
		if err == nil && (res == executor.SteerDelivered || res == executor.SteerQueued) {
			e.markDelivered(ctx, team.ID, m.AgentID, []int64{p.Seq}, "signal")
			return p, live, nil
		}
	}
	runID, err := e.startTurn(ctx, team, m, turnSpec{message: message, trigger: p.Seq, title: missionTitle(redact.Secrets(message))})
	if err != nil {
		e.system(team.ID, fmt.Sprintf("@%s did not take a turn: %s", m.Name, words(err)))
		return p, "", err
	}
	return p, runID, nil
}

// startTurn starts one team turn of member m.
func (e *Engine) startTurn(ctx context.Context, team teams.Team, m teams.Member, spec turnSpec) (string, error) {
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if closed {
		return "", ErrClosed
	}
	t := &turn{
		teamID: team.ID, agentID: m.AgentID, name: m.Name, runtime: m.Runtime, leader: m.Role == "leader",
		mission: spec.mission, title: spec.title, peer: spec.peer, started: make(chan struct{}),
	}
	if team.RepoPath != nil {
		t.repo = *team.RepoPath
	}
	if spec.trigger > 0 {
		e.markDelivered(ctx, team.ID, m.AgentID, []int64{spec.trigger}, "digest")
	}
	mail, err := e.digest(ctx, team, m, DigestBudget)
	if err != nil {
		return "", err
	}
	p := supervisor.StartParams{
		RuntimeID: executor.ID(m.Runtime), AgentID: m.AgentID, TeamID: team.ID,
		Message: spec.message, Context: e.turnContext(ctx, team, m, mail), SessionKey: "team:" + team.ID + ":" + m.AgentID,
		Reason: "team-turn", IdleTimeout: IdleWatchdog, IdleToolOpen: IdleToolOpen,
	}
	if m.Runtime != string(executor.Native) {
		p.Model = m.Model
	}
	if t.leader {
		p.Delegate = func(ctx context.Context, d executor.Delegation) (string, error) {
			return e.delegate(ctx, t, d)
		}
	}
	// Registered before the run starts, so a delegate from its first event
	// finds its turn.
	e.mu.Lock()
	if t.leader {
		e.leading[key(team.ID, m.AgentID)] = t
	}
	e.mu.Unlock()
	h, err := e.o.Supervisor.Start(ctx, p)
	if err != nil {
		close(t.started)
		e.mu.Lock()
		if e.leading[key(team.ID, m.AgentID)] == t {
			delete(e.leading, key(team.ID, m.AgentID))
		}
		e.mu.Unlock()
		return "", err
	}
	e.mu.Lock()
	t.runID = h.ID
	e.turns[h.ID] = t
	e.mu.Unlock()
	close(t.started)
	e.markDelivered(context.Background(), team.ID, m.AgentID, mail.seqs, "digest")
	e.Live.Publish(LiveEvent{TeamID: team.ID, Kind: "turn", Turn: &TurnState{RunID: h.ID, AgentID: m.AgentID, Status: "running"}})
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.watch(t, h)
	}()
	return h.ID, nil
}

// watch streams a turn's text to the room's live channel and finishes the
// turn when its run ends.
func (e *Engine) watch(t *turn, h *supervisor.Handle) {
	wake, cancel := e.o.Supervisor.Watch(h.ID)
	defer cancel()
	var after int64
	done := make(chan struct{})
	var run store.Run
	var werr error
	go func() {
		run, werr = h.Wait(context.Background())
		close(done)
	}()
	read := func() {
		evs, err := e.o.Store.ListEvents(context.Background(), h.ID, after, 500)
		if err != nil {
			return
		}
		for _, r := range evs {
			after = r.Seq
			if r.Kind == string(executor.KindToolCall) && t.leader && t.runtime == string(executor.OpenClaw) {
				// OpenClaw delegates with its own sessions_send tool.
				var ev executor.Event
				if json.Unmarshal(r.Data, &ev) == nil {
					if d, ok := sessionsSend(ev); ok {
						_, _ = e.delegate(context.Background(), t, d)
					}
				}
				continue
			}
			if r.Kind != string(executor.KindTextDelta) {
				continue
			}
			var ev executor.Event
			if json.Unmarshal(r.Data, &ev) == nil && ev.Text != "" && ev.Channel != executor.ChannelReasoning {
				e.Live.Publish(LiveEvent{TeamID: t.teamID, Kind: "delta", Delta: &Delta{RunID: h.ID, AgentID: t.agentID, Text: ev.Text}})
			}
		}
	}
	for loop := true; loop; {
		select {
		case <-wake:
			read()
		case <-done:
			loop = false
		}
	}
	e.finishTurn(t, run, werr)
}

// finishTurn posts the turn's reply, acts on the delegation tags of its
// final summary, and forgets the turn.
func (e *Engine) finishTurn(t *turn, run store.Run, werr error) {
	ctx := context.Background()
	reason := run.Status
	if werr != nil && reason == "" {
		reason = "failed"
	}
	if run.Status == store.RunSucceeded {
		body := strings.TrimSpace(run.Summary)
		if body == "" {
			body = "(no reply)"
		}
		reply, _ := e.post(ctx, teams.Post{TeamID: t.teamID, Author: t.agentID, Kind: teams.KindPeer, Body: clip(body, maxReply)})
		if t.leader {
			e.actOnTags(ctx, t, run.Summary)
		}
		if t.peer && reply.Seq > 0 {
			e.peerWake(ctx, reply)
		}
	} else {
		msg := run.Error
		if msg == "" && werr != nil {
			msg = werr.Error()
		}
		if supervisor.StoppedByPerson(run) {
			// The person's stop: said once, and nothing follows it up.
			e.postAbout(t.teamID, "", teams.KindStop, fmt.Sprintf("Stopped by you: @%s's turn.", t.name))
		} else if scope, ok := strings.CutPrefix(msg, "budget_paused:"); ok {
			e.system(t.teamID, fmt.Sprintf("@%s was stopped: the %s budget is used up. Raise or resume it on the Spend page to continue.", t.name, scope))
		} else {
			e.system(t.teamID, fmt.Sprintf("@%s's turn ended %s%s", t.name, strings.ReplaceAll(reason, "_", " "), suffix(msg)))
		}
	}
	e.mu.Lock()
	delete(e.turns, t.runID)
	if e.leading[key(t.teamID, t.agentID)] == t {
		delete(e.leading, key(t.teamID, t.agentID))
	}
	mission := t.mission
	e.mu.Unlock()
	if mission != "" {
		// Children that ended while the turn was still delegating.
		e.settleMission(ctx, mission)
	}
	e.Live.Publish(LiveEvent{TeamID: t.teamID, Kind: "turn", Turn: &TurnState{RunID: t.runID, AgentID: t.agentID, Status: "ended", Reason: reason}})
}

// LiveTurns returns the live turns of a team as agent id → run id.
func (e *Engine) LiveTurns(teamID string) map[string]string {
	out := map[string]string{}
	e.mu.Lock()
	defer e.mu.Unlock()
	for id, t := range e.turns {
		if t.teamID == teamID {
			out[t.agentID] = id
		}
	}
	return out
}

func missionTitle(message string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(message), "\n")
	return "Mission: " + clip(line, 120)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func suffix(msg string) string {
	if msg = strings.TrimSpace(msg); msg == "" {
		return "."
	}
	return ": " + clip(msg, 500)
}

// words is an error as a person reads it.
func words(err error) string {
	var r *supervisor.Refusal
	if errors.As(err, &r) {
		return r.Msg
	}
	return err.Error()
}

// HasLiveTask reports whether a task of the team is being worked.
func (e *Engine) HasLiveTask(ctx context.Context, teamID string) bool {
	ts, err := e.o.Board.List(ctx, board.Filter{TeamID: teamID})
	if err != nil {
		return true // unknown: refuse rather than delete under a live run
	}
	for _, t := range ts {
		if t.RunID != nil && e.o.Supervisor.IsLive(*t.RunID) {
			return true
		}
	}
	return false
}

// sessionsSend reads an OpenClaw sessions_send tool call as a delegation:
// its sessionKey names the target agent ("agent:<id>:…"), its message is
// the task.
func sessionsSend(ev executor.Event) (executor.Delegation, bool) {
	if ev.Kind != executor.KindToolCall || ev.Name != "sessions_send" {
		return executor.Delegation{}, false
	}
	var in struct {
		SessionKey string `json:"sessionKey"`
		Message    string `json:"message"`
	}
	if json.Unmarshal(ev.Input, &in) != nil {
		return executor.Delegation{}, false
	}
	rest, ok := strings.CutPrefix(in.SessionKey, "agent:")
	if !ok {
		return executor.Delegation{}, false
	}
	id, _, _ := strings.Cut(rest, ":")
	if id == "" || strings.TrimSpace(in.Message) == "" {
		return executor.Delegation{}, false
	}
	return executor.Delegation{Assignee: id, Task: in.Message}, true
}
