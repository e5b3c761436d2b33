package backend

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/routines"
	"github.com/clawboo/desktop/backend/teams"
)

// badRepos are paths no route may take as a repository, each with the
// words its refusal must carry.
func badRepos(t *testing.T) []struct{ name, path, words string } {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	empty := filepath.Join(dir, "empty")
	bare := filepath.Join(dir, "bare.git")
	for _, d := range []string{plain, empty} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main", empty}, {"init", "-q", "--bare", bare}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	repo := e2eRepo(t)
	sub := filepath.Join(repo, "docs")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	return []struct{ name, path, words string }{
		{"missing", filepath.Join(dir, "nowhere"), filepath.Join(dir, "nowhere") + " does not exist"},
		{"file", file, file + " is a file, not a folder"},
		{"root", "/", "/ is a system folder"},
		{"etc", "/etc", "/etc is a system folder"},
		{"relative", "src/app", "src/app is not an absolute path"},
		{"not a repo", plain, plain + " is not a git repository: run git init there and make a first commit"},
		{"no commits", empty, empty + " has no commits yet"},
		{"bare", bare, bare + " is a bare git repository"},
		{"inside a repo", sub, sub + " is a folder inside the git repository"},
	}
}

type refusal struct {
	Error  string `json:"error"`
	Reason string `json:"reason"`
}

// TestEveryRouteChecksItsRepository walks every route that takes a
// repository: each bad path is refused with 400 and its reason in words,
// and nothing is created or changed; a real repository is accepted.
func TestEveryRouteChecksItsRepository(t *testing.T) {
	b := e2eBackend(t, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-repocheck", "CLAWBOO_ENABLE_MOCK_RUNTIME": "1"})
	h := authed(b)
	ctx := context.Background()
	good := e2eRepo(t)

	name, rt := "Nightly", "clawboo-mock"
	ag, err := b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	var team struct{ Team teams.Team }
	if code := e2eDo(t, h, "POST", "/api/teams", map[string]any{"name": "Existing", "repoPath": good}, &team); code != http.StatusCreated {
		t.Fatalf("create a team on a real repository: %d", code)
	}
	var task struct{ Task board.Task }
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{"title": "Existing", "repoPath": good}, &task); code != http.StatusCreated {
		t.Fatalf("create a task on a real repository: %d", code)
	}
	var sched struct{ Schedule routines.Schedule }
	if code := e2eDo(t, h, "POST", "/api/schedules", map[string]any{
		"agentId": ag.ID, "spec": "0 2 * * *",
		"template": map[string]any{"title": "Existing", "repoPath": good},
	}, &sched); code != http.StatusCreated {
		t.Fatalf("create a schedule on a real repository: %d", code)
	}

	routes := []struct {
		method, path string
		body         func(repo string) any
	}{
		{"POST", "/api/teams", func(repo string) any { return map[string]any{"name": "New " + repo, "repoPath": repo} }},
		{"PATCH", "/api/teams/" + team.Team.ID, func(repo string) any { return map[string]any{"repoPath": repo} }},
		{"POST", "/api/board", func(repo string) any { return map[string]any{"title": "t", "repoPath": repo} }},
		{"PATCH", "/api/board/" + task.Task.ID, func(repo string) any { return map[string]any{"repoPath": repo} }},
		{"POST", "/api/repos/check", func(repo string) any { return map[string]any{"repoPath": repo} }},
		{"POST", "/api/onboarding/seed-native-team", func(repo string) any { return map[string]any{"provider": "anthropic", "repoPath": repo} }},
		{"POST", "/api/schedules", func(repo string) any {
			return map[string]any{"agentId": ag.ID, "spec": "0 2 * * *", "template": map[string]any{"title": "t", "repoPath": repo}}
		}},
		{"PATCH", "/api/schedules/" + sched.Schedule.ID, func(repo string) any {
			return map[string]any{"template": map[string]any{"title": "t", "repoPath": repo}}
		}},
	}
	counts := func() [4]int {
		ts, _ := b.Teams.List(ctx)
		tasks, _ := b.Board.List(ctx, board.Filter{})
		ags, _ := b.Agents.List(ctx)
		scs, _ := b.Routines.List(ctx)
		return [4]int{len(ts), len(tasks), len(ags), len(scs)}
	}
	before := counts()
	for _, bad := range badRepos(t) {
		for _, rt := range routes {
			var got refusal
			code := e2eDo(t, h, rt.method, rt.path, rt.body(bad.path), &got)
			if code != http.StatusBadRequest || got.Reason != "bad_repository" || !strings.Contains(got.Error, bad.words) {
				t.Errorf("%s %s with %s (%s): %d %+v, want 400 saying %q", rt.method, rt.path, bad.name, bad.path, code, got, bad.words)
			}
		}
	}
	if after := counts(); after != before {
		t.Fatalf("refused requests changed something: teams, tasks, agents, schedules %v → %v", before, after)
	}
	if tm, _ := b.Teams.Get(ctx, team.Team.ID); tm.RepoPath == nil || *tm.RepoPath != good {
		t.Fatalf("team's repository changed: %+v", tm.RepoPath)
	}
	if tk, _ := b.Board.Get(ctx, task.Task.ID); tk.RepoPath == nil || *tk.RepoPath != good {
		t.Fatalf("task's repository changed: %+v", tk.RepoPath)
	}
	if sc, _ := b.Routines.Get(ctx, sched.Schedule.ID); sc.Template.RepoPath != good {
		t.Fatalf("schedule's repository changed: %q", sc.Template.RepoPath)
	}

	other := e2eRepo(t)
	for _, rt := range routes {
		if code := e2eDo(t, h, rt.method, rt.path, rt.body(other), nil); code/100 != 2 {
			t.Errorf("%s %s with a real repository: %d", rt.method, rt.path, code)
		}
	}
	if tm, _ := b.Teams.Get(ctx, team.Team.ID); tm.RepoPath == nil || *tm.RepoPath != other {
		t.Fatalf("PATCH /api/teams did not change the repository: %+v", tm.RepoPath)
	}
	// Clearing a repository is always allowed.
	if code := e2eDo(t, h, "PATCH", "/api/teams/"+team.Team.ID, map[string]any{"repoPath": nil}, nil); code != http.StatusOK {
		t.Fatalf("clearing the team's repository: %d", code)
	}
}

