package orchestrate

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/teams"
)

// MemberState is one member as mission control shows it.
type MemberState struct {
	teams.Member
	// State is idle, working, waiting_approval, over_budget or not_ready.
	State      string `json:"state"`
	TaskID     string `json:"taskId,omitempty"`
	TaskTitle  string `json:"taskTitle,omitempty"`
	RunID      string `json:"runId,omitempty"`
	LatestLine string `json:"latestLine,omitempty"`
	Why        string `json:"why,omitempty"`
}

// TaskRow is a team task in mission control's list.
type TaskRow struct {
	ID              string  `json:"id"`
	Title           string  `json:"title"`
	Status          string  `json:"status"`
	Kind            string  `json:"kind"`
	AssigneeAgentID *string `json:"assigneeAgentId"`
	UpdatedAt       int64   `json:"updatedAt"`
}

// Mission is mission control's view of a team at work.
type Mission struct {
	Team         teams.Team     `json:"team"`
	Members      []MemberState  `json:"members"`
	CostTodayUSD float64        `json:"costTodayUsd"`
	Tasks        map[string]int `json:"tasks"`
	RecentTasks  []TaskRow      `json:"recentTasks"`
	// PumpPasses is how many passes the dispatch pump has made in this
	// process (tests watch it to know a pass happened).
	PumpPasses int64 `json:"pumpPasses"`
}

// Probes answer what mission control cannot see from here: whether a
// runtime is ready and whether an agent waits on an approval (nil: never).
type Probes struct {
	Ready   func(ctx context.Context, runtime string) (bool, string)
	Waiting func(agentID string) bool
}

// Mission returns the team's state now.
func (e *Engine) Mission(ctx context.Context, teamID string, pr Probes) (Mission, error) {
	team, err := e.o.Teams.Get(ctx, teamID)
	if err != nil {
		return Mission{}, err
	}
	out := Mission{Team: team, Tasks: map[string]int{}, Members: []MemberState{}, RecentTasks: []TaskRow{}, PumpPasses: e.pumps.Load()}
	for _, s := range []board.Status{board.Backlog, board.Todo, board.InProgress, board.InReview, board.Blocked, board.Done, board.Cancelled} {
		out.Tasks[string(s)] = 0
	}
	tasks, err := e.o.Board.List(ctx, board.Filter{TeamID: teamID})
	if err != nil {
		return Mission{}, err
	}
	working := map[string]board.Task{}
	for _, t := range tasks {
		out.Tasks[string(t.Status)]++
		if t.Status == board.InProgress && t.AssigneeAgentID != nil && t.RunID != nil {
			working[*t.AssigneeAgentID] = t
		}
		if len(out.RecentTasks) < 50 {
			out.RecentTasks = append(out.RecentTasks, TaskRow{
				ID: t.ID, Title: t.Title, Status: string(t.Status), Kind: string(t.Kind),
				AssigneeAgentID: t.AssigneeAgentID, UpdatedAt: t.UpdatedAt,
			})
		}
	}
	live := e.LiveTurns(teamID)
	for _, m := range team.Members {
		st := MemberState{Member: m, State: "idle"}
		if t, ok := working[m.AgentID]; ok {
			st.State, st.TaskID, st.TaskTitle, st.RunID = "working", t.ID, t.Title, *t.RunID
		} else if run, ok := live[m.AgentID]; ok {
			st.State, st.RunID, st.TaskTitle = "working", run, "a team turn"
		}
		if st.RunID != "" {
			st.LatestLine = e.latestLine(ctx, st.RunID)
			if pr.Waiting != nil && pr.Waiting(m.AgentID) {
				st.State = "waiting_approval"
			}
		} else {
			if e.o.Budget != nil {
				var paused *budget.PausedError
				if err := e.o.Budget.Preflight(ctx, budget.Scopes{AgentID: m.AgentID}); errors.As(err, &paused) {
					st.State, st.Why = "over_budget", err.Error()
				}
			}
			if st.State == "idle" && pr.Ready != nil {
				if ok, why := pr.Ready(ctx, m.Runtime); !ok {
					st.State, st.Why = "not_ready", why
				}
			}
		}
		out.Members = append(out.Members, st)
	}
	if e.o.Budget != nil {
		now := e.o.Now()
		y, mo, d := now.Date()
		start := time.Date(y, mo, d, 0, 0, 0, 0, now.Location())
		rows, err := e.o.Budget.Spend(ctx, "team", start, now.Add(time.Minute))
		if err == nil {
			for _, r := range rows {
				if r.Key == teamID {
					out.CostTodayUSD = r.USD
				}
			}
		}
	}
	return out, nil
}

// latestLine is the last line of text a run streamed.
func (e *Engine) latestLine(ctx context.Context, runID string) string {
	last, err := e.o.Store.MaxEventSeq(ctx, runID)
	if err != nil {
		return ""
	}
	evs, err := e.o.Store.ListEvents(ctx, runID, max(0, last-200), 200)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, r := range evs {
		if r.Kind != string(executor.KindTextDelta) {
			continue
		}
		var ev executor.Event
		if json.Unmarshal(r.Data, &ev) == nil && ev.Channel != executor.ChannelReasoning {
			b.WriteString(ev.Text)
		}
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	return clip(strings.TrimSpace(lines[len(lines)-1]), 200)
}
