package store

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkCompactRun compacts a finished run of 10,000 one-token deltas
// (a short flood), the size rule's usual case; deltas/s is the figure to
// watch.
func BenchmarkCompactRun(b *testing.B) {
	s := open(b)
	ctx := context.Background()
	const deltas = 10_000
	evs := make([]ev, deltas+1)
	for i := range deltas {
		evs[i] = text("x")
	}
	evs[deltas] = ev{Kind: "done", Reason: "success"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		id := fmt.Sprintf("run-%d", i)
		seedRun(b, s, id, true, evs)
		b.StartTimer()
		st, err := s.CompactRun(ctx, id)
		if err != nil || st.Deleted != deltas {
			b.Fatal(st, err)
		}
	}
	b.ReportMetric(float64(deltas*b.N)/b.Elapsed().Seconds(), "deltas/s")
}
