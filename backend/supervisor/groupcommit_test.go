package supervisor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/store/storetest"
	"github.com/clawboo/desktop/internal/testkit"
)

// A short run's row, events and run-end spend are written by the one
// commit that answers its result: one transaction per run, and everything
// is durable when Wait returns.
func TestShortRunIsOneCommit(t *testing.T) {
	e := setup(t, Options{})
	e.sup.opts.Budget = budget.New(budget.Options{Store: e.st})
	e.sup.journal.mu.Lock()
	e.sup.journal.linger = time.Hour // only the result's commit may take the row and events
	e.sup.journal.mu.Unlock()
	ctx := context.Background()
	before := e.sup.journal.commits.Load()
	const runs = 5
	for range runs {
		h, err := e.sup.Start(ctx, StartParams{RuntimeID: executor.Mock, Message: "!ok done"})
		if err != nil {
			t.Fatal(err)
		}
		r, err := h.Wait(ctx)
		if err != nil || r.Status != store.RunSucceeded {
			t.Fatalf("%+v %v", r, err)
		}
		// Durable as answered: the row, the log ending with done, the spend.
		row, err := e.st.GetRun(ctx, h.ID)
		if err != nil || row.Status != store.RunSucceeded {
			t.Fatalf("row: %+v %v", row, err)
		}
		evs, err := e.st.ListEvents(ctx, h.ID, 0, 100)
		if err != nil || len(evs) == 0 || evs[len(evs)-1].Kind != string(executor.KindDone) {
			t.Fatalf("events: %+v %v", evs, err)
		}
		if nano, kind, err := e.sup.opts.Budget.RunSpend(ctx, h.ID); err != nil || nano <= 0 || kind != budget.KindCharEstimate {
			t.Fatalf("spend: %v %q %v", nano, kind, err)
		}
	}
	if got := e.sup.journal.commits.Load() - before; got != runs {
		t.Fatalf("%d runs took %d commits; want one each", runs, got)
	}
}

// finishOp is a run's whole final row, as finish queues it.
func finishOp(id string) op {
	now := time.Now().UnixMilli()
	return op{kind: opFinish, runID: id, final: &store.NewRun{
		ID: id, RuntimeID: string(executor.Mock), Title: id, CreatedAt: now, StartedAt: &now,
		Final: &store.RunFinish{ID: id, Status: store.RunSucceeded, DoneReason: string(executor.DoneSuccess), EndedAt: now},
	}}
}

// holdLedger has a caller hold the ledger inside its transaction until
// the returned release is called; its result arrives on the channel.
func holdLedger(t *testing.T, j *journal, id string) (release func(), result <-chan error) {
	t.Helper()
	held, let := make(chan struct{}), make(chan struct{})
	o := finishOp(id)
	o.charge = func(*store.Batch, *store.RunFinish) error {
		select {
		case <-held:
		default:
			close(held)
		}
		<-let
		return nil
	}
	res := make(chan error, 1)
	go func() { res <- j.call(context.Background(), o) }()
	<-held
	return func() { close(let) }, res
}

// callAll queues one finish per id while the ledger is held, and waits
// until every one is queued behind the writer. Each result carries
// whether the row was readable the moment the call returned.
func callAll(t *testing.T, j *journal, st *store.Store, ids ...string) <-chan callResult {
	t.Helper()
	out := make(chan callResult, len(ids))
	for _, id := range ids {
		go func() {
			err := j.call(context.Background(), finishOp(id))
			_, gerr := st.GetRun(context.Background(), id)
			out <- callResult{id: id, err: err, durable: gerr == nil}
		}()
	}
	testkit.Eventually(t, 10*time.Second, "the calls to wait behind the writer", func() bool {
		j.mu.Lock()
		defer j.mu.Unlock()
		return j.waiters == len(ids)
	})
	return out
}

type callResult struct {
	id      string
	err     error
	durable bool
}

// Two runs' results that arrive while another commit is under way share
// the next commit, and neither is answered before it is durable.
func TestGroupCommitAnswersAfterCommit(t *testing.T) {
	e := setup(t, Options{})
	j := e.sup.journal
	before := j.commits.Load()
	release, first := holdLedger(t, j, "run-a")
	results := callAll(t, j, e.st, "run-b", "run-c")
	select {
	case r := <-results:
		t.Fatalf("%s answered while the ledger was still held: %+v", r.id, r)
	default:
	}
	release()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for range 2 {
		r := <-results
		if r.err != nil || !r.durable {
			t.Fatalf("%s answered before its row was durable: %+v", r.id, r)
		}
	}
	if got := j.commits.Load() - before; got != 2 {
		t.Fatalf("%d commits for a held batch and two results queued behind it; want 2", got)
	}
}

// A full disk met by a shared batch fails each run in it, in words: every
// caller gets the store's disk-full error, none is answered as saved.
func TestGroupCommitFullDiskFailsEachRun(t *testing.T) {
	e := setup(t, Options{})
	j := e.sup.journal
	j.backoff = []time.Duration{time.Millisecond}
	storetest.FillDisk(t, e.st.Writer())
	release, first := holdLedger(t, j, "run-a")
	results := callAll(t, j, e.st, "run-b", "run-c")
	release()
	if err := <-first; !store.IsDiskFull(err) {
		t.Fatalf("the held batch: %v", err)
	}
	for range 2 {
		r := <-results
		if !store.IsDiskFull(r.err) || r.durable {
			t.Fatalf("%s: %+v", r.id, r)
		}
		if msg := notSavedMessage(r.err); !strings.Contains(msg, "disk is full") {
			t.Fatalf("%s is told %q", r.id, msg)
		}
	}
	if _, err := e.st.GetRun(context.Background(), "run-b"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a failed batch left a row: %v", err)
	}
}
