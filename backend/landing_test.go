package backend

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/backend/teams"
)

// Merge when green through the composition root: the team's switch (PATCH
// /api/teams/{id}) reaches the supervisor, whose verified change is then
// merged into the base branch and the task done; with it off the change
// waits in review.
func TestTeamMergeWhenGreenThroughTheBackend(t *testing.T) {
	b := e2eBackend(t, map[string]string{"CLAWBOO_ENABLE_MOCK_RUNTIME": "1", "CLAWBOO_MOCK_WORKTREES": "1"})
	h := authed(b)
	mustTeam(t, b, "team-green")
	repo := e2eRepo(t)
	run := func(title, file string) board.Task {
		var created struct{ Task board.Task }
		if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
			"title": title, "teamId": "team-green", "repoPath": repo,
			"verifyCommand": "test -f " + file,
		}, &created); code != http.StatusCreated {
			t.Fatalf("create: %d", code)
		}
		hd, err := b.Supervisor.Start(context.Background(), supervisor.StartParams{RuntimeID: executor.Mock, TaskID: created.Task.ID, Message: "!write " + file + " hi"})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := hd.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := b.Board.Get(ctx, created.Task.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := run("off", "a.txt"); got.Status != board.InReview || got.Merged != nil {
		t.Fatalf("team off: %s %+v", got.Status, got.Merged)
	}
	var patched struct{ Team teams.Team }
	if code := e2eDo(t, h, "PATCH", "/api/teams/team-green", map[string]any{"mergeWhenGreen": true}, &patched); code != http.StatusOK || !patched.Team.MergeWhenGreen {
		t.Fatalf("patch team: %d %+v", code, patched)
	}
	got := run("on", "b.txt")
	if got.Status != board.Done || got.Merged == nil || got.Merged.Base != "main" {
		t.Fatalf("team on: %s %+v", got.Status, got.Merged)
	}
	out, err := exec.Command("git", "-C", repo, "show", "main:b.txt").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "hi" {
		t.Fatalf("main lacks the change: %s %v", out, err)
	}
}
