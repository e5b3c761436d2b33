package backend

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/routines"
)

// Two whole backends on one home (two processes sharing one database, as
// the lock of one instance per home cannot rule out during an upgrade or a
// crash): every due schedule fires once, through one backend's task runner.
func TestRoutineTwoBackendsOnOneHomeFireEachDueTimeOnce(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"CLAWBOO_ENABLE_MOCK_RUNTIME": "1", "HOME": home, config.EnvVault: "file", "PATH": os.Getenv("PATH")}
	getenv := func(k string) string { return env[k] }
	open := func() *Backend {
		cfg, err := config.Load(home, getenv)
		if err != nil {
			t.Fatal(err)
		}
		b, err := New(context.Background(), Options{Config: cfg, Getenv: getenv, Environ: func() []string { return []string{"HOME=" + home} }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = b.Close(context.Background()) })
		return b
	}
	a, b := open(), open()
	ctx := context.Background()
	name, rt := "Nightly", "clawboo-mock"
	ag, err := a.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	due := time.Now().Add(2 * time.Second).Truncate(time.Second).Add(time.Second)
	var ids []string
	for i := 0; i < 12; i++ {
		sc, err := a.Routines.Create(ctx, routines.NewSchedule{
			AgentID: ag.ID, Spec: "once@" + due.Format(time.RFC3339),
			Template: routines.Template{Title: "!ok nightly done", Kind: "research"},
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sc.ID)
	}
	// Both passes at once, just after the due time (each backend's own
	// timer may also wake: any number of passes must give one fire each).
	time.Sleep(time.Until(due) + 50*time.Millisecond)
	var wg sync.WaitGroup
	for _, bk := range []*Backend{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bk.Routines.Tick(ctx, time.Now())
		}()
	}
	wg.Wait()
	tasks := map[string]bool{}
	for _, id := range ids {
		var fires []routines.Fire
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			fires, _, err = b.Routines.Fires(ctx, id, "", 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(fires) > 0 && fires[0].Outcome != routines.OutcomeRunning {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if len(fires) != 1 || fires[0].Outcome != routines.OutcomeSuccess || fires[0].TaskID == nil || fires[0].RunID == nil {
			t.Fatalf("schedule %s: fires %+v", id, fires)
		}
		tasks[*fires[0].TaskID] = true
		sc, _ := a.Routines.Get(ctx, id)
		if sc.Status != routines.Idle || sc.NextRunAt != nil {
			t.Fatalf("a fired once@ is disarmed: %+v", sc)
		}
	}
	if len(tasks) != len(ids) {
		t.Fatalf("%d tasks for %d fires", len(tasks), len(ids))
	}
	// And exactly those tasks exist on the board: no second fire made one.
	n := 0
	for id := range tasks {
		if task, err := a.Board.Get(ctx, id); err == nil && task.Title == "!ok nightly done" {
			n++
		}
	}
	if n != len(ids) {
		t.Fatalf("%d of %d fire tasks on the board", n, len(ids))
	}
}
