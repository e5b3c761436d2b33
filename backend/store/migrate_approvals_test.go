package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestDeviceHistoryMigrationKeepsApprovals: a database at schema 24 with
// approvals opens at the current schema with every row and column intact
// and the pending index rebuilt; the table then takes kind 'device', only
// already answered, and still refuses a kind it does not know.
func TestDeviceHistoryMigrationKeepsApprovals(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "clawboo.db")
	db := dbAtSchema(t, path, 24)
	const row = `SELECT id, kind, title, tool, command, args, folder, agent_id, team_id, task_id, run_id, reason, risk,
		status, created_at, expires_at, COALESCE(resolved_at, -1), resolved_by, note, always, scope FROM approvals ORDER BY id`
	for _, q := range []string{
		`INSERT INTO approvals(id, kind, title, tool, args, agent_id, team_id, reason, risk, status, created_at, expires_at, always)
			VALUES ('a1', 'tool', 'alice wants delete_path', 'delete_path', '{"path":"/tmp"}', 'alice', 'red', 'clean up', 'high', 'pending', 10, 20, 1)`,
		`INSERT INTO approvals(id, kind, title, command, folder, task_id, run_id, status, created_at, expires_at, resolved_at, resolved_by, note, always, scope)
			VALUES ('a2', 'command', 'run make test', 'make test', '/w', 'T1', 'R1', 'approved', 11, 21, 15, 'phone: Pixel 8', 'ok', 1, 'session')`,
		`INSERT INTO approvals(id, kind, title, status, created_at, expires_at, resolved_by, note)
			VALUES ('a3', 'command', 'rm', 'expired', 12, 22, 'system', 'nobody answered in time')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	before := dump(t, db, row)
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	after := dump(t, s.Reader(), row)
	if len(after) != 3 || len(before) != 3 {
		t.Fatalf("rows before %v, after %v", before, after)
	}
	for i := range before {
		if before[i] != after[i] {
			t.Fatalf("row %d changed:\n%s\n%s", i, before[i], after[i])
		}
	}
	var idx string
	if err := s.Reader().QueryRow(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'approvals_pending'`).Scan(&idx); err != nil {
		t.Fatalf("the pending index is gone: %v", err)
	}
	if _, err := s.Writer().Exec(`INSERT INTO approvals(id, kind, title, status, created_at, expires_at, resolved_at, resolved_by)
		VALUES ('d1', 'device', 'Paired a phone: Pixel 8', 'approved', 30, 30, 30, 'phone: Pixel 8')`); err != nil {
		t.Fatalf("a device entry: %v", err)
	}
	for _, bad := range []string{
		`INSERT INTO approvals(id, kind, title, status, created_at, expires_at) VALUES ('d2', 'device', 'x', 'pending', 1, 2)`,
		`INSERT INTO approvals(id, kind, title, status, created_at, expires_at) VALUES ('d3', 'nope', 'x', 'approved', 1, 2)`,
	} {
		if _, err := s.Writer().Exec(bad); err == nil {
			t.Fatalf("accepted: %s", bad)
		}
	}
}

// dump is every row of query, each as one string.
func dump(t *testing.T, db interface {
	Query(string, ...any) (*sql.Rows, error)
}, query string,
) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		line := ""
		for i, v := range vals {
			line += cols[i] + "=" + v.String + ";"
		}
		out = append(out, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
