package supervisor

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
)

func TestWorkInPlaceWritesTheCheckoutWithNoBranch(t *testing.T) {
	e := setupTasks(t, Options{})
	repo := gitRepo(t)
	task := e.task(t, board.NewTask{Title: "fix in place", RepoPath: repo, WorkInPlace: true})
	run, got := e.runTask(t, task.ID, "!ok done\n!write hello.txt hi")
	if run.Status != store.RunSucceeded || got.Status != board.Done {
		t.Fatalf("%+v %+v", run, got)
	}
	b, err := os.ReadFile(filepath.Join(repo, "hello.txt"))
	if err != nil || string(b) != "hi\n" {
		t.Fatalf("the write did not land in the checkout: %q %v", b, err)
	}
	if branchExists(repo, "clawboo/task-"+task.ID) {
		t.Fatal("a work-in-place task made a branch")
	}
	if out, _ := exec.Command("git", "-C", repo, "branch", "--list").Output(); strings.TrimSpace(string(out)) != "* main" {
		t.Fatalf("branches: %s", out)
	}
	if _, err := e.board.Worktree(context.Background(), task.ID); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("a worktree was recorded: %v", err)
	}
	if locks, _ := e.board.CheckoutLocks(context.Background()); len(locks) != 0 {
		t.Fatalf("the lock outlived the run: %+v", locks)
	}
}

func TestWorkInPlaceIsExclusivePerRepository(t *testing.T) {
	e := setupTasks(t, Options{})
	repo := gitRepo(t)
	ctx := context.Background()
	first := e.task(t, board.NewTask{Title: "first", RepoPath: repo, WorkInPlace: true})
	second := e.task(t, board.NewTask{Title: "second", RepoPath: repo, WorkInPlace: true})
	h, err := e.sup.Start(ctx, StartParams{RuntimeID: executor.Mock, TaskID: first.ID, Message: "!abort"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.sup.Start(ctx, StartParams{RuntimeID: executor.Mock, TaskID: second.ID, Message: "!ok"})
	if refusal(t, err) != "conflict" || !strings.Contains(err.Error(), first.ID) {
		t.Fatalf("the second in-place task was not refused naming the first: %v", err)
	}
	if got, _ := e.board.Get(ctx, second.ID); got.Status != board.Todo || got.RunID != nil {
		t.Fatalf("the refused task kept a claim: %+v", got)
	}
	// A worktree task on the same repository is not held up.
	other := e.task(t, board.NewTask{Title: "in a worktree", RepoPath: repo})
	if _, got := e.runTask(t, other.ID, "!ok"); got.Status != board.Done {
		t.Fatalf("%+v", got)
	}
	if err := e.sup.Abort(ctx, h.ID); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := h.Wait(wctx); err != nil {
		t.Fatal(err)
	}
	if _, got := e.runTask(t, second.ID, "!ok\n!write b.txt b"); got.Status != board.Done || !exists(filepath.Join(repo, "b.txt")) {
		t.Fatalf("the second task did not run after the first: %+v", got)
	}
}

func TestWorkInPlaceIsVerifiedInTheCheckout(t *testing.T) {
	e := setupTasks(t, Options{})
	repo := gitRepo(t)
	pass := e.task(t, board.NewTask{Title: "pass", RepoPath: repo, WorkInPlace: true, VerifyCommand: "test -f hello.txt && pwd"})
	if _, got := e.runTask(t, pass.ID, "!ok\n!write hello.txt hi"); got.Status != board.Done || got.Verification == nil ||
		!got.Verification.Passed || !strings.Contains(got.Verification.OutputTail, "repo") {
		t.Fatalf("%+v %+v", got, got.Verification)
	}
	fail := e.task(t, board.NewTask{Title: "fail", RepoPath: repo, WorkInPlace: true, VerifyCommand: "exit 3"})
	_, got := e.runTask(t, fail.ID, "!ok")
	if got.Status != board.InReview || got.Verification == nil || got.Verification.Passed || got.Verification.ExitCode != 3 {
		t.Fatalf("%+v %+v", got, got.Verification)
	}
	if c := lastComment(t, e, fail.ID); !strings.Contains(c.Body, "your checkout") || !strings.Contains(c.Body, "exit 3") {
		t.Fatalf("%+v", c)
	}
	if locks, _ := e.board.CheckoutLocks(context.Background()); len(locks) != 0 {
		t.Fatalf("%+v", locks)
	}
}