// TestRoutineRepositoryDefaultsToItsTeams: a routine of a team whose
// template names no repository makes its task in the team's repository,
// as the team has it at the fire (changed after the routine was made).
func TestRoutineRepositoryDefaultsToItsTeams(t *testing.T) {
	rg := newRoutineRig(t, map[string]string{})
	first, second := e2eRepo(t), e2eRepo(t)
	var team struct{ Team teams.Team }
	if code := e2eDo(t, rg.h, "POST", "/api/teams", map[string]any{"name": "Nightly team", "repoPath": first, "leaderAgentId": rg.agent.ID}, &team); code != http.StatusCreated {
		t.Fatalf("create team: %d", code)
	}
	var out struct{ Schedule routines.Schedule }
	if code := e2eDo(t, rg.h, "POST", "/api/schedules", map[string]any{
		"agentId": rg.agent.ID, "teamId": team.Team.ID, "spec": "0 2 * * *",
		"template": map[string]any{"title": "Nightly notes", "description": "!ok noted", "kind": "research"},
	}, &out); code != http.StatusCreated {
		t.Fatalf("create schedule: %d", code)
	}
	if code := e2eDo(t, rg.h, "PATCH", "/api/teams/"+team.Team.ID, map[string]any{"repoPath": second}, nil); code != http.StatusOK {
		t.Fatalf("change the team's repository: %d", code)
	}
	f := rg.runNow(t, out.Schedule.ID, time.Minute)
	if f.TaskID == nil {
		t.Fatalf("fire made no task: %+v", f)
	}
	task, err := rg.b.Board.Get(context.Background(), *f.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if task.RepoPath == nil || *task.RepoPath != second {
		t.Fatalf("the fire's task works in %v, want the team's repository %s", task.RepoPath, second)
	}
}
