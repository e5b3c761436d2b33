package backend

import (
	"context"
	"testing"
)

// mustTeam makes a team with exactly this id (tests that predate teams
// name their teams by id).
func mustTeam(t *testing.T, b *Backend, id string) {
	t.Helper()
	if _, err := b.Store.Writer().ExecContext(context.Background(),
		`INSERT OR IGNORE INTO teams(id, name, created_at, updated_at) VALUES (?, ?, 0, 0)`, id, id); err != nil {
		t.Fatal(err)
	}
}
