package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/redact"
	"github.com/clawboo/desktop/backend/teams"
	"github.com/oklog/ulid/v2"
)

// refusal is a delegation refused with a reason the leader and the room
// are told.
func (e *Engine) refuseDelegation(teamID, why string) error {
	e.system(teamID, "Nothing delegated: "+why)
	return errors.New(why)
}

// delegate acts on one delegation signal of turn t and records it in the
// room. deps are tasks the new one waits for (a plan's earlier steps).
func (e *Engine) delegate(ctx context.Context, t *turn, d executor.Delegation, deps ...string) (string, error) {
	if t.started != nil { // a delegation from the run's first event: its turn knows its run first
		select {
		case <-t.started:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	ctx = context.WithoutCancel(ctx)
	if out, ok, err := e.toGateway(ctx, t, d); ok {
		return out, err
	}
	id, err := e.makeDelegation(ctx, t, d, deps...)
	if err != nil {
		return "", err
	}
	row, err := e.loadDelegation(ctx, id)
	if err != nil {
		return "", err
	}
	m, _ := e.member(ctx, t.teamID, row.assignee)
	out := fmt.Sprintf("Delegated to @%s as task %s; you will get a [Task Update] when it ends.", m.Name, row.taskID)
	if werr := e.dispatch(ctx, id); werr != nil {
		out = fmt.Sprintf("Delegated to @%s as task %s, but it could not start yet (%s); it will be retried.", m.Name, row.taskID, words(werr))
	}
	return out, nil
}

func (e *Engine) member(ctx context.Context, teamID, agentID string) (teams.Member, teams.Team) {
	team, err := e.o.Teams.Get(ctx, teamID)
	if err != nil {
		return teams.Member{AgentID: agentID, Name: agentID}, team
	}
	m, ok := team.Member(agentID)
	if !ok {
		m = teams.Member{AgentID: agentID, Name: agentID}
	}
	return m, team
}

// makeDelegation checks a signal against the team and the limits, makes
// the child task under the turn's mission and records the delegation.
func (e *Engine) makeDelegation(ctx context.Context, t *turn, d executor.Delegation, deps ...string) (string, error) {
	team, err := e.o.Teams.Get(ctx, t.teamID)
	if err != nil {
		return "", err
	}
	m, err := team.Resolve(d.Assignee)
	if err != nil {
		return "", e.refuseDelegation(team.ID, err.Error())
	}
	if m.AgentID == t.agentID {
		return "", e.refuseDelegation(team.ID, fmt.Sprintf("@%s cannot delegate to itself", t.name))
	}
	// Scrubbed once here for every signal: the text becomes a board task, a
	// post and a member's prompt.
	task := redact.Secrets(strings.TrimSpace(d.Task))
	if task == "" {
		return "", e.refuseDelegation(team.ID, fmt.Sprintf("the delegation to @%s has no task", m.Name))
	}
	if len(task) > 16<<10 {
		return "", e.refuseDelegation(team.ID, fmt.Sprintf("the task for @%s is over 16 KiB", m.Name))
	}
	// An agent never picks a repository: a delegation works in the team's
	// (or names it again), so a leader cannot point a member's worktree and
	// writes at some other repository on the machine.
	repo := t.repo
	if r := strings.TrimSpace(d.RepoPath); r != "" && r != t.repo {
		return "", e.refuseDelegation(team.ID, fmt.Sprintf("the task for @%s names the repository %q; a delegation may only use the team's repository", m.Name, clip(r, 200)))
	}
	undo, err := e.takeFanout(team.ID, t, m)
	if err != nil {
		return "", err
	}
	kind := board.Kind(d.Kind)
	if !kind.Valid() {
		kind = board.Research
		if repo != "" {
			kind = board.Code
		}
	}
	if kind == board.Code && repo == "" {
		undo()
		return "", e.refuseDelegation(team.ID, fmt.Sprintf("the code task for @%s needs a repository: give repoPath, or set the team's repository", m.Name))
	}
	mission, err := e.ensureMission(ctx, t)
	if err != nil {
		undo()
		return "", e.refuseDelegation(team.ID, "the mission task could not be made: "+err.Error())
	}
	child, err := e.o.Board.Create(ctx, board.NewTask{
		Title: taskTitle(task), Description: task, Kind: kind, TeamID: team.ID,
		ParentID: mission, RepoPath: repo, AssigneeRuntime: m.Runtime, AssigneeAgentID: m.AgentID,
	})
	if err != nil {
		undo()
		return "", e.refuseDelegation(team.ID, fmt.Sprintf("the task for @%s was not made: %v", m.Name, err))
	}
	for _, dep := range deps {
		if _, err := e.o.Board.Link(ctx, child.ID, dep); err != nil {
			e.o.Log.Warn("plan step not chained", "task", child.ID, "after", dep, "err", err)
		}
	}
	id := ulid.Make().String()
	now := e.o.Now().UnixMilli()
	if _, err := e.o.Store.Writer().ExecContext(ctx, `INSERT INTO delegations(id, team_id, turn_run_id, leader_id, assignee_id, mission_id,
		task_id, depth, status, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?, 'pending', ?, ?)`,
		id, team.ID, t.runID, t.agentID, m.AgentID, mission, child.ID, child.Depth, now, now); err != nil {
		undo()
		return "", fmt.Errorf("record the delegation: %w", err)
	}
	_, _ = e.post(ctx, teams.Post{TeamID: team.ID, Author: t.agentID, Kind: teams.KindDelegate, Body: task, Assignee: m.AgentID, TaskID: child.ID})
	return id, nil
}

// ensureMission returns the turn's mission task, making it at the turn's
// first delegation.
func (e *Engine) ensureMission(ctx context.Context, t *turn) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t.mission != "" {
		return t.mission, nil
	}
	title := clip(board.OneLine(t.title), 100)
	if title == "" {
		title = "Mission"
	}
	mt, err := e.o.Board.Create(ctx, board.NewTask{
		Title: title, Description: "The team's mission; the tasks under it are the delegations.",
		Status: board.Backlog, Kind: board.Research, TeamID: t.teamID, RepoPath: t.repo,
	})
	if err != nil {
		return "", err
	}
	// The mission is under way while its children are: in progress, never
	// claimable (it goes through todo in two steps, never committed alone
	// for long).
	for _, st := range []board.Status{board.Todo, board.InProgress} {
		if _, err := e.o.Board.Update(ctx, mt.ID, board.Patch{Status: &st}); err != nil {
			e.o.Log.Warn("mission not moved", "mission", mt.ID, "to", st, "err", err)
			break
		}
	}
	t.mission = mt.ID
	return mt.ID, nil
}

func taskTitle(task string) string {
	line, _, _ := strings.Cut(task, "\n")
	line = board.OneLine(line)
	if line == "" {
		line = "Delegated task"
	}
	return clip(line, 100)
}

// The summary tags: <delegate to="@Name">task</delegate> and
// <plan><step to="@Name">task</step>…</plan>.
var (
	planTag     = regexp.MustCompile(`(?s)<plan>(.*?)</plan>`)
	stepTag     = regexp.MustCompile(`(?s)<step\s+to\s*=\s*"([^"\n]{1,128})"\s*>(.*?)</step>`)
	delegateTag = regexp.MustCompile(`(?s)<delegate\s+to\s*=\s*"([^"\n]{1,128})"\s*>(.*?)</delegate>`)
)

// tagged is one delegation found in a summary; step > 0 for a plan's steps.
type tagged struct {
	to, task string
	plan     int // which plan (1-based); 0 for a lone delegate
}

func parseTags(summary string) []tagged {
	var out []tagged
	rest := summary
	for i, pm := range planTag.FindAllStringSubmatch(summary, 8) {
		for _, sm := range stepTag.FindAllStringSubmatch(pm[1], MaxFanout+1) {
			out = append(out, tagged{to: sm[1], task: strings.TrimSpace(sm[2]), plan: i + 1})
		}
	}
	rest = planTag.ReplaceAllString(rest, "")
	for _, dm := range delegateTag.FindAllStringSubmatch(rest, MaxFanout+1) {
		out = append(out, tagged{to: dm[1], task: strings.TrimSpace(dm[2])})
	}
	return out
}

// actOnTags turns a leader's summary tags into delegations; a plan's steps
// become a chain, each waiting for the one before.
func (e *Engine) actOnTags(ctx context.Context, t *turn, summary string) {
	prev := map[int]string{}
	for _, tg := range parseTags(summary) {
		var deps []string
		if tg.plan > 0 && prev[tg.plan] != "" {
			deps = []string{prev[tg.plan]}
		}
		d := executor.Delegation{Assignee: tg.to, Task: tg.task}
		if _, ok, _ := e.toGateway(ctx, t, d); ok {
			continue
		}
		id, err := e.makeDelegation(ctx, t, d, deps...)
		if err != nil {
			continue // refused with a room post
		}
		row, err := e.loadDelegation(ctx, id)
		if err != nil {
			continue
		}
		if tg.plan > 0 {
			prev[tg.plan] = row.taskID
		}
		_ = e.dispatch(ctx, id)
	}
}

// DelegateFromMCP acts on a signed team_delegate call: only the live turn
// of that team's leader may delegate, whatever the session's flag says.
func (e *Engine) DelegateFromMCP(ctx context.Context, teamID, agentID, assignee, task string) (string, error) {
	e.mu.Lock()
	t := e.leading[key(teamID, agentID)]
	e.mu.Unlock()
	if t == nil {
		return "", e.refuseDelegation(teamID, fmt.Sprintf("a team_delegate from %s was refused: only the team leader's live turn may delegate", agentID))
	}
	return e.delegate(ctx, t, executor.Delegation{Assignee: assignee, Task: task})
}

// toGateway delivers a delegation to an OpenClaw member as a team turn in
// its Gateway session (the task runner does not run OpenClaw, so there is
// no board task): ok is false for a member on any other runtime.
func (e *Engine) toGateway(ctx context.Context, t *turn, d executor.Delegation) (string, bool, error) {
	team, err := e.o.Teams.Get(ctx, t.teamID)
	if err != nil {
		return "", false, nil
	}
	m, err := team.Resolve(d.Assignee)
	if err != nil || m.Runtime != string(executor.OpenClaw) || m.AgentID == t.agentID {
		return "", false, nil
	}
	task := redact.Secrets(strings.TrimSpace(d.Task))
	if task == "" {
		return "", true, e.refuseDelegation(team.ID, fmt.Sprintf("the delegation to @%s has no task", m.Name))
	}
	if _, err := e.takeFanout(team.ID, t, m); err != nil {
		return "", true, err
	}
	_, _ = e.post(ctx, teams.Post{TeamID: team.ID, Author: t.agentID, Kind: teams.KindDelegate, Body: task, Assignee: m.AgentID})
	if _, err := e.startTurn(ctx, team, m, turnSpec{message: fmt.Sprintf("@%s asks you: %s", t.name, task)}); err != nil {
		e.system(team.ID, fmt.Sprintf("@%s did not take the task: %s", m.Name, words(err)))
		return "", true, err
	}
	return fmt.Sprintf("Delivered to @%s's OpenClaw session as a team turn (OpenClaw does not take board tasks); its answer will be in the room.", m.Name), true, nil
}

// takeFanout counts one delegation of turn t against the fan-out limit;
// undo gives it back when the delegation is not made after all.
func (e *Engine) takeFanout(teamID string, t *turn, m teams.Member) (undo func(), err error) {
	e.mu.Lock()
	full := t.fanout >= MaxFanout
	if !full {
		t.fanout++
	}
	e.mu.Unlock()
	if full {
		return nil, e.refuseDelegation(teamID, fmt.Sprintf("@%s's turn already delegated %d tasks, the most one turn may (fan-out limit); the task for @%s was not made",
			t.name, MaxFanout, m.Name))
	}
	return func() { e.mu.Lock(); t.fanout--; e.mu.Unlock() }, nil
}
