package api

import (
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/store"
)

// GET /api/board/{id} lists the critic's review of the task (an ad-hoc run
// of the mock, which reports no session) with role critic next to the
// task's own run, and leaves another task's reviews out.
func TestTaskListsItsCriticRuns(t *testing.T) {
	f := newFixture(t, nil)
	repo := gitRepo(t)
	desc := `!ok done\n!write hello.txt hi\n!critic {\"findings\":[{\"severity\":\"style\",\"note\":\"call it greeting.txt\"}]}`
	task := f.createTask(t, `{"title":"greet","description":"`+desc+`","repoPath":"`+repo+`","verifyCommand":"test -f hello.txt","critic":"on"}`)
	other := f.createTask(t, `{"title":"other","kind":"research"}`)
	if err := f.st.WriteBatch(t.Context(), func(b *store.Batch) error {
		if err := b.InsertRun(store.NewRun{ID: "01ZZZZZZZZZZZZZZZZZZZZZZZY", RuntimeID: "clawboo-mock", TaskID: other.ID, Title: "other's work", CreatedAt: 1}); err != nil {
			return err
		}
		return b.InsertRun(store.NewRun{
			ID: "01ZZZZZZZZZZZZZZZZZZZZZZZZ", RuntimeID: "clawboo-mock", Title: "other's review", CreatedAt: 2,
			SessionKey: "review:" + other.ID + ":1:x",
		})
	}); err != nil {
		t.Fatal(err)
	}
	code, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"taskId":"`+task.ID+`"}`)
	if code != 200 {
		t.Fatal(code, string(b))
	}
	code, _, b = f.do(t, "GET", "/api/board/"+task.ID, "")
	if code != 200 {
		t.Fatal(code, string(b))
	}
	got := decode[struct {
		Task     board.Task
		Comments []board.Comment
		Runs     []struct {
			ID     string  `json:"id"`
			TaskID *string `json:"taskId"`
			Status string  `json:"status"`
			Role   string  `json:"role"`
		}
	}](t, b)
	if got.Task.Status != board.InReview || len(got.Runs) != 2 { // verified and reviewed: ready to merge
		t.Fatalf("%s", b)
	}
	critic, work := got.Runs[0], got.Runs[1]
	if critic.Role != store.RoleCritic || critic.TaskID != nil || critic.Status != store.RunSucceeded ||
		work.Role != store.RoleTask || work.TaskID == nil || *work.TaskID != task.ID {
		t.Fatalf("runs: %+v", got.Runs)
	}
	var bodies []string
	for _, c := range got.Comments {
		bodies = append(bodies, c.Body)
	}
	if all := strings.Join(bodies, "\n"); !strings.Contains(all, "call it greeting.txt") {
		t.Fatalf("no finding comment: %s", all)
	}
	// The other task lists its own run and review only.
	_, _, b = f.do(t, "GET", "/api/board/"+other.ID, "")
	if !strings.Contains(string(b), `"role":"critic"`) || strings.Count(string(b), `"role":`) != 2 || strings.Contains(string(b), critic.ID) {
		t.Fatalf("other: %s", b)
	}
}
