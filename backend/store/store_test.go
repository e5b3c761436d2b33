package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func open(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOpenSetsPragmasAndMigrates(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	var mode string
	if err := s.w.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode=%q err=%v", mode, err)
	}
	for _, db := range []*sql.DB{s.w, s.r} {
		var fk, busy int
		if err := db.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
			t.Fatalf("foreign_keys=%d err=%v", fk, err)
		}
		if err := db.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&busy); err != nil || busy != 5000 {
			t.Fatalf("busy_timeout=%d err=%v", busy, err)
		}
	}
	var v int
	if err := s.w.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil || v != SchemaVersion() {
		t.Fatalf("version %d err %v", v, err)
	}
	// The read pool refuses writes.
	if _, err := s.r.ExecContext(ctx, `INSERT INTO settings(key, value, updated_at) VALUES ('x','y',1)`); err == nil {
		t.Fatal("read pool accepted a write")
	}
}

func TestReopenIsIdempotentAndRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutSetting(ctx, "k", "v", 1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := s.GetSetting(ctx, "k"); err != nil || v != "v" {
		t.Fatalf("setting lost: %q %v", v, err)
	}
	if _, err := s.w.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (999, 'future', 0)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "newer than this build") {
		t.Fatalf("want newer-schema refusal, got %v", err)
	}
}

