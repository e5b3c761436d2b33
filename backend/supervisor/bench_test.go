package supervisor

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/executor"
)

func BenchmarkMockRunSequential(b *testing.B) {
	benchMockRuns(b, 1)
}

// BenchmarkMockRunConcurrent8 is eight callers each running `!ok` runs
// one after another: their results share commits (group commit).
func BenchmarkMockRunConcurrent8(b *testing.B) {
	benchMockRuns(b, 8)
}

// benchMockRuns runs b.N `!ok done` runs from `callers` goroutines, with a
// budget ledger (so each run writes its spend, as in `clawboo serve`), and
// reports the commits per run.
func benchMockRuns(b *testing.B, callers int) {
	e := setupB(b)
	e.sup.opts.Budget = budget.New(budget.Options{Store: e.st})
	ctx := context.Background()
	var left atomic.Int64
	left.Store(int64(b.N))
	b.ResetTimer()
	c0 := e.sup.journal.commits.Load()
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				h, err := e.sup.Start(ctx, StartParams{RuntimeID: executor.Mock, Message: "!ok done"})
				if err != nil {
					b.Error(err)
					return
				}
				if r, _ := h.Wait(ctx); r.Status != "succeeded" {
					b.Error(r)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(e.sup.journal.commits.Load()-c0)/float64(b.N), "commits/run")
}
