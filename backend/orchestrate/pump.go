package orchestrate

import (
	"context"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/teams"
)

// leaderBusy reports whether the team's leader has a live turn.
func (e *Engine) leaderBusy(teamID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range e.turns {
		if t.teamID == teamID && t.leader {
			return true
		}
	}
	return false
}

// recover settles the delegations a previous process left in the middle.
// No run is live at start-up (the supervisor failed the last process's
// runs and the board released their claims), so a running delegation's
// child either ended before the crash (its task moved on: report it) or
// died with it (dispatch it again).
func (e *Engine) recover(ctx context.Context) error {
	rows, err := e.delegationsWhere(ctx, `status IN ('running','ended')`)
	if err != nil {
		return err
	}
	teamsToUpdate := map[string]bool{}
	for _, r := range rows {
		if r.status == "ended" {
			teamsToUpdate[r.teamID] = true
			continue
		}
		t, err := e.o.Board.Get(ctx, r.taskID)
		if err != nil {
			continue
		}
		if run := e.lastRun(ctx, r.id); supervisor.StoppedByPerson(run) {
			// The process ended between a person's stop and its marking:
			// the stop holds.
			e.childStopped(ctx, r, run, &t)
			continue
		}
		switch t.Status {
		case board.Todo, board.Backlog, board.InProgress:
			_, _ = e.o.Store.Writer().ExecContext(ctx, `UPDATE delegations SET status = 'pending', updated_at = ? WHERE id = ? AND status = 'running'`,
				e.o.Now().UnixMilli(), r.id)
		default:
			e.childEnded(r.id, e.lastRun(ctx, r.id), &t)
		}
	}
	for team := range teamsToUpdate {
		e.scheduleUpdate(team)
	}
	return nil
}

// lastRun is a delegation's child run as the ledger has it.
func (e *Engine) lastRun(ctx context.Context, id string) store.Run {
	var runID string
	_ = e.o.Store.Reader().QueryRowContext(ctx, `SELECT COALESCE(child_run_id, '') FROM delegations WHERE id = ?`, id).Scan(&runID)
	if runID == "" {
		return store.Run{}
	}
	r, _ := e.o.Store.GetRun(ctx, runID)
	return r
}

// pumpLoop is the dispatch pump: every PumpEvery (first after ten seconds)
// it starts delegations that can start and wakes leaders with mail
// addressed to them.
func (e *Engine) pumpLoop() {
	first := pumpFirst
	if e.o.PumpEvery < first {
		first = e.o.PumpEvery
	}
	t := time.NewTimer(first)
	defer t.Stop()
	for {
		select {
		case <-e.root.Done():
			return
		case <-t.C:
			e.Pump(e.root)
			t.Reset(e.o.PumpEvery)
		}
	}
}

// Pump runs one pass of the dispatch pump.
func (e *Engine) Pump(ctx context.Context) {
	defer e.pumps.Add(1)
	rows, err := e.delegationsWhere(ctx, `status = 'pending' AND failures < ?`, MaxFailures)
	if err == nil {
		for _, r := range rows {
			_ = e.dispatch(ctx, r.id)
		}
	}
	ts, err := e.o.Teams.List(ctx)
	if err != nil {
		return
	}
	for _, team := range ts {
		lead, ok := team.Leader()
		if !ok || e.leaderBusy(team.ID) {
			continue
		}
		ps, err := e.undelivered(ctx, team.ID, lead.AgentID, 50)
		if err != nil {
			continue
		}
		wake := false
		for _, p := range ps {
			if (p.Kind == teams.KindPeer || p.Kind == teams.KindDelegate) && addressed(p, lead) {
				wake = true
				break
			}
		}
		if !wake {
			continue
		}
		e.mu.Lock()
		e.fires["wake:"+team.ID]++
		n := e.fires["wake:"+team.ID]
		e.mu.Unlock()
		if n > MaxAutoFires {
			continue // woken enough until a person speaks
		}
		if _, err := e.startTurn(ctx, team, lead, turnSpec{message: "You have new messages addressed to you in the team room."}); err != nil {
			e.o.Log.Warn("pump could not wake the leader", "team", team.ID, "err", err)
		}
	}
}
