package board

import (
	"context"
	"testing"
)

func TestBaseBranchOnCreatePatchAndRecord(t *testing.T) {
	t.Parallel()
	b, _ := newBoard(t)
	ctx := context.Background()
	task := mustCreate(t, b, NewTask{Title: "t", BaseBranch: "release/1.0", MergeWhenGreen: true})
	if task.BaseBranch == nil || *task.BaseBranch != "release/1.0" || !task.MergeWhenGreen || task.Merged != nil {
		t.Fatalf("created %+v", task)
	}
	// Recording at worktree time keeps a person's choice.
	if got, err := b.RecordBaseBranch(ctx, task.ID, "main"); err != nil || *got.BaseBranch != "release/1.0" {
		t.Fatalf("record over a choice: %v %v", got.BaseBranch, err)
	}
	empty := ""
	off := false
	got, err := b.Update(ctx, task.ID, Patch{BaseBranch: &empty, MergeWhenGreen: &off})
	if err != nil || got.BaseBranch != nil || got.MergeWhenGreen {
		t.Fatalf("cleared: %+v %v", got, err)
	}
	if got, err := b.RecordBaseBranch(ctx, task.ID, "main"); err != nil || got.BaseBranch == nil || *got.BaseBranch != "main" {
		t.Fatalf("recorded: %v %v", got.BaseBranch, err)
	}
	for _, bad := range []string{"clawboo/task-x", "-f", "a b", "a..b", "x.lock", "a\nb", "refs/heads/clawboo/x", "/x"} {
		bad := bad
		_, err := b.Update(ctx, task.ID, Patch{BaseBranch: &bad})
		wantRule(t, err, "invalid")
		_, err = b.Create(ctx, NewTask{Title: "t", BaseBranch: bad})
		wantRule(t, err, "invalid")
	}
}

func TestMarkMerged(t *testing.T) {
	t.Parallel()
	b, _ := newBoard(t)
	ctx := context.Background()
	review := mustCreate(t, b, NewTask{Title: "in review"})
	for _, s := range []Status{InProgress, InReview} {
		s := s
		if _, err := b.Update(ctx, review.ID, Patch{Status: &s}); err != nil {
			t.Fatal(err)
		}
	}
	m := Merged{Base: "main", Commit: "abc", How: "ff"}
	got, err := b.MarkMerged(ctx, review.ID, m, nil)
	if err != nil || got.Status != Done || got.Merged == nil || got.Merged.Base != "main" || got.Merged.At == 0 || got.CompletedAt == nil {
		t.Fatalf("merged: %+v %v", got, err)
	}
	_, err = b.MarkMerged(ctx, review.ID, m, nil)
	wantRule(t, err, "already_merged")

	// A task an earlier build left done and unmerged stays done, merged.
	legacy := mustCreate(t, b, NewTask{Title: "legacy"})
	for _, s := range []Status{InProgress, Done} {
		s := s
		if _, err := b.Update(ctx, legacy.ID, Patch{Status: &s}); err != nil {
			t.Fatal(err)
		}
	}
	got, err = b.MarkMerged(ctx, legacy.ID, m, nil)
	if err != nil || got.Status != Done || got.Merged == nil {
		t.Fatalf("legacy: %+v %v", got, err)
	}
	// Done stays final for status moves.
	todo := Todo
	_, err = b.Update(ctx, legacy.ID, Patch{Status: &todo})
	wantRule(t, err, "illegal_transition")

	// A todo task cannot be merged; a cancelled one neither.
	fresh := mustCreate(t, b, NewTask{Title: "fresh"})
	_, err = b.MarkMerged(ctx, fresh.ID, m, nil)
	wantRule(t, err, "illegal_transition")
}
