package board

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkClaims8 has 8 concurrent claimers take ready tasks until none is
// left (each claim is the single conditional statement), and reports
// claims per second and double claims, which must be zero. One op is one
// claim: b.N tasks are created (untimed) and all of them claimed.
func BenchmarkClaims8(b *testing.B) {
	bd, _ := newBoard(b)
	ctx := context.Background()
	n := b.N
	for i := 0; i < n; i++ {
		mustCreate(b, bd, NewTask{Title: fmt.Sprint("t", i)})
	}
	var mu sync.Mutex
	seen := map[string]int{}
	var errs atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; ; i++ {
				t, err := bd.ClaimNext(ctx, "", ClaimSpec{AgentID: fmt.Sprint("a", g), RunID: fmt.Sprint("r", g, "-", i)})
				if errors.Is(err, ErrNotFound) {
					return
				}
				if err != nil {
					errs.Add(1)
					return
				}
				mu.Lock()
				seen[t.ID]++
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
	el := time.Since(start)
	b.StopTimer()
	double := 0
	for _, c := range seen {
		if c != 1 {
			double++
		}
	}
	if len(seen) != n || double != 0 || errs.Load() != 0 {
		b.Fatalf("claimed %d of %d, double %d, errors %d", len(seen), n, double, errs.Load())
	}
	b.ReportMetric(float64(n)/el.Seconds(), "claims/s")
	b.ReportMetric(float64(double), "double-claims")
}
