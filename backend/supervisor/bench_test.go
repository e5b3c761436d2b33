package supervisor

import (
	"context"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
)

func BenchmarkMockRunSequential(b *testing.B) {
	e := setupB(b)
	ctx := context.Background()
	b.ResetTimer()
	c0 := e.sup.journal.commits.Load()
	defer func() { b.ReportMetric(float64(e.sup.journal.commits.Load()-c0)/float64(b.N), "commits/run") }()
	for i := 0; i < b.N; i++ {
		h, err := e.sup.Start(ctx, StartParams{RuntimeID: executor.Mock, Message: "!ok done"})
		if err != nil {
			b.Fatal(err)
		}
		if r, _ := h.Wait(ctx); r.Status != "succeeded" {
			b.Fatal(r)
		}
	}
}
