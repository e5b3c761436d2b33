// Package storetest is test support for the store's callers: a database
// that behaves as if its disk were full, so the supervisor and the API can
// prove they lose nothing and answer honestly when it is. It only runs SQL
// on the writer connection it is given; it imports nothing of the module.
package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// FillDisk makes the database behave as if its disk were full: the file
// may not grow by a page (SQLite's max_page_count on the writer
// connection), and the pages that new runs and run events would go to are
// packed, so any new run row, any event and any run row that grows fails
// with SQLITE_FULL, as on a full filesystem. w is the store's Writer. free
// lifts the cap.
func FillDisk(t testing.TB, w *sql.DB) (free func()) {
	t.Helper()
	ctx := context.Background()
	exec := func(q string, args ...any) error { _, err := w.ExecContext(ctx, q, args...); return err }
	// "~" sorts after every ULID, so filler rows pack the very pages where
	// the newest runs' rows and events go.
	if err := exec(`CREATE TABLE IF NOT EXISTS storetest_fill (b BLOB)`); err != nil {
		t.Fatal(err)
	}
	if err := exec(`INSERT OR IGNORE INTO runs(id, runtime_id, status, created_at) VALUES ('~fill', 'fill', 'succeeded', 0)`); err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := w.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if err := exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	n := 0
	fill := func(q string, arg func(size int) []any) {
		for _, size := range []int{3000, 800, 200, 50, 10, 1, 0} {
			for {
				n++
				err := exec(q, arg(size)...)
				if err == nil {
					continue
				}
				if !strings.Contains(err.Error(), "database or disk is full") {
					t.Fatalf("fill: %v", err)
				}
				break
			}
		}
	}
	fill(`INSERT INTO storetest_fill(b) VALUES (?)`, func(size int) []any { return []any{strings.Repeat("f", size)} })
	fill(`INSERT INTO runs(id, runtime_id, title, status, created_at) VALUES (?, '', ?, 'succeeded', 0)`, func(size int) []any {
		return []any{fmt.Sprintf("~fill%06d", n), strings.Repeat("f", size)}
	})
	fill(`INSERT INTO run_events(run_id, seq, kind, data) VALUES ('~fill', ?, 'x', ?)`, func(size int) []any {
		return []any{n, strings.Repeat("f", size)}
	})
	return func() {
		if err := exec(`PRAGMA max_page_count = 1073741823`); err != nil {
			t.Fatal(err)
		}
	}
}
