package board

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkPageSearch10k is one search of the board (GET /api/board?q=)
// at 10,000 tasks: the page and the counts over the whole filter.
func BenchmarkPageSearch10k(b *testing.B) {
	bd, _ := newBoard(b)
	ctx := context.Background()
	seedTasks(b, bd, 10_000)
	for _, f := range []Filter{
		{Query: "bench task 09999", Limit: 100},
		{Query: "bench", Limit: 100},
		{Query: "bench", Limit: 100, Statuses: []Status{Todo}},
		{Limit: 100, Statuses: []Status{Todo}},
	} {
		b.Run(fmt.Sprintf("q=%q,statuses=%v", f.Query, f.Statuses), func(b *testing.B) {
			for b.Loop() {
				if _, err := bd.Page(ctx, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// seedTasks creates n tasks titled "bench task %05d", every tenth cancelled.
func seedTasks(t testing.TB, bd *Board, n int) {
	t.Helper()
	cancelled := Cancelled
	for i := range n {
		task := mustCreate(t, bd, NewTask{Title: fmt.Sprintf("bench task %05d", i), Priority: i % 3})
		if i%10 == 0 {
			if _, err := bd.Update(context.Background(), task.ID, Patch{Status: &cancelled}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
