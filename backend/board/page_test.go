package board

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
)

// Paging walks every task exactly once, in List's order, whatever the page
// size; counts cover the whole filter, not the page.
func TestPageWalksEveryTaskOnce(t *testing.T) {
	b, _ := newBoard(t)
	ctx := context.Background()
	cancelled := Cancelled
	for i := range 230 {
		task := mustCreate(t, b, NewTask{Title: fmt.Sprintf("task %03d", i), Priority: i % 3})
		if i%10 == 0 {
			if _, err := b.Update(ctx, task.ID, Patch{Status: &cancelled}); err != nil {
				t.Fatal(err)
			}
		}
	}
	all, err := b.List(ctx, Filter{})
	if err != nil || len(all) != 230 {
		t.Fatalf("List without a limit: %d tasks, %v", len(all), err)
	}
	for _, recent := range []bool{false, true} {
		var got []string
		cursor := ""
		for pages := 0; ; pages++ {
			p, err := b.Page(ctx, Filter{Limit: 50, Cursor: cursor, Recent: recent})
			if err != nil {
				t.Fatal(err)
			}
			if p.Counts[Todo] != 207 || p.Counts[Cancelled] != 23 || p.Counts[Done] != 0 {
				t.Fatalf("counts %v", p.Counts)
			}
			for _, task := range p.Tasks {
				got = append(got, task.ID)
			}
			if p.NextCursor == "" {
				if pages != 4 || len(p.Tasks) != 30 {
					t.Fatalf("recent=%v: last page %d has %d tasks", recent, pages, len(p.Tasks))
				}
				break
			}
			cursor = p.NextCursor
		}
		want := make([]string, len(all))
		for i, task := range all {
			want[i] = task.ID
		}
		if recent {
			slices.Sort(want)
			slices.Sort(got)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("recent=%v: pages walked %d tasks, not List's %d in order", recent, len(got), len(want))
		}
	}
	// One status, searched.
	p, err := b.Page(ctx, Filter{Statuses: []Status{Cancelled}, Query: "task 1", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	// task 100, 110, … 190: 10 cancelled titles contain "task 1".
	if p.Counts[Cancelled] != 10 || p.Counts[Todo] != 0 || len(p.Tasks) != 5 || p.NextCursor == "" {
		t.Fatalf("search: %d tasks, counts %v, next %q", len(p.Tasks), p.Counts, p.NextCursor)
	}
	if p, err := b.Page(ctx, Filter{Query: all[3].ID}); err != nil || len(p.Tasks) != 1 || p.Tasks[0].ID != all[3].ID {
		t.Fatalf("search by id: %v %v", p.Tasks, err)
	}
	// A LIKE wildcard is a plain character.
	if p, err := b.Page(ctx, Filter{Query: "%"}); err != nil || len(p.Tasks) != 0 {
		t.Fatalf("%%: %d tasks %v", len(p.Tasks), err)
	}
	_, err = b.Page(ctx, Filter{Cursor: "not-a-cursor"})
	wantRule(t, err, "invalid")
	// A priority cursor is not a recent one.
	first, _ := b.Page(ctx, Filter{Limit: 1})
	_, err = b.Page(ctx, Filter{Cursor: first.NextCursor, Recent: true})
	wantRule(t, err, "invalid")
}

// A page carries its own tasks' dependencies.
func TestPageAttachesDependencies(t *testing.T) {
	b, _ := newBoard(t)
	ctx := context.Background()
	a := mustCreate(t, b, NewTask{Title: "a", Priority: 2})
	c := mustCreate(t, b, NewTask{Title: "c", Priority: 1})
	if _, err := b.Link(ctx, c.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	p, err := b.Page(ctx, Filter{Limit: 1, Cursor: mustPage(t, b, Filter{Limit: 1}).NextCursor})
	if err != nil || len(p.Tasks) != 1 || p.Tasks[0].ID != c.ID || !slices.Equal(p.Tasks[0].DependsOn, []string{a.ID}) {
		t.Fatalf("%+v %v", p.Tasks, err)
	}
}

func mustPage(t *testing.T, b *Board, f Filter) TaskPage {
	t.Helper()
	p, err := b.Page(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A search's pages (searchPage: one title scan when the matches fit on a
// page) are exactly what the plain filter's list and counts answer: the
// same tasks in the same order, the same cursors and counts, page after
// page, in both orders, with and without statuses, by id, and none.
func TestSearchPagesMatchTheFilter(t *testing.T) {
	b, _ := newBoard(t)
	ctx := context.Background()
	statuses := []Status{Todo, Cancelled, Backlog}
	for i := range 120 {
		task := mustCreate(t, b, NewTask{Title: fmt.Sprintf("Alpha %03d %s", i, []string{"red", "Green", "blue_x"}[i%3]), Priority: i % 3})
		if s := statuses[i%len(statuses)]; s != Todo {
			if _, err := b.Update(ctx, task.ID, Patch{Status: &s}); err != nil {
				t.Fatal(err)
			}
		}
	}
	one, _ := b.List(ctx, Filter{Query: "alpha 007"})
	queries := []string{"alpha", "GREEN", "blue_", "alpha 00", "alpha 007", "%", "nothing at all", one[0].ID}
	for _, q := range queries {
		for _, st := range [][]Status{nil, {Cancelled}, {Todo, Backlog}} {
			for _, recent := range []bool{false, true} {
				for _, limit := range []int{7, 40, 500} {
					f := Filter{Query: q, Statuses: st, Recent: recent, Limit: limit}
					for pages := 0; ; pages++ {
						got := mustPage(t, b, f)
						want, next, err := b.list(ctx, f)
						if err != nil {
							t.Fatal(err)
						}
						counts, err := b.counts(ctx, f)
						if err != nil {
							t.Fatal(err)
						}
						if !sameTasks(got.Tasks, want) || got.NextCursor != next || !maps.Equal(got.Counts, counts) {
							t.Fatalf("%+v page %d: got %d tasks %v %q, want %d tasks %v %q", f, pages,
								len(got.Tasks), got.Counts, got.NextCursor, len(want), counts, next)
						}
						if next == "" {
							break
						}
						f.Cursor = next
					}
				}
			}
		}
	}
}

func sameTasks(a, b []Task) bool {
	return slices.EqualFunc(a, b, func(x, y Task) bool {
		return x.ID == y.ID && x.Title == y.Title && x.Status == y.Status && slices.Equal(x.DependsOn, y.DependsOn)
	})
}
