package store

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// The SQLite driver parses a query every time it is run unprepared, and
// with the pure-Go SQLite that parse costs more than most of our statements
// themselves (~0.2 ms). So queries run through statements prepared once per
// pool and cached by their text; packages that own their SQL reach them
// through Read, Write and Tx below.

const maxCachedStmts = 512

type stmtCache struct {
	db      *sql.DB
	mu      sync.RWMutex
	m       map[string]*sql.Stmt
	pending map[string]bool // being prepared in the background
	closed  bool
}

// cached returns the statement if it is prepared already.
func (c *stmtCache) cached(query string) *sql.Stmt {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.m[query]
}

// prepareLater prepares query in the background. Inside a write
// transaction the writer's only connection is taken, so preparing then
// would wait for the transaction that waits for it: the query runs
// unprepared this once, and is prepared as soon as the connection is free.
func (c *stmtCache) prepareLater(query string) {
	c.mu.Lock()
	if c.closed || c.pending[query] || c.m[query] != nil || len(c.m) >= maxCachedStmts {
		c.mu.Unlock()
		return
	}
	if c.pending == nil {
		c.pending = map[string]bool{}
	}
	c.pending[query] = true
	c.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _ = c.get(ctx, query)
		c.mu.Lock()
		delete(c.pending, query)
		c.mu.Unlock()
	}()
}

// get returns the cached statement for query, preparing it on first use;
// nil when the cache is full (the caller then runs the query unprepared).
func (c *stmtCache) get(ctx context.Context, query string) (*sql.Stmt, error) {
	if st := c.cached(query); st != nil {
		return st, nil
	}
	c.mu.RLock()
	full := c.closed || len(c.m) >= maxCachedStmts
	c.mu.RUnlock()
	if full {
		return nil, nil
	}
	// Prepare without holding the lock: it may wait for a connection.
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.m[query]; ok {
		st.Close()
		return prev, nil
	}
	if c.closed || len(c.m) >= maxCachedStmts {
		st.Close()
		return nil, nil
	}
	c.m[query] = st
	return st, nil
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for _, st := range c.m {
		st.Close()
	}
	c.m = map[string]*sql.Stmt{}
}

// Querier runs queries through cached prepared statements, on the read
// pool, the writer, or inside a write transaction.
type Querier struct {
	cache *stmtCache
	tx    *sql.Tx
}

// Read is the read pool's querier.
func (s *Store) Read() Querier { return Querier{cache: s.readStmts} }

// Write is the writer's querier, for single-statement writes.
func (s *Store) Write() Querier { return Querier{cache: s.writeStmts} }

// Tx is a querier inside a write transaction begun with InTx.
func (s *Store) Tx(tx *sql.Tx) Querier { return Querier{cache: s.writeStmts, tx: tx} }

// stmt is the prepared statement for query (bound to the transaction if
// any), or nil to run it unprepared.
func (q Querier) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if q.tx != nil {
		st := q.cache.cached(query)
		if st == nil {
			q.cache.prepareLater(query)
			return nil, nil
		}
		return q.tx.StmtContext(ctx, st), nil
	}
	return q.cache.get(ctx, query)
}

// ExecContext runs a statement.
func (q Querier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := q.stmt(ctx, query)
	switch {
	case err != nil:
		return nil, err
	case st != nil:
		return st.ExecContext(ctx, args...)
	case q.tx != nil:
		return q.tx.ExecContext(ctx, query, args...)
	default:
		return q.cache.db.ExecContext(ctx, query, args...)
	}
}

// QueryContext runs a query; the caller closes the rows.
func (q Querier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := q.stmt(ctx, query)
	switch {
	case err != nil:
		return nil, err
	case st != nil:
		return st.QueryContext(ctx, args...)
	case q.tx != nil:
		return q.tx.QueryContext(ctx, query, args...)
	default:
		return q.cache.db.QueryContext(ctx, query, args...)
	}
}

// QueryRowContext runs a query expected to return at most one row; errors,
// including preparing it, surface from Scan.
func (q Querier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st, err := q.stmt(ctx, query); err == nil && st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	if q.tx != nil {
		return q.tx.QueryRowContext(ctx, query, args...)
	}
	return q.cache.db.QueryRowContext(ctx, query, args...)
}
