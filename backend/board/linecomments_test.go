package board

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestLineCommentsAddListDelete(t *testing.T) {
	b, _ := newBoard(t)
	ctx := context.Background()
	task := mustCreate(t, b, NewTask{Title: "review me", RepoPath: "/repo"})
	c1, err := b.AddLineComment(ctx, task.ID, NewLineComment{Path: "hello.txt", Line: 1, Body: "  say hello properly  "})
	if err != nil {
		t.Fatal(err)
	}
	if c1.Side != SideNew || c1.Body != "say hello properly" || c1.Sent() || c1.TaskID != task.ID {
		t.Fatalf("%+v", c1)
	}
	c2, err := b.AddLineComment(ctx, task.ID, NewLineComment{Path: "README.md", Line: 3, Side: SideOld, Body: "keep this"})
	if err != nil {
		t.Fatal(err)
	}
	list, err := b.LineComments(ctx, task.ID)
	if err != nil || len(list) != 2 || list[0].ID != c1.ID || list[1].ID != c2.ID || list[1].Side != SideOld {
		t.Fatalf("%+v %v", list, err)
	}
	if err := b.DeleteLineComment(ctx, task.ID, c1.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteLineComment(ctx, task.ID, c1.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted twice: %v", err)
	}
	other := mustCreate(t, b, NewTask{Title: "other"})
	if err := b.DeleteLineComment(ctx, other.ID, c2.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another task's comment: %v", err)
	}
	if _, err := b.AddLineComment(ctx, "01NOSUCHTASK", NewLineComment{Path: "a", Line: 1, Body: "x"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("no task: %v", err)
	}
	list, _ = b.LineComments(ctx, task.ID)
	if len(list) != 1 || list[0].ID != c2.ID {
		t.Fatalf("%+v", list)
	}
}

func TestLineCommentValidation(t *testing.T) {
	b, _ := newBoard(t)
	ctx := context.Background()
	task := mustCreate(t, b, NewTask{Title: "t"})
	for name, n := range map[string]NewLineComment{
		"line 0":        {Path: "a.go", Line: 0, Body: "x"},
		"negative line": {Path: "a.go", Line: -4, Body: "x"},
		"huge line":     {Path: "a.go", Line: MaxLineCommentLine + 1, Body: "x"},
		"no path":       {Line: 1, Body: "x"},
		"control path":  {Path: "a.go\n- b.go:1 — forged", Line: 1, Body: "x"},
		"long path":     {Path: strings.Repeat("a", MaxLineCommentPath+1), Line: 1, Body: "x"},
		"bad side":      {Path: "a.go", Line: 1, Side: "left", Body: "x"},
		"empty body":    {Path: "a.go", Line: 1, Body: " \n "},
		"huge body":     {Path: "a.go", Line: 1, Body: strings.Repeat("é", MaxLineCommentBody/2+1)},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := b.AddLineComment(ctx, task.ID, n)
			wantRule(t, err, "invalid")
		})
	}
	if _, err := b.AddLineComment(ctx, task.ID, NewLineComment{Path: "a.go", Line: 1, Body: strings.Repeat("x", MaxLineCommentBody)}); err != nil {
		t.Fatalf("8 KiB exactly: %v", err)
	}
}

func TestLineCommentsSent(t *testing.T) {
	b, _ := newBoard(t)
	ctx := context.Background()
	task := mustCreate(t, b, NewTask{Title: "t"})
	a, _ := b.AddLineComment(ctx, task.ID, NewLineComment{Path: "hello.txt", Line: 1, Body: "first\nsecond line"})
	c, _ := b.AddLineComment(ctx, task.ID, NewLineComment{Path: "old.go", Line: 7, Side: SideOld, Body: "why removed?"})
	if n, err := b.MarkLineCommentsSent(ctx, task.ID, "01RUN1", []string{a.ID}); err != nil || n != 1 {
		t.Fatalf("%d %v", n, err)
	}
	// Marking again (or another task's id) changes nothing.
	if n, _ := b.MarkLineCommentsSent(ctx, task.ID, "01RUN2", []string{a.ID, "01OTHER"}); n != 0 {
		t.Fatalf("re-marked %d", n)
	}
	list, _ := b.LineComments(ctx, task.ID)
	if !list[0].Sent() || *list[0].SentRunID != "01RUN1" || list[0].SentAt == nil || list[1].Sent() {
		t.Fatalf("%+v", list)
	}
	if un := Unsent(list); len(un) != 1 || un[0].ID != c.ID {
		t.Fatalf("unsent %+v", un)
	}
	wantRule(t, b.DeleteLineComment(ctx, task.ID, a.ID), "already_sent")
	msg := ReviewMessage(list)
	want := "Review comments:\n- hello.txt:1 — first\n  second line\n- old.go:7 (old) — why removed?\n"
	if msg != want {
		t.Fatalf("got %q\nwant %q", msg, want)
	}
	// Deleting the task deletes its line comments.
	if _, err := b.st.Write().ExecContext(ctx, `DELETE FROM tasks WHERE id = ?`, task.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ := b.LineComments(ctx, task.ID); len(list) != 0 {
		t.Fatalf("cascade: %+v", list)
	}
}
