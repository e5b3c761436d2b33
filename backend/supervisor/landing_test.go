package supervisor

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
)

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// A team that says merge when green has its verified change merged by
// Clawboo (the same Land a person's merge uses): done, merged recorded,
// worktree and branch gone, the commit by the repository's own user with
// the task's title and a trailer naming the agent and runtime. A team that
// does not say so leaves its verified change in review.
func TestTeamMergeWhenGreenLandsWithTheAgentsTrailer(t *testing.T) {
	e := setupTasks(t, Options{
		TeamMergeWhenGreen: func(_ context.Context, id string) bool { return id == "green-team" },
		AgentName: func(_ context.Context, id string) string {
			if id == "coder-1" {
				return "Coder"
			}
			return ""
		},
	})
	if _, err := e.st.Write().ExecContext(context.Background(), `INSERT INTO agents(id, name, runtime, created_at, updated_at) VALUES ('coder-1', 'Coder', 'clawboo-mock', 0, 0)`); err != nil {
		t.Fatal(err)
	}
	repo := gitRepo(t)
	gitOut(t, repo, "config", "user.name", "Ada Lovelace")
	gitOut(t, repo, "config", "user.email", "ada@example.com")
	// The verify command also moves main (an unrelated commit), so the
	// merge makes a merge commit rather than a fast-forward.
	verify := "test -f hello.txt && printf 'x\\n' > '" + repo + "/other.txt' && git -C '" + repo + "' add other.txt && git -C '" + repo +
		"' -c user.name=u -c user.email=u@u commit -qm other"
	run := func(task board.Task) (board.Task, *board.Task) {
		h, err := e.sup.Start(context.Background(), StartParams{RuntimeID: executor.Mock, TaskID: task.ID, Message: "!write hello.txt hi", AgentID: "coder-1"})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := h.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := e.board.Get(ctx, task.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got, h.Task()
	}
	other := e.task(t, board.NewTask{Title: "Not asked", TeamID: "other-team", RepoPath: repo, VerifyCommand: "test -f hello.txt"})
	if got, _ := run(other); got.Status != board.InReview || got.Merged != nil {
		t.Fatalf("a team without merge when green: %s %+v", got.Status, got.Merged)
	}

	task := e.task(t, board.NewTask{Title: "Say hello", TeamID: "green-team", RepoPath: repo, VerifyCommand: verify})
	got, final := run(task)
	if got.Status != board.Done || got.Merged == nil || got.Merged.Base != "main" || got.Merged.How != "merge" {
		t.Fatalf("landed: %s %+v\n%s", got.Status, got.Merged, lastComment(t, e, task.ID).Body)
	}
	if final == nil || final.Status != board.Done {
		t.Fatalf("the handle's task is not the landed one: %+v", final)
	}
	want := "Ada Lovelace <ada@example.com>|Ada Lovelace <ada@example.com>|Say hello|Coder (clawboo-mock)"
	if log := gitOut(t, repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s|%(trailers:key=Clawboo-Agent,valueonly)", "main"); log != want {
		t.Fatalf("merge commit %q, want %q", log, want)
	}
	if gitOut(t, repo, "rev-parse", "main") != got.Merged.Commit || gitOut(t, repo, "show", "main:hello.txt") != "hi" {
		t.Fatal("main is not at the merge")
	}
	w, _ := e.board.Worktree(context.Background(), task.ID)
	if w.Status != "archived" || exists(w.Path) || branchExists(repo, w.Branch) {
		t.Fatalf("worktree left: %+v", w)
	}
	if c := lastComment(t, e, task.ID); !strings.HasPrefix(c.Body, MergedNote+"main (merge commit)") {
		t.Fatalf("comment %q", c.Body)
	}
}
