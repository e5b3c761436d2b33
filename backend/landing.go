package backend

import "context"

// teamMergeWhenGreen is the team's merge-when-green switch (off when the
// team cannot be read: a change then waits for a person in review).
func (b *Backend) teamMergeWhenGreen(ctx context.Context, teamID string) bool {
	if b.Teams == nil {
		return false
	}
	t, err := b.Teams.Get(ctx, teamID)
	return err == nil && t.MergeWhenGreen
}

// agentName is an agent's name for a merge commit's trailer ("" unknown).
func (b *Backend) agentName(ctx context.Context, agentID string) string {
	if b.Agents == nil || agentID == "" {
		return ""
	}
	a, err := b.Agents.Get(ctx, agentID)
	if err != nil {
		return ""
	}
	return a.Name
}
