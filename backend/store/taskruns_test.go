package store

import (
	"context"
	"testing"
)

// A task's run list holds its own runs and its critic's reviews (ad-hoc
// runs whose key is "review:<task>:…", written with the row), newest
// first; another task's reviews, a look-alike id and TaskRuns stay out.
func TestTaskRunsWithReviews(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	err := s.WriteBatch(ctx, func(b *Batch) error {
		for _, r := range []NewRun{
			{ID: "r1", RuntimeID: "clawboo-mock", TaskID: "t_1", Title: "work", CreatedAt: 1},
			// A live review: its key is on the row from its start.
			{ID: "r2", RuntimeID: "clawboo-mock", Title: "review", CreatedAt: 2, SessionKey: "review:t_1:1:x"},
			{ID: "r3", RuntimeID: "clawboo-mock", TaskID: "t_1", Title: "fix", CreatedAt: 3},
			// Not t_1's: another task, and an id LIKE 't_1' would match.
			{ID: "r4", RuntimeID: "clawboo-mock", Title: "other", CreatedAt: 4, SessionKey: "review:t2:1:y"},
			{ID: "r5", RuntimeID: "clawboo-mock", Title: "look-alike", CreatedAt: 5, SessionKey: "review:tx1:1:z"},
			{ID: "r6", RuntimeID: "clawboo-mock", Title: "look-alike 2", CreatedAt: 6, SessionKey: "review:t_10:1:z"},
		} {
			if err := b.InsertRun(r); err != nil {
				return err
			}
		}
		// A review that ended: finished with a session of its own.
		if err := b.InsertRun(NewRun{ID: "r7", RuntimeID: "clawboo-mock", Title: "review 2", CreatedAt: 7}); err != nil {
			return err
		}
		return b.FinishOrSave(NewRun{ID: "r7", Final: &RunFinish{
			ID: "r7", Status: RunSucceeded, EndedAt: 8,
			Session: `{"v":1}`, SessionKey: "review:t_1:2:w",
		}}, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.TaskRunsWithReviews(ctx, "t_1", 50)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ id, role string }{{"r7", RoleCritic}, {"r3", RoleTask}, {"r2", RoleCritic}, {"r1", RoleTask}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range want {
		if got[i].ID != w.id || got[i].Role != w.role {
			t.Fatalf("run %d: %s %s, want %s %s", i, got[i].ID, got[i].Role, w.id, w.role)
		}
	}
	if got, _ := s.TaskRunsWithReviews(ctx, "t_1", 2); len(got) != 2 || got[0].ID != "r7" {
		t.Fatalf("limit: %+v", got)
	}
	// TaskRuns (what resumes and merges read) is the task's own runs only.
	own, err := s.TaskRuns(ctx, "t_1", 50)
	if err != nil || len(own) != 2 || own[0].ID != "r3" {
		t.Fatalf("own runs: %+v %v", own, err)
	}
	// A key written without a session is no resume handle.
	if v, err := s.LastSession(ctx, "clawboo-mock", "review:t_1:1:x"); err != nil || v != "" {
		t.Fatalf("last session: %q %v", v, err)
	}
	if v, err := s.LastSession(ctx, "clawboo-mock", "review:t_1:2:w"); err != nil || v != `{"v":1}` {
		t.Fatalf("last session: %q %v", v, err)
	}
}
