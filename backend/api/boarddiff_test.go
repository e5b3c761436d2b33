package api

import (
	"encoding/json"
	"testing"

	"github.com/clawboo/desktop/backend/board"
)

// A run that changed nothing leaves the task done with its worktree and
// branch removed: its diff is 200 with no changes, said to be removed.
func TestDiffOfTaskThatChangedNothing(t *testing.T) {
	f := newFixture(t, nil)
	repo := gitRepo(t)
	task := f.createTask(t, `{"title":"look only","description":"!ok nothing to do","repoPath":"`+repo+`"}`)
	code, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"taskId":"`+task.ID+`"}`)
	if code != 200 {
		t.Fatal(code, string(b))
	}
	if res := decode[runResult](t, b); res.Task == nil || res.Task.Status != board.Done {
		t.Fatalf("%s", b)
	}
	code, _, b = f.do(t, "GET", "/api/board/"+task.ID+"/diff", "")
	if code != 200 {
		t.Fatal(code, string(b))
	}
	var d struct {
		Changed, Removed, Merged bool
		Files                    int
		Branch                   string
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if d.Changed || !d.Removed || d.Merged || d.Files != 0 || d.Branch != "" {
		t.Fatalf("%s", b)
	}
}
