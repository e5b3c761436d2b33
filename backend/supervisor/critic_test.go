package supervisor

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
)

// criticTask is a child task (risky: it has a parent) whose description
// scripts the mock critic's answers, one !critic line per review.
func criticTask(t *testing.T, e *taskEnv, mode string, critics ...string) board.Task {
	t.Helper()
	repo := gitRepo(t)
	parent := e.task(t, board.NewTask{Title: "mission", RepoPath: repo, Kind: board.Research})
	desc := "Greet the world.\nAC: hello.txt exists.\n"
	for _, c := range critics {
		desc += "!critic " + c + "\n"
	}
	return e.task(t, board.NewTask{Title: "add a greeting", Description: desc, ParentID: parent.ID, VerifyCommand: "test -f hello.txt", Critic: mode})
}

// criticRuns are the ids of the critic's runs so far: their ledger title
// names the task by its title (never its id), their session key its id.
func criticRuns(t *testing.T, e *taskEnv, taskID string) []string {
	t.Helper()
	rows, err := e.st.Reader().QueryContext(context.Background(), `SELECT id FROM runs WHERE task_id IS NULL AND title LIKE 'Critic review of "%'
		AND session_key LIKE ? ORDER BY created_at, id`, "review:"+taskID+":%")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		_ = rows.Scan(&id)
		ids = append(ids, id)
	}
	return ids
}

func taskRuns(t *testing.T, e *taskEnv, taskID string) int {
	t.Helper()
	var n int
	if err := e.st.Reader().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM runs WHERE task_id = ?`, taskID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func commentWith(t *testing.T, e *taskEnv, taskID, text string) *board.Comment {
	t.Helper()
	cs, err := e.board.Comments(context.Background(), taskID)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cs {
		if strings.Contains(cs[i].Body, text) {
			return &cs[i]
		}
	}
	return nil
}

const (
	crashFinding = `{"findings":[{"severity":"crash","file":"hello.txt","line":1,"note":"it panics on empty input"}]}`
	styleFinding = `{"findings":[{"severity":"style","file":"hello.txt","line":1,"note":"name it greeting.txt"}]}`
)

func TestCriticPassRecordsDebtAndChargesTheTask(t *testing.T) {
	e := setupTasks(t, Options{})
	task := criticTask(t, e, "", "Here is my review: ```json "+styleFinding+" ```")
	_, got := e.runTask(t, task.ID, "!write hello.txt hi")
	if got.Status != board.InReview || got.Verification == nil || !got.Verification.Passed {
		t.Fatalf("task %+v", got)
	}
	ids := criticRuns(t, e, task.ID)
	if len(ids) != 1 || taskRuns(t, e, task.ID) != 1 {
		t.Fatalf("critic runs %v, task runs %d", ids, taskRuns(t, e, task.ID))
	}
	if c := commentWith(t, e, task.ID, "Debt:"); c == nil || !strings.Contains(c.Body, "[style] hello.txt:1 — name it greeting.txt") {
		t.Fatalf("debt comment %+v", c)
	}
	if c := commentWith(t, e, task.ID, "Changed 1 file"); c == nil || !strings.Contains(c.Body, "recorded as debt") {
		t.Fatalf("report %+v", c)
	}
	// The critic's cost is the task's: its spend rows carry the task's
	// mission and agent scopes.
	var n int
	if err := e.st.Reader().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM spend WHERE run_id = ? AND mission_id = ?`,
		ids[0], task.RootID).Scan(&n); err != nil || n == 0 {
		t.Fatalf("critic spend rows under mission %s: %d %v", task.RootID, n, err)
	}
	// Nothing of the review checkout is left.
	if exists(e.home + "/reviews") {
		if ents, _ := readDirNames(e.home + "/reviews"); len(ents) > 0 {
			for _, h := range ents {
				if sub, _ := readDirNames(e.home + "/reviews/" + h); len(sub) > 0 {
					t.Fatalf("review checkout left: %s/%v", h, sub)
				}
			}
		}
	}
}

