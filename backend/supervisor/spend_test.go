package supervisor

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

func TestEveryCostKind(t *testing.T) {
	logs := &testkit.SyncBuffer{}
	e := setupTasks(t, Options{Log: slog.New(slog.NewTextHandler(logs, nil))})
	ctx := context.Background()
	cases := []struct {
		msg  string
		kind string
		usd  float64
	}{
		{"!cost 0.5\n!cost 0.25", "reported", 0.75},
		{"!usage 1000000 1000000 claude-sonnet-4", "token-estimate", 18},
		{"!usage 1000000 0 some-unknown-model", "token-estimate", 3},
		{"!localcost 5000 5000 llama3", "local", 0},
		{"!ok " + strings.Repeat("a", 400), "char-estimate", 0},
	}
	for _, tc := range cases {
		r := e.run(t, executor.Mock, tc.msg)
		if r.CostKind == nil || *r.CostKind != tc.kind || r.CostUSD == nil {
			t.Fatalf("%q: %+v", tc.msg, r)
		}
		if tc.kind != "char-estimate" && (*r.CostUSD < tc.usd-1e-9 || *r.CostUSD > tc.usd+1e-9) {
			t.Fatalf("%q: $%v, want $%v", tc.msg, *r.CostUSD, tc.usd)
		}
		if tc.kind == "char-estimate" && *r.CostUSD <= 0 {
			t.Fatalf("no character estimate: %+v", r)
		}
		n, kind, err := e.ledger.RunSpend(ctx, r.ID)
		if err != nil || string(kind) != tc.kind || (n.USD()-*r.CostUSD) > 1e-9 || (*r.CostUSD-n.USD()) > 1e-9 {
			t.Fatalf("%q: ledger says %v %s %v", tc.msg, n, kind, err)
		}
		saved := e.ledger2run(t, r.ID)
		if *saved.CostKind != tc.kind {
			t.Fatalf("ledger row kind %s", *saved.CostKind)
		}
	}
	if !strings.Contains(logs.String(), "spend_unreported") {
		t.Fatal("a run with no cost report did not warn")
	}
	// An aborted run with output but no report is estimated but not warned
	// about.
	before := strings.Count(logs.String(), "spend_unreported")
	h, _ := e.sup.Start(ctx, StartParams{RuntimeID: executor.Mock, Message: "!ok partial\n!abort"})
	testkit.Eventually(t, 20*time.Second, "the partial output", func() bool {
		for _, ev := range e.rawEvents(t, h.ID) {
			if ev.Kind == executor.KindTextDelta {
				return true
			}
		}
		return false
	})
	_ = e.sup.Abort(ctx, h.ID)
	r, _ := h.Wait(ctx)
	if r.CostKind == nil || *r.CostKind != "char-estimate" || strings.Count(logs.String(), "spend_unreported") != before {
		t.Fatalf("%+v", r)
	}
}

