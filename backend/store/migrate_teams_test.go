package store

import (
	"context"
	"path/filepath"
	"testing"
)

// TestTeamsMigrationTurnsFreeTextIdsIntoTeams: a database at schema 8 with
// team ids on tasks, runs, chat posts, budgets, spend and memory opens at
// the current schema with one team per distinct id, named by it.
func TestTeamsMigrationTurnsFreeTextIdsIntoTeams(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "clawboo.db")
	db := dbAtSchema(t, path, 8)
	for _, q := range []string{
		`INSERT INTO tasks(id, title, description, status, priority, kind, team_id, root_id, depth, created_at, updated_at)
			VALUES ('t1', 'x', '', 'todo', 0, 'research', 'red', 't1', 0, 0, 0)`,
		`INSERT INTO runs(id, runtime_id, title, status, created_at, team_id) VALUES ('r1', 'clawboo-mock', '', 'succeeded', 0, 'blue')`,
		`INSERT INTO team_chat(room_id, seq, team_id, author_agent_id, kind, body, created_at) VALUES ('green', 1, 'green', 'a', 'peer', 'hi', 0)`,
		`INSERT INTO budgets(scope, scope_id, limit_nano, created_at, updated_at) VALUES ('team', 'gold', 1, 0, 0)`,
		`INSERT INTO runs(id, runtime_id, title, status, created_at, team_id) VALUES ('r2', 'clawboo-mock', '', 'succeeded', 0, 'red')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows, err := s.Reader().Query(`SELECT id, name FROM teams ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			t.Fatal(err)
		}
		if id != name {
			t.Fatalf("team %s named %s", id, name)
		}
		got = append(got, id)
	}
	if want := []string{"blue", "gold", "green", "red"}; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Fatalf("teams %v, want %v", got, want)
	}
}
