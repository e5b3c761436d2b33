package orchestrate

import (
	"context"
	"fmt"

	"github.com/clawboo/desktop/backend/redact"
	"github.com/clawboo/desktop/backend/teams"
)

// TaskStopped reports whether a person stopped the delegation whose task
// is taskID: work the quota governor held for it is not started again.
func (e *Engine) TaskStopped(ctx context.Context, taskID string) bool {
	d, ok := e.delegationOf(ctx, taskID)
	return ok && d.status == "stopped"
}

// stoppedSince reports whether a person pressed Stop on the team (all) or
// on the member at or after at (Unix ms), in this process.
func (e *Engine) stoppedSince(teamID, agentID string, at int64) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stopped[key(teamID, "")] >= at || e.stopped[key(teamID, agentID)] >= at
}

// ResumeTurn starts again a member's team turn the quota governor held
// back: the person's message is already in the room, so no post is made;
// a turn that still cannot start says why in the room, as Chat does.
func (e *Engine) ResumeTurn(ctx context.Context, teamID, agentID, message string) (string, error) {
	return e.ResumeHeld(ctx, teamID, agentID, message, 0)
}

// ResumeHeld is ResumeTurn for a turn held since heldAt (Unix ms): when a
// person pressed Stop on the team or on the member since, the turn is not
// taken (a person's stop is final) and the room says so.
func (e *Engine) ResumeHeld(ctx context.Context, teamID, agentID, message string, heldAt int64) (string, error) {
	if heldAt > 0 && e.stoppedSince(teamID, agentID, heldAt) {
		m, _ := e.member(ctx, teamID, agentID)
		e.postAbout(teamID, "", teams.KindStop, fmt.Sprintf("Stopped by you: the turn of @%s the quota held back was not taken.", m.Name))
		return "", nil
	}
	team, err := e.o.Teams.Get(ctx, teamID)
	if err != nil {
		return "", err
	}
	for _, m := range team.Members {
		if m.AgentID != agentID {
			continue
		}
		runID, err := e.startTurn(ctx, team, m, turnSpec{message: message, title: missionTitle(redact.Secrets(message))})
		if err != nil {
			e.system(team.ID, fmt.Sprintf("@%s did not take a turn: %s", m.Name, words(err)))
			return "", err
		}
		e.system(team.ID, fmt.Sprintf("@%s is taking the turn the quota held back.", m.Name))
		return runID, nil
	}
	return "", fmt.Errorf("%w: '%s'", ErrNoMember, agentID)
}
