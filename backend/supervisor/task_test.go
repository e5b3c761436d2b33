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

	"github.com/clawboo/desktop/backend/adapters/mock"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/worktree"
)

// taskEnv is a supervisor with the board, worktrees and the ledger, over a
// real SQLite file and real git repositories.
type taskEnv struct {
	*env
	board  *board.Board
	wt     *worktree.Manager
	ledger *budget.Ledger
	home   string
}

// setupTasks runs board tasks on the worktree mock (CLAWBOO_MOCK_WORKTREES=1),
// so !write leaves a diff.
func setupTasks(t *testing.T, opts Options, adapters ...executor.Adapter) *taskEnv {
	t.Helper()
	ctx := context.Background()
	home := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(home, "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	reg := executor.NewRegistry()
	// The adapters given win over the default worktree mock (the first
	// registration of an id stands).
	for _, a := range append(adapters, mock.NewWithWorktrees()) {
		_ = reg.Register(a)
	}
	bd := board.New(board.Options{Store: st})
	// As the composition root wires it: setup, verify and teardown see the
	// task's leased ports.
	wm, err := worktree.New(worktree.Options{Home: home, TaskEnv: func(id string) map[string]string {
		p, _ := bd.Ports(context.Background(), id)
		return board.PortEnv(p)
	}})
	if err != nil {
		t.Fatal(err)
	}
	led := budget.New(budget.Options{Store: st, Log: opts.Log})
	opts.Store, opts.Registry, opts.Board, opts.Worktrees, opts.Budget = st, reg, bd, wm, led
	sup, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := sup.Close(cctx); err != nil {
			t.Error(err)
		}
		bd.Close()
		st.Close()
	})
	return &taskEnv{env: &env{st: st, sup: sup}, board: bd, wt: wm, ledger: led, home: home}
}

