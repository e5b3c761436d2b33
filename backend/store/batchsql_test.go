package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
)

// A row written by Batch.Exec commits or rolls back with the batch, and
// QueryRow sees the batch's own writes.
func TestBatchExecAndQueryRow(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const ins = `INSERT INTO spend(run_id, at, nano, kind, runtime_id, model) VALUES (?, ?, ?, 'local', 'mock', ?)`
	type named string
	err = st.WriteBatch(ctx, func(b *Batch) error {
		if err := b.QueryRow(`SELECT run_id FROM spend WHERE run_id = ?`, "r1").Scan(new(string)); !errors.Is(err, sql.ErrNoRows) {
			t.Fatalf("empty table: %v", err)
		}
		if n, err := b.Exec(ins, "r1", int64(5), int64(0), nil); err != nil || n != 1 {
			t.Fatalf("exec: %d %v", n, err)
		}
		var id named
		var at int64
		var model string
		if err := b.QueryRow(`SELECT run_id, at, model FROM spend WHERE run_id = ?`, "r1").Scan(&id, &at, &model); err != nil {
			t.Fatal(err)
		}
		if id != "r1" || at != 5 || model != "" {
			t.Fatalf("read back %q %d %q", id, at, model)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err = st.WriteBatch(ctx, func(b *Batch) error {
		if _, err := b.Exec(ins, "r2", int64(6), int64(0), "m"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	var n int
	if err := st.Reader().QueryRowContext(ctx, `SELECT count(*) FROM spend`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("after a rolled-back batch: %d rows, %v", n, err)
	}
}
