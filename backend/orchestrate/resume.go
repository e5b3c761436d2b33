package orchestrate

import (
	"context"
	"fmt"

	"github.com/clawboo/desktop/backend/redact"
)

// ResumeTurn starts again a member's team turn the quota governor held
// back: the person's message is already in the room, so no post is made;
// a turn that still cannot start says why in the room, as Chat does.
func (e *Engine) ResumeTurn(ctx context.Context, teamID, agentID, message string) (string, error) {
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