func TestCriticBlocksThenTheFixPasses(t *testing.T) {
	e := setupTasks(t, Options{})
	task := criticTask(t, e, "on", crashFinding, `{"findings":[]}`)
	h, err := e.sup.Start(context.Background(), StartParams{RuntimeID: executor.Mock, TaskID: task.ID, Message: "!write hello.txt hi"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	// Whoever waits for the first run sees where the chain left the task.
	if ft := h.Task(); ft == nil || ft.Status != board.InReview {
		t.Fatalf("handle's task %+v", ft)
	}
	got, _ := e.board.Get(context.Background(), task.ID)
	if got.Status != board.InReview {
		t.Fatalf("task %+v", got)
	}
	if n, ids := taskRuns(t, e, task.ID), criticRuns(t, e, task.ID); n != 2 || len(ids) != 2 {
		t.Fatalf("task runs %d, critic runs %v", n, ids)
	}
	if c := commentWith(t, e, task.ID, "sending a fix run (1 of 2)"); c == nil || !strings.Contains(c.Body, "it panics on empty input") {
		t.Fatalf("fix comment %+v", c)
	}
	// The fix ran on the same worktree (a task run: the task's session).
	w, err := e.board.Worktree(context.Background(), task.ID)
	if err != nil || !exists(w.Path+"/hello.txt") {
		t.Fatalf("worktree %+v %v", w, err)
	}
}

func TestCriticExhaustedBlocksTheTask(t *testing.T) {
	e := setupTasks(t, Options{})
	task := criticTask(t, e, "", crashFinding)
	_, got := e.runTask(t, task.ID, "!write hello.txt hi")
	if got.Status != board.Blocked || got.RunID != nil {
		t.Fatalf("task %+v", got)
	}
	if n, ids := taskRuns(t, e, task.ID), criticRuns(t, e, task.ID); n != 3 || len(ids) != 3 {
		t.Fatalf("task runs %d, critic runs %v", n, ids)
	}
	if c := lastComment(t, e, task.ID); !strings.Contains(c.Body, "Blocked by the critic") || !strings.Contains(c.Body, "[crash] hello.txt:1") {
		t.Fatalf("last comment %+v", c)
	}
}

func TestCriticRunsOnlyWhenWanted(t *testing.T) {
	teamOn := true
	e := setupTasks(t, Options{TeamCritic: func(context.Context, string) bool { return teamOn }})
	// Not risky (no parent, one file): no review in auto mode.
	plain := e.task(t, board.NewTask{Title: "small", RepoPath: gitRepo(t), VerifyCommand: "true", Description: "!critic " + crashFinding})
	if _, got := e.runTask(t, plain.ID, "!write a.txt x"); got.Status != board.InReview || len(criticRuns(t, e, plain.ID)) != 0 {
		t.Fatalf("plain task %+v", got)
	}
	// Risky but off.
	off := criticTask(t, e, "off", crashFinding)
	if _, got := e.runTask(t, off.ID, "!write hello.txt hi"); got.Status != board.InReview || len(criticRuns(t, e, off.ID)) != 0 {
		t.Fatalf("critic off: %+v", got)
	}
	// A red verify is never reviewed.
	red := criticTask(t, e, "on", crashFinding)
	if _, got := e.runTask(t, red.ID, "!write other.txt hi"); got.Status != board.InReview || len(criticRuns(t, e, red.ID)) != 0 {
		t.Fatalf("red verify: %+v", got)
	}
	// A team that turned the critic off: auto skips, on still reviews.
	teamOn = false
	team := "team-1"
	if _, err := e.st.Writer().ExecContext(context.Background(), `INSERT INTO teams(id, name, created_at, updated_at) VALUES (?, 't', 0, 0)`, team); err != nil {
		t.Fatal(err)
	}
	repo := gitRepo(t)
	parent := e.task(t, board.NewTask{Title: "mission", RepoPath: repo, Kind: board.Research, TeamID: team})
	auto := e.task(t, board.NewTask{Title: "auto", ParentID: parent.ID, VerifyCommand: "true", Description: "!critic " + crashFinding})
	if _, got := e.runTask(t, auto.ID, "!write a.txt x"); got.Status != board.InReview || len(criticRuns(t, e, auto.ID)) != 0 {
		t.Fatalf("team off, auto: %+v", got)
	}
	on := e.task(t, board.NewTask{Title: "on", ParentID: parent.ID, VerifyCommand: "true", Critic: "on", Description: "!critic not json at all"})
	if _, got := e.runTask(t, on.ID, "!write b.txt x"); got.Status != board.InReview || len(criticRuns(t, e, on.ID)) != 1 {
		t.Fatalf("team off, task on: %+v", got)
	}
	// An answer that is not JSON is debt, never a block.
	if c := commentWith(t, e, on.ID, "Debt:"); c == nil || !strings.Contains(c.Body, "was not JSON") {
		t.Fatalf("not-JSON debt %+v", c)
	}
}

func readDirNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out, err
}