func TestRunLedgerRoundTrip(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	if err := s.InsertAgent(ctx, "a1", "Alice", "clawboo-mock", 1); err != nil {
		t.Fatal(err)
	}
	agent := "a1"
	err := s.WriteBatch(ctx, func(b *Batch) error {
		if err := b.InsertRun(NewRun{ID: "r1", RuntimeID: "clawboo-mock", AgentID: &agent, Title: "hello", CreatedAt: 10}); err != nil {
			return err
		}
		if err := b.InsertRun(NewRun{ID: "r2", RuntimeID: "clawboo-mock", AgentID: nil, Title: "second", CreatedAt: 20}); err != nil {
			return err
		}
		if err := b.MarkRunning("r1", 11); err != nil {
			return err
		}
		for i := int64(1); i <= 3; i++ {
			if err := b.AppendEvent("r1", i, "text-delta", []byte(fmt.Sprintf(`{"seq":%d}`, i))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cost := 0.5
	err = s.WriteBatch(ctx, func(b *Batch) error {
		if err := b.FinishRun(RunFinish{ID: "r1", Status: RunSucceeded, DoneReason: "success", Summary: "ok", CostUSD: &cost, CostKind: "reported", LastSeq: 4, EndedAt: 12}); err != nil {
			return err
		}
		// A second terminal write must not overwrite the first.
		return b.FinishRun(RunFinish{ID: "r1", Status: RunFailed, Error: "late", EndedAt: 13})
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.GetRun(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != RunSucceeded || *r.DoneReason != "success" || r.Summary != "ok" || *r.CostUSD != 0.5 || r.LastSeq != 4 || *r.StartedAt != 11 || *r.EndedAt != 12 || *r.AgentID != "a1" || r.Live() {
		t.Fatalf("bad run %+v", r)
	}
	evs, err := s.ListEvents(ctx, "r1", 1, 10)
	if err != nil || len(evs) != 2 || evs[0].Seq != 2 || string(evs[1].Data) != `{"seq":3}` {
		t.Fatalf("events %+v %v", evs, err)
	}
	runs, err := s.ListRuns(ctx, "", 10)
	if err != nil || len(runs) != 2 || runs[0].ID != "r2" {
		t.Fatalf("list %+v %v", runs, err)
	}
	runs, err = s.ListRuns(ctx, "r2", 10)
	if err != nil || len(runs) != 1 || runs[0].ID != "r1" {
		t.Fatalf("page %+v %v", runs, err)
	}
	if n, err := s.MaxEventSeq(ctx, "r1"); err != nil || n != 3 {
		t.Fatalf("max seq %d %v", n, err)
	}
	live, err := s.LiveRuns(ctx)
	if err != nil || len(live) != 1 || live[0].ID != "r2" {
		t.Fatalf("live %+v %v", live, err)
	}
	if _, err := s.GetRun(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	// Duplicate seq is refused: the ledger never holds two events at one seq.
	err = s.WriteBatch(ctx, func(b *Batch) error { return b.AppendEvent("r1", 2, "x", []byte("{}")) })
	if err == nil {
		t.Fatal("duplicate seq accepted")
	}
	// An unknown agent violates the foreign key.
	ghost := "ghost"
	err = s.WriteBatch(ctx, func(b *Batch) error {
		return b.InsertRun(NewRun{ID: "r3", RuntimeID: "x", AgentID: &ghost, Title: "", CreatedAt: 1})
	})
	if err == nil {
		t.Fatal("foreign key not enforced")
	}
}

func TestConcurrentWritersNeverBusy(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				id := fmt.Sprintf("r%d-%d", g, i)
				err := s.WriteBatch(ctx, func(b *Batch) error {
					if err := b.InsertRun(NewRun{ID: id, RuntimeID: "x", CreatedAt: 1}); err != nil {
						return err
					}
					return b.AppendEvent(id, 1, "done", []byte("{}"))
				})
				if err != nil {
					errs <- err
					return
				}
				if _, err := s.GetRun(ctx, id); err != nil {
					errs <- err
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestSettings(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	if _, err := s.GetSetting(ctx, "a"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if err := s.PutSetting(ctx, "a", "1", 1); err != nil {
		t.Fatal(err)
	}
	if err := s.PutSetting(ctx, "a", "2", 2); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.GetSetting(ctx, "a"); v != "2" {
		t.Fatal(v)
	}
	if err := s.DeleteSetting(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetSetting(ctx, "a"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
}

func BenchmarkAppendEventsBatched(b *testing.B) {
	s := open(b)
	ctx := context.Background()
	if err := s.WriteBatch(ctx, func(bt *Batch) error {
		return bt.InsertRun(NewRun{ID: "r", RuntimeID: "x", AgentID: nil, Title: "", CreatedAt: 1})
	}); err != nil {
		b.Fatal(err)
	}
	data := []byte(`{"runId":"01JABCDEFGHJKMNPQRSTVWXYZ0","seq":1,"ts":1700000000000,"kind":"text-delta","text":"x"}`)
	b.ResetTimer()
	const per = 500
	seq := int64(0)
	for i := 0; i < b.N; i += per {
		err := s.WriteBatch(ctx, func(bt *Batch) error {
			for j := 0; j < per; j++ {
				seq++
				if err := bt.AppendEvent("r", seq, "text-delta", data); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

func TestWALStaysBoundedWithBackgroundCheckpoints(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	var wal int
	if err := s.w.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&wal); err != nil || wal != 0 {
		t.Fatalf("writer must not checkpoint inside commits: %d %v", wal, err)
	}
	if err := s.WriteBatch(ctx, func(b *Batch) error { return b.InsertRun(NewRun{ID: "r", RuntimeID: "x", CreatedAt: 1}) }); err != nil {
		t.Fatal(err)
	}
	data := []byte(strings.Repeat("x", 500))
	for i := 0; i < 300; i++ {
		err := s.WriteBatch(ctx, func(b *Batch) error {
			for j := 0; j < 20; j++ {
				if err := b.AppendEvent("r", int64(i*20+j+1), "text-delta", data); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The background loop checkpoints; a direct call shows what is left.
	if left := s.checkpoint(ctx); left != 0 {
		t.Fatalf("%d frames not checkpointed", left)
	}
	if n, err := s.MaxEventSeq(ctx, "r"); err != nil || n != 6000 {
		t.Fatal(n, err)
	}
}

func TestAppendEventsAnyCount(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	for _, n := range []int{0, 1, 2, 3, 5, 7, 31, 32, 33, 70} {
		id := fmt.Sprintf("run-%d", n)
		err := s.WriteBatch(ctx, func(b *Batch) error {
			if err := b.InsertRun(NewRun{ID: id, RuntimeID: "x", CreatedAt: 1}); err != nil {
				return err
			}
			evs := make([]NewEvent, n)
			for i := range evs {
				evs[i] = NewEvent{RunID: id, Seq: int64(i + 1), Kind: "text-delta", Data: []byte(fmt.Sprintf(`{"i":%d}`, i))}
			}
			return b.AppendEvents(evs)
		})
		if err != nil {
			t.Fatal(n, err)
		}
		rows, err := s.ListEvents(ctx, id, 0, 1000)
		if err != nil || len(rows) != n {
			t.Fatalf("%d: got %d rows, %v", n, len(rows), err)
		}
		for i, r := range rows {
			if r.Seq != int64(i+1) || string(r.Data) != fmt.Sprintf(`{"i":%d}`, i) {
				t.Fatalf("%d: row %d = %+v", n, i, r)
			}
		}
	}
}

func TestQuerierPreparesOnceAndNeverDeadlocksInATransaction(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	const q = `INSERT INTO settings(key, value, updated_at) VALUES (?, ?, 1)`
	// Inside a write transaction the writer's only connection is taken:
	// a first use runs unprepared and is prepared once the connection frees.
	done := make(chan error, 1)
	go func() {
		done <- s.InTx(ctx, func(tx *sql.Tx) error {
			for i := 0; i < 3; i++ {
				if _, err := s.Tx(tx).ExecContext(ctx, q, fmt.Sprint("k", i), "v"); err != nil {
					return err
				}
			}
			var n int
			return s.Tx(tx).QueryRowContext(ctx, `SELECT COUNT(*) FROM settings`).Scan(&n)
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a query inside a transaction deadlocked")
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.writeStmts.cached(q) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the statement was never prepared in the background")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := s.Write().ExecContext(ctx, q, "k9", "v"); err != nil {
		t.Fatal(err)
	}
	var v string
	if err := s.Read().QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, "k9").Scan(&v); err != nil || v != "v" {
		t.Fatal(v, err)
	}
	if s.readStmts.cached(`SELECT value FROM settings WHERE key = ?`) == nil {
		t.Fatal("read not cached")
	}
	// Errors surface from Scan and Exec, prepared or not.
	if err := s.Read().QueryRowContext(ctx, `SELECT nope FROM nowhere`).Scan(&v); err == nil {
		t.Fatal("bad query did not fail")
	}
}
