package backend

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/teams"
)

// The critic through the composition root: the team's switch (PATCH
// /api/teams/{id}) reaches the supervisor, and a delegated-shaped child
// (it has a parent) is reviewed by the mock critic its description scripts.
func TestCriticThroughTheBackend(t *testing.T) {
	b := e2eBackend(t, map[string]string{"CLAWBOO_ENABLE_MOCK_RUNTIME": "1", "CLAWBOO_MOCK_WORKTREES": "1"})
	h := authed(b)
	mustTeam(t, b, "team-critic")
	var patched struct{ Team teams.Team }
	if code := e2eDo(t, h, "PATCH", "/api/teams/team-critic", map[string]any{"critic": false}, &patched); code != http.StatusOK || patched.Team.Critic {
		t.Fatalf("patch team: %d %+v", code, patched)
	}
	repo := e2eRepo(t)
	var created struct{ Task board.Task }
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{"title": "mission", "teamId": "team-critic", "repoPath": repo, "kind": "research"}, &created); code != http.StatusCreated {
		t.Fatalf("create mission: %d", code)
	}
	mission := created.Task
	child := func(title string) board.Task {
		desc := "Write hello.txt.\n!critic {\"findings\":[{\"severity\":\"missing_ac\",\"note\":\"hello.txt is empty\"}]}\n!critic {\"findings\":[]}\n"
		if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
			"title": title, "parentTaskId": mission.ID, "description": desc,
			"verifyCommand": "test -f hello.txt",
		}, &created); code != http.StatusCreated {
			t.Fatalf("create child: %d", code)
		}
		return created.Task
	}
	run := func(task board.Task) board.Task {
		hd, err := b.Supervisor.Start(context.Background(), supervisor.StartParams{RuntimeID: executor.Mock, TaskID: task.ID, Message: "!write hello.txt hi"})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := hd.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := b.Board.Get(ctx, task.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	comments := func(id string) string {
		cs, err := b.Board.Comments(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, c := range cs {
			all = append(all, c.Body)
		}
		return strings.Join(all, "\n---\n")
	}
	// The team turned it off: an auto task is not reviewed.
	skipped := run(child("skipped"))
	if skipped.Status != board.InReview || strings.Contains(comments(skipped.ID), "critic") {
		t.Fatalf("team off: %+v\n%s", skipped, comments(skipped.ID))
	}
	// On again: the first review blocks, the fix run follows, the second passes.
	if code := e2eDo(t, h, "PATCH", "/api/teams/team-critic", map[string]any{"critic": true}, &patched); code != http.StatusOK || !patched.Team.Critic {
		t.Fatalf("patch team: %d %+v", code, patched)
	}
	fixed := run(child("fixed"))
	if all := comments(fixed.ID); fixed.Status != board.InReview || !strings.Contains(all, "sending a fix run (1 of 2)") || !strings.Contains(all, "[missing_ac] hello.txt is empty") {
		t.Fatalf("team on: %+v\n%s", fixed, all)
	}
}