// gitRepo makes a repository with one commit.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, "README.md"), []byte("# repo\n"), 0o644)
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func (e *taskEnv) task(t *testing.T, n board.NewTask) board.Task {
	t.Helper()
	task, err := e.board.Create(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// runTask runs a task on the mock and waits for the task's outcome.
func (e *taskEnv) runTask(t *testing.T, taskID, msg string) (store.Run, board.Task) {
	t.Helper()
	h, err := e.sup.Start(context.Background(), StartParams{RuntimeID: executor.Mock, TaskID: taskID, Message: msg, AgentID: ""})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.board.Get(context.Background(), taskID)
	if err != nil {
		t.Fatal(err)
	}
	return r, got
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func branchExists(repo, branch string) bool {
	return exec.Command("git", "-C", repo, "rev-parse", "--verify", "-q", "refs/heads/"+branch).Run() == nil
}

func lastComment(t *testing.T, e *taskEnv, id string) board.Comment {
	t.Helper()
	cs, err := e.board.Comments(context.Background(), id)
	if err != nil || len(cs) == 0 {
		t.Fatalf("no comments: %v", err)
	}
	return cs[len(cs)-1]
}

func TestTaskWithChangesGoesToReview(t *testing.T) {
	e := setupTasks(t, Options{})
	repo := gitRepo(t)
	task := e.task(t, board.NewTask{Title: "add a greeting", RepoPath: repo})
	run, got := e.runTask(t, task.ID, "!ok wrote it\n!write hello.txt hi")
	if run.Status != store.RunSucceeded || *run.TaskID != task.ID {
		t.Fatalf("%+v", run)
	}
	if got.Status != board.InReview || got.RunID != nil || got.Verification != nil {
		t.Fatalf("%+v", got)
	}
	w, err := e.board.Worktree(context.Background(), task.ID)
	if err != nil || w.Status != "active" || !exists(filepath.Join(w.Path, "hello.txt")) {
		t.Fatalf("%+v %v", w, err)
	}
	if exists(filepath.Join(repo, "hello.txt")) {
		t.Fatal("the user's working copy was touched")
	}
	if c := lastComment(t, e, task.ID); c.AuthorType != "agent" || !strings.Contains(c.Body, "wrote it") || !strings.Contains(c.Body, "Changed 1 file") {
		t.Fatalf("%+v", c)
	}
	// A person reviews and marks it done (no failed verification: no override needed).
	if _, err := e.board.Update(context.Background(), task.ID, board.Patch{Status: ptrTo(board.Done)}); err != nil {
		t.Fatal(err)
	}
}

func ptrTo[T any](v T) *T { return &v }

func TestVerificationGate(t *testing.T) {
	e := setupTasks(t, Options{})
	repo := gitRepo(t)
	pass := e.task(t, board.NewTask{Title: "passes", RepoPath: repo, VerifyCommand: "test -f hello.txt && echo checked"})
	_, got := e.runTask(t, pass.ID, "!write hello.txt hi")
	if got.Status != board.InReview || got.Verification == nil || !got.Verification.Passed || !strings.Contains(got.Verification.OutputTail, "checked") {
		t.Fatalf("%+v %+v", got, got.Verification)
	}
	fail := e.task(t, board.NewTask{Title: "fails", RepoPath: repo, VerifyCommand: "echo nope; exit 3"})
	_, got = e.runTask(t, fail.ID, "!write other.txt x")
	v := got.Verification
	if got.Status != board.InReview || v == nil || v.Passed || v.ExitCode != 3 || !strings.Contains(v.OutputTail, "nope") {
		t.Fatalf("%+v %+v", got, v)
	}
	_, err := e.board.Update(context.Background(), fail.ID, board.Patch{Status: ptrTo(board.Done)})
	var re *board.RuleError
	if !errors.As(err, &re) || re.Code != "verification_required" {
		t.Fatalf("done over a failed gate without override: %v", err)
	}
	// The repository can name the command: .clawboo/verify, committed.
	_ = os.MkdirAll(filepath.Join(repo, ".clawboo"), 0o755)
	_ = os.WriteFile(filepath.Join(repo, ".clawboo", "verify"), []byte("# our gate\ntest -f third.txt\n"), 0o644)
	for _, args := range [][]string{{"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "gate"}} {
		_ = exec.Command("git", append([]string{"-C", repo}, args...)...).Run()
	}
	repoLevel := e.task(t, board.NewTask{Title: "repo gate", RepoPath: repo})
	_, got = e.runTask(t, repoLevel.ID, "!write third.txt x")
	if got.Status != board.InReview || got.Verification == nil || got.Verification.Command != "test -f third.txt" {
		t.Fatalf("%+v %+v", got, got.Verification)
	}
	// A run cannot rewrite the gate it is judged by: the command comes from
	// the base commit, not the worktree.
	cheat := e.task(t, board.NewTask{Title: "cheat", RepoPath: repo})
	_, got = e.runTask(t, cheat.ID, "!write .clawboo/verify true\n!write fourth.txt x")
	if got.Status != board.InReview || got.Verification == nil || got.Verification.Command != "test -f third.txt" || got.Verification.Passed {
		t.Fatalf("%+v %+v", got, got.Verification)
	}
}

// The seed's mock declares no worktrees, so a code task on it runs in no
// folder of ours: nothing is provisioned and the user's repository is not
// touched.
func TestRuntimeWithoutWorktreesGetsNone(t *testing.T) {
	e := setupTasks(t, Options{}, mock.New())
	repo := gitRepo(t)
	task := e.task(t, board.NewTask{Title: "chat about it", RepoPath: repo})
	run, got := e.runTask(t, task.ID, "!ok talked\n!write hello.txt hi")
	if run.Status != store.RunSucceeded {
		t.Fatalf("%+v", run)
	}
	if _, err := e.board.Worktree(context.Background(), task.ID); err == nil {
		t.Fatal("a worktree was provisioned for a runtime that declares none")
	}
	if got.Status != board.Done || exists(filepath.Join(repo, "hello.txt")) {
		t.Fatalf("task %+v; hello.txt in the repo: %v", got, exists(filepath.Join(repo, "hello.txt")))
	}
}

func TestNoChangesCleansUp(t *testing.T) {
	e := setupTasks(t, Options{})
	repo := gitRepo(t)
	task := e.task(t, board.NewTask{Title: "look around", RepoPath: repo})
	_, got := e.runTask(t, task.ID, "!ok nothing to change")
	w, _ := e.board.Worktree(context.Background(), task.ID)
	if got.Status != board.Done || w.Status != "archived" || exists(w.Path) || branchExists(repo, w.Branch) {
		t.Fatalf("%+v %+v exists=%v", got, w, exists(w.Path))
	}
}

func TestFailedRunReleasesAndPauses(t *testing.T) {
	e := setupTasks(t, Options{})
	repo := gitRepo(t)
	task := e.task(t, board.NewTask{Title: "doomed", RepoPath: repo})
	run, got := e.runTask(t, task.ID, "!write partial.txt wip\n!error model fell over")
	w, _ := e.board.Worktree(context.Background(), task.ID)
	if run.Status != store.RunFailed || got.Status != board.Todo || got.RunID != nil || got.AssigneeRuntime != nil {
		t.Fatalf("%+v %+v", run, got)
	}
	if w.Status != "paused" || exists(w.Path) || !branchExists(repo, w.Branch) {
		t.Fatalf("worktree not paused with its branch kept: %+v", w)
	}
	if c := lastComment(t, e, task.ID); c.AuthorType != "system" || !strings.Contains(c.Body, "model fell over") {
		t.Fatalf("%+v", c)
	}
	// The next run picks the work up from the branch.
	_, got = e.runTask(t, task.ID, "!write done.txt ok")
	w, _ = e.board.Worktree(context.Background(), task.ID)
	if got.Status != board.InReview || !exists(filepath.Join(w.Path, "partial.txt")) || !exists(filepath.Join(w.Path, "done.txt")) {
		t.Fatalf("%+v %+v", got, w)
	}
}

// substrate is a runtime that owns its own folders (like OpenClaw).
type substrate struct{ fake }

func (*substrate) ID() executor.ID { return executor.OpenClaw }
func (*substrate) Capabilities() executor.Capabilities {
	return executor.Capabilities{RuntimeClass: executor.ConnectedSubstrate, Models: []string{}}
}

func refusal(t *testing.T, err error) string {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) {
		t.Fatalf("not a refusal: %v", err)
	}
	return r.Reason
}

func TestEveryRefusal(t *testing.T) {
	e := setupTasks(t, Options{MaxTaskDepth: 1}, &substrate{})
	ctx := context.Background()
	repo := gitRepo(t)
	start := func(rt executor.ID, taskID string) error {
		_, err := e.sup.Start(ctx, StartParams{RuntimeID: rt, TaskID: taskID, AgentID: "alice"})
		return err
	}
	if r := refusal(t, start(executor.Mock, "nope")); r != "not_found" {
		t.Fatal(r)
	}
	task := e.task(t, board.NewTask{Title: "t", RepoPath: repo})
	if r := refusal(t, start(executor.OpenClaw, task.ID)); r != "connected_substrate" {
		t.Fatal(r)
	}
	if got, _ := e.board.Get(ctx, task.ID); got.Status != board.Todo {
		t.Fatal("a refused runtime claimed the task")
	}
	child := e.task(t, board.NewTask{Title: "c", ParentID: task.ID})
	grand := e.task(t, board.NewTask{Title: "g", ParentID: child.ID})
	if r := refusal(t, start(executor.Mock, grand.ID)); r != "too_deep" {
		t.Fatal(r)
	}
	noRepo := e.task(t, board.NewTask{Title: "no repo"})
	if r := refusal(t, start(executor.Mock, noRepo.ID)); r != "workspace_unavailable" {
		t.Fatal(r)
	}
	if got, _ := e.board.Get(ctx, noRepo.ID); got.Status != board.Todo || got.RunID != nil {
		t.Fatalf("claim not released after a workspace failure: %+v", got)
	}
	notRepo := e.task(t, board.NewTask{Title: "not a repo", RepoPath: t.TempDir()})
	if r := refusal(t, start(executor.Mock, notRepo.ID)); r != "workspace_unavailable" {
		t.Fatal(r)
	}
	if err := e.st.InsertAgent(ctx, "alice", "Alice", "clawboo-mock", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ledger.SetBudget(ctx, budget.ScopeAgent, "alice", budget.FromUSD(1), "cap"); err != nil {
		t.Fatal(err)
	}
	hold, err := e.sup.Start(ctx, StartParams{RuntimeID: executor.Mock, TaskID: task.ID, AgentID: "alice", Message: "!abort"})
	if err != nil {
		t.Fatal(err)
	}
	if r := refusal(t, start(executor.Mock, task.ID)); r != "conflict" {
		t.Fatal(r)
	}
	_ = e.sup.Abort(ctx, hold.ID)
	_, _ = hold.Wait(ctx)
	if _, err := e.ledger.Charge(ctx, budget.Charge{
		RunID: "x", RuntimeID: "clawboo-mock", Scopes: budget.Scopes{AgentID: "alice"},
		Kind: budget.KindReported, Nano: budget.FromUSD(2),
	}); err != nil {
		t.Fatal(err)
	}
	if r := refusal(t, start(executor.Mock, task.ID)); r != "budget_paused" {
		t.Fatal(r)
	}
	// An ad-hoc run as the same agent (a chat) is refused too; another
	// agent's is not.
	_, err = e.sup.Start(ctx, StartParams{RuntimeID: executor.Mock, AgentID: "alice", Message: "hi"})
	if r := refusal(t, err); r != "budget_paused" {
		t.Fatal(r)
	}
	h, err := e.sup.Start(ctx, StartParams{RuntimeID: executor.Mock, Message: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = h.Wait(ctx)
}