func (e *taskEnv) ledger2run(t *testing.T, id string) store.Run {
	t.Helper()
	r, err := e.st.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestWarnBudgetCommentsAndCapKillsMidRun(t *testing.T) {
	e := setupTasks(t, Options{})
	ctx := context.Background()
	repo := gitRepo(t)
	// Warn mode: the task gets notes at 80 % and 100 %, and the run goes on.
	warned := e.task(t, board.NewTask{Title: "warned", RepoPath: repo, TeamID: "red"})
	if _, err := e.ledger.SetBudget(ctx, budget.ScopeTeam, "red", budget.FromUSD(1), "warn"); err != nil {
		t.Fatal(err)
	}
	run, got := e.runTask(t, warned.ID, "!cost 0.85\n!cost 0.3\n!write a.txt a")
	if run.Status != store.RunSucceeded || got.Status != board.InReview {
		t.Fatalf("%+v %+v", run, got)
	}
	cs, _ := e.board.Comments(ctx, warned.ID)
	joined := ""
	for _, c := range cs {
		joined += c.Body + "\n"
	}
	if !strings.Contains(joined, "reached 80%") || !strings.Contains(joined, "reached 100%") {
		t.Fatalf("no budget warnings: %s", joined)
	}
	// Cap mode: crossing 100 % aborts the live run, releases the task with
	// the reason, and refuses the next dispatch before claiming.
	capped := e.task(t, board.NewTask{Title: "capped", RepoPath: repo})
	if _, err := e.ledger.SetBudget(ctx, budget.ScopeMission, capped.RootID, budget.FromUSD(1), "cap"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	run, got = e.runTask(t, capped.ID, "!cost 0.6\n!write wip.txt x\n!cost 0.6\n!silent 30000\n!ok never")
	if time.Since(start) > 15*time.Second {
		t.Fatal("the cap did not stop the run")
	}
	if run.Status != store.RunAborted || run.Error != "budget_paused:mission" || got.Status != board.Todo {
		t.Fatalf("%+v %+v", run, got)
	}
	if c := lastComment(t, e, capped.ID); c.Body != budget.PauseComment(budget.ScopeMission) {
		t.Fatalf("%+v", c)
	}
	_, err := e.sup.Start(ctx, StartParams{RuntimeID: executor.Mock, TaskID: capped.ID})
	if refusal(t, err) != "budget_paused" {
		t.Fatal(err)
	}
	// Resuming with a grace amount lets it run again.
	if _, _, err := e.ledger.Resume(ctx, budget.ScopeMission, capped.RootID, budget.FromUSD(5)); err != nil {
		t.Fatal(err)
	}
	if run, _ := e.runTask(t, capped.ID, "!write more.txt y"); run.Status != store.RunSucceeded {
		t.Fatalf("%+v", run)
	}
}

// TestCharEstimateIsPricedAtTheReportedModel: a runtime that reports no
// cost but names the model that served (OpenClaw's provider/model on a
// status event) is char-estimated at that model's price, not the default.
func TestCharEstimateIsPricedAtTheReportedModel(t *testing.T) {
	text := strings.Repeat("b", 4000)
	for _, c := range []struct{ model, want string }{
		{"anthropic/claude-haiku-4-5", "claude-haiku-4-5"},
		{"", ""}, // no model: the default rate
	} {
		f := &fake{start: func(_ context.Context, req executor.StartRequest) (executor.Run, error) {
			r := &fakeRun{em: req.Emitter}
			r.f = &fake{}
			req.Emitter.Go(func() {
				ctx := context.Background()
				_ = req.Emitter.Emit(ctx, executor.Event{Kind: executor.KindStatus, Phase: executor.PhaseRunning, Model: c.model})
				_ = req.Emitter.Emit(ctx, executor.Text(text))
				_ = req.Emitter.Emit(ctx, executor.Done(executor.DoneSuccess, "ok"))
			})
			return r, nil
		}}
		e := setupTasks(t, Options{}, f)
		r := e.run(t, executor.ClaudeCode, "hi")
		want := budget.CharCost(c.want, 2, int64(len(text))).USD()
		if r.CostKind == nil || *r.CostKind != "char-estimate" || r.CostUSD == nil || *r.CostUSD != want {
			t.Fatalf("%q: cost %v %v, want %v", c.model, r.CostUSD, r.CostKind, want)
		}
	}
	if budget.CharCost("claude-haiku-4-5", 2, 4000) == budget.CharCost("", 2, 4000) {
		t.Fatal("the test needs a model priced unlike the default")
	}
}

// A run that reports no cost is charged its estimate in the batch that
// writes its result: the spend row, the budget and the run's paused state
// land together, and the run is recorded as paused by the cap it tipped.
func TestRunEndEstimateCommitsWithResult(t *testing.T) {
	e := setupTasks(t, Options{})
	ctx := context.Background()
	task := e.task(t, board.NewTask{Title: "estimated", RepoPath: gitRepo(t)})
	if _, err := e.ledger.SetBudget(ctx, budget.ScopeMission, task.RootID, budget.FromUSD(0.000001), "cap"); err != nil {
		t.Fatal(err)
	}
	run, _ := e.runTask(t, task.ID, "!ok "+strings.Repeat("a", 4000))
	if run.Status != store.RunAborted || run.Error != "budget_paused:mission" || run.CostKind == nil || *run.CostKind != "char-estimate" {
		t.Fatalf("%+v", run)
	}
	b, err := e.ledger.Budget(ctx, budget.ScopeMission, task.RootID)
	if err != nil || b.Status != budget.StatusPaused || b.SpentNano <= 0 {
		t.Fatalf("%+v %v", b, err)
	}
	nano, kind, err := e.ledger.RunSpend(ctx, run.ID)
	if err != nil || kind != budget.KindCharEstimate || nano != b.SpentNano {
		t.Fatalf("run spend %v %q %v, budget %v", nano, kind, err, b.SpentNano)
	}
}

// A run that never reached a model (no key, a provider's 400, a crash
// before any output) produced nothing: it costs nothing, records no spend
// row and does not warn spend_unreported, which stays for runs whose output
// came without a cost.
func TestRunWithoutOutputCostsNothing(t *testing.T) {
	logs := &testkit.SyncBuffer{}
	e := setupTasks(t, Options{Log: slog.New(slog.NewTextHandler(logs, nil))})
	ctx := context.Background()
	for _, msg := range []string{"!error provider said 400: no API key", "!crash"} {
		r := e.run(t, executor.Mock, msg+"\n"+strings.Repeat("context ", 500))
		if r.Status != store.RunFailed {
			t.Fatalf("%q: status %s", msg, r.Status)
		}
		if r.CostUSD == nil || *r.CostUSD != 0 || r.CostKind != nil {
			t.Fatalf("%q: cost %v kind %v, want $0 and no kind", msg, r.CostUSD, r.CostKind)
		}
		if n, kind, err := e.ledger.RunSpend(ctx, r.ID); err != nil || n != 0 || kind != "" {
			t.Fatalf("%q: ledger charged %v %q %v", msg, n, kind, err)
		}
		saved := e.ledger2run(t, r.ID)
		if saved.CostUSD == nil || *saved.CostUSD != 0 || saved.CostKind != nil {
			t.Fatalf("%q: saved cost %v kind %v", msg, saved.CostUSD, saved.CostKind)
		}
	}
	if strings.Contains(logs.String(), "spend_unreported") {
		t.Fatalf("a run that produced nothing warned spend_unreported:\n%s", logs.String())
	}
	// Output without a cost is still estimated and warned about.
	r := e.run(t, executor.Mock, "!ok "+strings.Repeat("a", 400)+"\n!error then it broke")
	if r.CostKind == nil || *r.CostKind != "char-estimate" || r.CostUSD == nil || *r.CostUSD <= 0 {
		t.Fatalf("output without a cost: %v %v", r.CostUSD, r.CostKind)
	}
	if !strings.Contains(logs.String(), "spend_unreported") {
		t.Fatal("output without a cost did not warn")
	}
}
