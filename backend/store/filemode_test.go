//go:build unix

package store

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestDatabaseFilesArePrivate: the database and its WAL files are 0600 even
// under a permissive umask and in an existing 0755 home holding a 0644
// database from an older build (issue 26 §2, finding 5c).
func TestDatabaseFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	home := t.TempDir()
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, "clawboo.db")
	for round, what := range []string{"a new database", "a database an older build left 0644"} {
		if round == 1 {
			for _, p := range []string{path, path + "-wal", path + "-shm"} {
				if err := os.Chmod(p, 0o644); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
		}
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.w.Exec(`CREATE TABLE IF NOT EXISTS mode_probe (x)`); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			st, err := os.Stat(p)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if m := st.Mode().Perm(); m != 0o600 {
				t.Errorf("%s: %s is %o, want 600", what, filepath.Base(p), m)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
