package board

import (
	"context"
	"errors"
	"testing"
)

func TestReleaseClaimByHand(t *testing.T) {
	b, _ := newBoard(t)
	ctx := context.Background()
	byHand := mustCreate(t, b, NewTask{Title: "by hand", AssigneeRuntime: "claude-code"})
	if byHand.AssigneeRuntime == nil || *byHand.AssigneeRuntime != "claude-code" {
		t.Fatalf("the suggested runtime was not kept: %+v", byHand)
	}
	byRun := mustCreate(t, b, NewTask{Title: "by a run"})
	waiting := mustCreate(t, b, NewTask{Title: "still todo"})
	if _, err := b.Claim(ctx, byHand.ID, ClaimSpec{AgentID: "alice", Runtime: "codex"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Claim(ctx, byRun.ID, ClaimSpec{AgentID: "bob", RunID: "run-1"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, id, agent, code string
	}{
		{"not claimed", waiting.ID, "", "illegal_transition"},
		{"held by a run", byRun.ID, "", "illegal_transition"},
		{"held by a run, asked by its agent", byRun.ID, "bob", "illegal_transition"},
		{"another agent's claim", byHand.ID, "mallory", "not_holder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.ReleaseClaim(ctx, tc.id, tc.agent, "why")
			wantRule(t, err, tc.code)
		})
	}
	if _, err := b.ReleaseClaim(ctx, "nope", "", ""); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	got, err := b.ReleaseClaim(ctx, byHand.ID, "alice", "  alice gave it back  ")
	if err != nil || got.Status != Todo || got.AssigneeAgentID != nil || got.AssigneeRuntime != nil || got.HeartbeatAt != nil {
		t.Fatalf("%+v %v", got, err)
	}
	cs, _ := b.Comments(ctx, byHand.ID)
	if len(cs) != 1 || cs[0].AuthorType != "system" || cs[0].Body != "alice gave it back" {
		t.Fatalf("%+v", cs)
	}
	// Released, it can be claimed again; unbound release (no agent) works
	// for any hand claim, and a blank reason adds no note.
	if _, err := b.Claim(ctx, byHand.ID, ClaimSpec{AgentID: "carol"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ReleaseClaim(ctx, byHand.ID, "", " "); err != nil {
		t.Fatal(err)
	}
	if cs, _ := b.Comments(ctx, byHand.ID); len(cs) != 1 {
		t.Fatalf("a blank reason added a note: %+v", cs)
	}
	// The run's claim is untouched by all of this.
	if held, _ := b.Get(ctx, byRun.ID); held.Status != InProgress || held.RunID == nil {
		t.Fatalf("%+v", held)
	}
}
