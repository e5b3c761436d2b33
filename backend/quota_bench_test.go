package backend

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/quota"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
)

// BenchmarkQuotaGovernedTaskStart is what the governor costs at the door:
// a research task made and run on the mock (start to its saved result)
// on a backend whose ledger holds 200 windows (the most it keeps: 199 of
// other runtimes and the mock's own, under the threshold) and 20 quota
// budgets of the task's agent, beside the floor — the same on a backend
// with an empty ledger — in the same run, one after the other.
func BenchmarkQuotaGovernedTaskStart(bm *testing.B) {
	full, bare := newQuotaRig(bm), newQuotaRig(bm)
	ctx := context.Background()
	fullAgent, bareAgent := full.agent(bm, "Worker", "clawboo-mock", nil), bare.agent(bm, "Worker", "clawboo-mock", nil)
	u := 0.5
	for i := 0; i < quota.MaxWindows-1; i++ {
		full.b.Quota.Observe(ctx, fmt.Sprintf("rt%d", i%7), executor.QuotaWindow{
			Window: fmt.Sprintf("w%d", i), Status: "allowed",
			Utilization: &u, ResetsAt: time.Now().Add(time.Hour).UnixMilli(),
		})
	}
	full.b.Quota.Observe(ctx, "clawboo-mock", executor.QuotaWindow{
		Window: "five_hour", Status: "allowed", Utilization: &u,
		ResetsAt: time.Now().Add(time.Hour).UnixMilli(),
	})
	for i := 0; i < 20; i++ {
		if _, err := full.b.Quota.SetLimit(ctx, quota.Limit{Scope: "agent", ScopeID: fullAgent.ID, Window: fmt.Sprintf("w%d", i), MaxPercent: 90}); err != nil {
			bm.Fatal(err)
		}
	}
	if n := len(full.b.Quota.Windows()); n != quota.MaxWindows {
		bm.Fatalf("%d windows", n)
	}
	run := func(q *quotaRig, agentID string) time.Duration {
		task := q.task(bm, "Bench", "!ok", agentID)
		start := time.Now()
		h, err := q.b.Supervisor.Start(ctx, supervisor.StartParams{RuntimeID: "clawboo-mock", AgentID: agentID, TaskID: task.ID})
		if err != nil {
			bm.Fatal(err)
		}
		r, err := h.Wait(ctx)
		if err != nil || r.Status != store.RunSucceeded {
			bm.Fatalf("run: %+v %v", r, err)
		}
		return time.Since(start)
	}
	run(full, fullAgent.ID) // warm both
	run(bare, bareAgent.ID)
	var governed, floor time.Duration
	bm.ResetTimer()
	for i := 0; i < bm.N; i++ {
		governed += run(full, fullAgent.ID)
		floor += run(bare, bareAgent.ID)
	}
	bm.StopTimer()
	g, f := float64(governed.Microseconds())/float64(bm.N)/1000, float64(floor.Microseconds())/float64(bm.N)/1000
	bm.ReportMetric(g, "ms/governed-start")
	bm.ReportMetric(f, "ms/floor-start")
	bm.ReportMetric(g/f, "x-floor")
}
