package supervisor

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clawboo/desktop/backend/adapters/mock"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/worktree"
)

// envSpy is the worktree mock that remembers the environment each run was
// given and whether it started at all.
type envSpy struct {
	*mock.Adapter
	mu   sync.Mutex
	envs []map[string]string
}

func (a *envSpy) Start(ctx context.Context, req executor.StartRequest) (executor.Run, error) {
	a.mu.Lock()
	a.envs = append(a.envs, req.Env)
	a.mu.Unlock()
	return a.Adapter.Start(ctx, req)
}

func (a *envSpy) started() []map[string]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]map[string]string(nil), a.envs...)
}

// commitFiles commits files into repo.
func commitFiles(t *testing.T, repo string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(repo, name)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "files"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func runEvents(t *testing.T, e *taskEnv, runID string) []executor.Event {
	t.Helper()
	rows, err := e.st.ListEvents(context.Background(), runID, 0, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]executor.Event, len(rows))
	for i, r := range rows {
		if err := json.Unmarshal(r.Data, &out[i]); err != nil {
			t.Fatal(err)
		}
		if out[i].Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, out[i].Seq)
		}
	}
	return out
}

func TestSetupStreamsIntoTheRunWithPortsAndIncludes(t *testing.T) {
	spy := &envSpy{Adapter: mock.NewWithWorktrees()}
	e := setupTasks(t, Options{}, spy)
	repo := gitRepo(t)
	commitFiles(t, repo, map[string]string{
		".gitignore":       ".env\n",
		".clawboo/include": ".env\n",
		".clawboo/setup":   "echo setting up on $CLAWBOO_PORT\ntest -f .env && echo env-present\necho $CLAWBOO_PORTS > ports.txt\n",
		".clawboo/verify":  "test \"$(cat ports.txt)\" = \"$CLAWBOO_PORTS\" && test -n \"$CLAWBOO_PORT\"\n",
	})
	_ = os.WriteFile(filepath.Join(repo, ".env"), []byte("TOKEN=sentinel-dotenv\n"), 0o600)
	task := e.task(t, board.NewTask{Title: "with setup", RepoPath: repo})
	run, got := e.runTask(t, task.ID, "!write hello.txt hi")
	if run.Status != store.RunSucceeded {
		t.Fatalf("%+v", run)
	}
	envs := spy.started()
	if len(envs) != 1 || envs[0]["CLAWBOO_PORT"] != "41000" || !strings.HasPrefix(envs[0]["CLAWBOO_PORTS"], "41000,41001,") {
		t.Fatalf("runtime env %v", envs)
	}
	// Verify saw the same ports setup wrote down (ports.txt is part of the diff).
	if got.Status != board.InReview || got.Verification == nil || !got.Verification.Passed {
		t.Fatalf("%+v %+v", got, got.Verification)
	}
	evs := runEvents(t, e, run.ID)
	var details []string
	var result *executor.Event
	for i, ev := range evs {
		switch {
		case ev.Kind == executor.KindStatus && strings.HasPrefix(ev.Detail, "setup: "):
			details = append(details, ev.Detail)
		case ev.Kind == executor.KindToolResult && ev.ToolCallID == setupCallID:
			result = &evs[i]
		}
	}
	want := []string{"setup: included .env", "setup: setting up on 41000", "setup: env-present"}
	if strings.Join(details, "|") != strings.Join(want, "|") {
		t.Fatalf("setup lines %q", details)
	}
	if evs[0].Kind != executor.KindToolCall || evs[0].Name != setupToolName || result == nil || result.IsError ||
		!strings.Contains(result.Output, "setting up on 41000") {
		t.Fatalf("setup phase events: first %+v result %+v", evs[0], result)
	}
	// The copied .env is in neither the diff nor the branch.
	w, _ := e.board.Worktree(context.Background(), task.ID)
	out, _ := exec.Command("git", "-C", repo, "log", "-p", "main.."+w.Branch).CombinedOutput()
	if strings.Contains(string(out), "sentinel-dotenv") || !strings.Contains(string(out), "hello.txt") {
		t.Fatalf("branch history:\n%s", out)
	}
	// Done with changes keeps the folder (review) and its ports.
	if p, _ := e.board.Ports(context.Background(), task.ID); len(p) != 10 {
		t.Fatalf("ports %v", p)
	}
}

