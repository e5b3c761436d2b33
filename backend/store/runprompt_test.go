package store

import (
	"context"
	"testing"
)

// A run's prompt is written with its row (InsertRun, and FinishOrSave when
// the first write never landed) and read back by GetRun and SessionRuns;
// the general list (ListRuns) leaves it out, and a run without one reads "".
func TestRunPromptRoundTrip(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	msg := "first line\nsecond line\n\n  indented third"
	err := s.WriteBatch(ctx, func(b *Batch) error {
		if err := b.InsertRun(NewRun{
			ID: "r1", RuntimeID: "clawboo-mock", Title: "first line", CreatedAt: 1,
			SessionKey: "agent:a:chat", Prompt: msg,
		}); err != nil {
			return err
		}
		if err := b.InsertRun(NewRun{ID: "r2", RuntimeID: "clawboo-mock", Title: "none", CreatedAt: 2, SessionKey: "agent:a:chat"}); err != nil {
			return err
		}
		// A run whose first write never landed: its final write is whole.
		return b.FinishOrSave(NewRun{
			ID: "r3", RuntimeID: "clawboo-mock", Title: "saved", CreatedAt: 3, Prompt: "saved whole\nyes",
			SessionKey: "agent:a:chat", Final: &RunFinish{ID: "r3", Status: RunSucceeded, EndedAt: 4},
		}, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.GetRun(ctx, "r1")
	if err != nil || r.Prompt != msg || r.Title != "first line" {
		t.Fatalf("GetRun: %+v %v", r, err)
	}
	if r, _ := s.GetRun(ctx, "r2"); r.Prompt != "" {
		t.Fatalf("no prompt: %q", r.Prompt)
	}
	if r, _ := s.GetRun(ctx, "r3"); r.Prompt != "saved whole\nyes" {
		t.Fatalf("FinishOrSave: %q", r.Prompt)
	}
	turns, err := s.SessionRuns(ctx, "agent:a:chat", "", 10)
	if err != nil || len(turns) != 3 || turns[2].ID != "r1" || turns[2].Prompt != msg {
		t.Fatalf("SessionRuns: %+v %v", turns, err)
	}
	all, err := s.ListRuns(ctx, "", 10)
	if err != nil || len(all) != 3 {
		t.Fatalf("ListRuns: %+v %v", all, err)
	}
	for _, r := range all {
		if r.Prompt != "" {
			t.Fatalf("ListRuns carries the prompt of %s", r.ID)
		}
	}
}
