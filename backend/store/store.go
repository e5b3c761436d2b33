// Package store owns the SQLite database: opening it, its pragmas, the
// embedded forward-only migrations, and every query.
//
// Invariants:
//   - One file, <home>/clawboo.db, in WAL mode with a busy timeout and
//     foreign keys on; it and its -wal/-shm files are 0600 whatever the
//     umask or the mode an older build left.
//   - All writes go through one connection (the writer pool has exactly one
//     connection) and every write transaction begins IMMEDIATE, so a
//     read-then-write transaction can never fail with SQLITE_BUSY on upgrade.
//   - Reads use a separate query-only pool, so readers never block the writer
//     and can never write by accident.
//   - Checkpoints run beside the writer on their own connection (see
//     checkpoint.go), never inside a commit, and keep the WAL bounded; a
//     WAL file left large by bulk writes is truncated.
//   - A run's event seqs only increase. Compaction (compact.go) may merge a
//     finished run's text deltas into their text, keeping every other event;
//     a live run's log is never rewritten.
//   - A run's final write (FinishOrSave) is enough on its own to leave the
//     run durable, so a run whose first write was lost to a full disk can
//     still be saved. IsDiskFull names that failure; nothing here retries.
//   - Migrations are embedded, numbered, applied in order inside one
//     transaction each at Open, and never edited once shipped. A database
//     from a newer build is refused rather than guessed at.
//   - No secret is ever written here; callers pass only non-secret data.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// ErrNotFound is returned when a row asked for by key does not exist.
var ErrNotFound = errors.New("not found")

// Store is the database handle shared by the whole backend.
type Store struct {
	w    *sql.DB // exactly one connection, IMMEDIATE transactions
	r    *sql.DB // query-only pool
	path string

	ledger     ledgerStmts
	readStmts  *stmtCache
	writeStmts *stmtCache

	ckpt     *sql.DB // the checkpointer's own connection
	ckptStop chan struct{}
	ckptDone chan struct{}
}

// Open opens (creating if needed) the database at path and migrates it.
func Open(ctx context.Context, path string) (*Store, error) {
	// SQLite gives the -wal and -shm files the database file's mode, so a
	// database made (or found) 0600 keeps all three private whatever the umask.
	if err := privateFile(path); err != nil {
		return nil, err
	}
	w, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	w.SetConnMaxLifetime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{w: w, path: path, writeStmts: &stmtCache{db: w, m: map[string]*sql.Stmt{}}}
	if err := s.migrate(ctx); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s for reading: %w", path, err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	s.r = r
	s.readStmts = &stmtCache{db: r, m: map[string]*sql.Stmt{}}
	if err := s.startCheckpointer(path); err != nil {
		s.Close()
		return nil, fmt.Errorf("open %s for checkpoints: %w", path, err)
	}
	for _, p := range []string{path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.Close()
			return nil, fmt.Errorf("make %s private: %w", p, err)
		}
	}
	return s, nil
}

// privateFile makes path owner-only (0600), creating it empty when missing
// (an empty file is a new SQLite database).
func privateFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	f.Close()
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("make %s private: %w", path, err)
	}
	return nil
}

func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		// Only takes effect on a new, empty file (before its first table):
		// freed pages can then be given back in steps (reclaim.go).
		q.Add("_pragma", "auto_vacuum(INCREMENTAL)")
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "wal_autocheckpoint(0)") // see checkpoint.go
		q.Add("_txlock", "immediate")
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}
	return u.String()
}

// Close closes both pools. It is safe to call once.
func (s *Store) Close() error {
	s.stopCheckpointer()
	s.closeLedger()
	if s.readStmts != nil {
		s.readStmts.close()
	}
	s.writeStmts.close()
	var errs []error
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	// A final checkpoint keeps the -wal file small for the next start.
	_, _ = s.w.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	errs = append(errs, s.w.Close())
	return errors.Join(errs...)
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Reader is the query-only pool, for packages that own their own queries
// (the board, budgets); their writes go through InTx or Writer.
func (s *Store) Reader() *sql.DB { return s.r }

// Strings answers the one text column of each row of query (a list of
// names, say), in the query's order.
func (s *Store) Strings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Writer is the single writer connection, for writes that are one
// statement and need no transaction around them (a conditional claim):
// SQLite runs each such statement atomically.
func (s *Store) Writer() *sql.DB { return s.w }

// InTx runs fn inside one IMMEDIATE write transaction, committing when fn
// returns nil and rolling back otherwise.
func (s *Store) InTx(ctx context.Context, fn func(tx *sql.Tx) error) (err error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	if err = tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %q: name must start with a positive number and '_'", e.Name())
		}
		b, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %q: expected version %d", m.name, i+1)
		}
	}
	return out, nil
}

// SchemaVersion is the highest migration this build knows.
func SchemaVersion() int {
	ms, err := loadMigrations()
	if err != nil {
		return 0
	}
	return len(ms)
}

func (s *Store) migrate(ctx context.Context) error {
	ms, err := loadMigrations()
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	// One transaction for every pending migration: they land together or
	// not at all, and a fresh database pays for one commit, not one each.
	return s.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		var current int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
			return fmt.Errorf("migrate: read version: %w", err)
		}
		if current > len(ms) {
			return fmt.Errorf("database %s has schema version %d, newer than this build (%d): upgrade clawboo", s.path, current, len(ms))
		}
		for _, m := range ms[current:] {
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("migrate %s: %w", m.name, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, unixepoch())`, m.version, m.name); err != nil {
				return fmt.Errorf("migrate %s: %w", m.name, err)
			}
		}
		return nil
	})
}