func TestFailingSetupFailsTheRunBeforeTheAgentStarts(t *testing.T) {
	spy := &envSpy{Adapter: mock.NewWithWorktrees()}
	e := setupTasks(t, Options{}, spy)
	repo := gitRepo(t)
	commitFiles(t, repo, map[string]string{".clawboo/setup": "echo fetching deps\necho 'npm ERR! missing' >&2\nexit 4\n"})
	task := e.task(t, board.NewTask{Title: "broken setup", RepoPath: repo})
	run, got := e.runTask(t, task.ID, "!ok never")
	if run.Status != store.RunFailed || !strings.Contains(run.Error, "setup failed (exit 4)") || !strings.Contains(run.Error, "npm ERR! missing") {
		t.Fatalf("%+v", run)
	}
	if len(spy.started()) != 0 {
		t.Fatal("the agent was started after a failed setup")
	}
	evs := runEvents(t, e, run.ID)
	last := evs[len(evs)-1]
	if last.Kind != executor.KindDone || last.Reason != executor.DoneError {
		t.Fatalf("last event %+v", last)
	}
	for _, ev := range evs[:len(evs)-1] {
		if ev.Kind != executor.KindToolCall && ev.Kind != executor.KindToolResult && ev.Kind != executor.KindStatus {
			t.Fatalf("an event not of the setup phase: %+v", ev)
		}
		if ev.Kind == executor.KindToolResult && (!ev.IsError || !strings.Contains(ev.Output, "fetching deps")) {
			t.Fatalf("setup result %+v", ev)
		}
	}
	if got.Status != board.Todo || !strings.Contains(lastComment(t, e, task.ID).Body, "setup failed") {
		t.Fatalf("%+v", got)
	}
	// The worktree was paused: its ports are free again.
	if p, _ := e.board.Ports(context.Background(), task.ID); p != nil {
		t.Fatalf("ports still leased: %v", p)
	}
}

func TestSetupComesFromTheBaseCommitNotTheAgentsEdit(t *testing.T) {
	e := setupTasks(t, Options{})
	repo := gitRepo(t)
	marker := filepath.Join(t.TempDir(), "hijacked")
	commitFiles(t, repo, map[string]string{".clawboo/setup": "echo honest\n", ".clawboo/verify": "false\n"})
	task := e.task(t, board.NewTask{Title: "cheat", RepoPath: repo})
	// The first run rewrites setup in its worktree and fails verify, so the
	// task waits in review on the same worktree; it is then paused and
	// provisioned afresh from its branch, which holds the edit.
	_, got := e.runTask(t, task.ID, "!write .clawboo/setup touch '"+marker+"'; exit 1\n!write x.txt x")
	if got.Status != board.InReview {
		t.Fatalf("%+v", got)
	}
	w, _ := e.board.Worktree(context.Background(), task.ID)
	if err := e.wt.Pause(context.Background(), toWT(w)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.board.Update(context.Background(), task.ID, board.Patch{Status: ptrTo(board.Todo)}); err != nil {
		t.Fatal(err)
	}
	run, _ := e.runTask(t, task.ID, "!ok again")
	if run.Status != store.RunSucceeded {
		t.Fatalf("%+v", run)
	}
	if exists(marker) {
		t.Fatal("the agent's edit of .clawboo/setup ran")
	}
	saw := false
	for _, ev := range runEvents(t, e, run.ID) {
		saw = saw || ev.Detail == "setup: honest"
	}
	if !saw {
		t.Fatal("the base commit's setup did not run")
	}
}

func toWT(r board.Worktree) worktree.Worktree {
	return worktree.Worktree{
		TaskID: r.TaskID, RepoPath: r.RepoPath, RepoHash: worktree.RepoHash(r.RepoPath),
		Path: r.Path, Branch: r.Branch, BaseCommit: r.BaseCommit,
	}
}
