package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// The run ledger is the hottest write path in the product (every event of
// every run), and with a pure-Go SQLite the fixed cost of a transaction
// dominates a short run. So ledger batches bypass database/sql: they run on
// the writer connection through driver-level statements prepared once,
// BEGIN and COMMIT included. Everything else uses database/sql.
const (
	qBegin = iota
	qCommit
	qRollback
	qInsertRun
	qMarkRunning
	qAppendEvent
	qAppend2
	qAppend4
	qAppend8
	qAppend32
	qFinishRun
	qSaveFinal
	qAppendIgnore
	nQueries
)

// appendSizes are the multi-row event inserts, largest first: a batch of
// events is written with as few statements as possible, since each
// statement has a fixed cost several times that of a row.
var appendSizes = []struct{ q, rows int }{{qAppend32, 32}, {qAppend8, 8}, {qAppend4, 4}, {qAppend2, 2}, {qAppendEvent, 1}}

func appendSQL(rows int) string {
	return `INSERT INTO run_events(run_id, seq, kind, data) VALUES ` +
		strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?), ", rows), ", ")
}

var ledgerSQL = [nQueries]string{
	qBegin:    `BEGIN IMMEDIATE`,
	qCommit:   `COMMIT`,
	qRollback: `ROLLBACK`,
	qInsertRun: `INSERT INTO runs(id, runtime_id, agent_id, title, status, done_reason, summary, error, cost_usd, cost_kind,
		input_tokens, output_tokens, last_seq, created_at, started_at, ended_at, task_id, team_id, model, session, session_key, prompt)
		VALUES (?, ?, ?, ?, ?, NULLIF(?, ''), ?, ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''),
		NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''))`,
	qMarkRunning: `UPDATE runs SET status = 'running', started_at = ? WHERE id = ? AND status = 'starting'`,
	qAppendEvent: appendSQL(1),
	qAppend2:     appendSQL(2),
	qAppend4:     appendSQL(4),
	qAppend8:     appendSQL(8),
	qAppend32:    appendSQL(32),
	qFinishRun: `UPDATE runs SET status = ?, done_reason = NULLIF(?, ''), summary = ?, error = ?, cost_usd = ?,
		cost_kind = NULLIF(?, ''), input_tokens = ?, output_tokens = ?, last_seq = MAX(last_seq, ?), ended_at = ?,
		session = COALESCE(NULLIF(?, ''), session), session_key = COALESCE(NULLIF(?, ''), session_key)
		WHERE id = ? AND status IN ('starting','running')`,
	// qSaveFinal writes a finished run whole, inserting its row when its
	// first write never landed (a full disk): a run's last write must leave
	// a row behind. A vanished agent is recorded as none.
	qSaveFinal: `INSERT INTO runs(id, runtime_id, agent_id, title, status, done_reason, summary, error, cost_usd, cost_kind,
		input_tokens, output_tokens, last_seq, created_at, started_at, ended_at, task_id, team_id, model, session, session_key, prompt)
		VALUES (?, ?, (SELECT id FROM agents WHERE id = ?), ?, ?, NULLIF(?, ''), ?, ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?,
		NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''))
		ON CONFLICT(id) DO UPDATE SET status = excluded.status, done_reason = excluded.done_reason, summary = excluded.summary,
		error = excluded.error, cost_usd = excluded.cost_usd, cost_kind = excluded.cost_kind, input_tokens = excluded.input_tokens,
		output_tokens = excluded.output_tokens, last_seq = MAX(runs.last_seq, excluded.last_seq), ended_at = excluded.ended_at,
		started_at = COALESCE(runs.started_at, excluded.started_at),
		session = COALESCE(excluded.session, runs.session), session_key = COALESCE(excluded.session_key, runs.session_key)
		WHERE runs.status IN ('starting','running')`,
	qAppendIgnore: `INSERT INTO run_events(run_id, seq, kind, data) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
}

// ledgerStmts are the driver statements of one writer connection.
type ledgerStmts struct {
	mu    sync.Mutex
	conn  any // the driver connection they were prepared on
	st    [nQueries]driver.Stmt
	extra map[string]driver.Stmt // Batch.Exec and QueryRow, by query text
}

// forConn returns the statements for dc, preparing them when dc is a
// connection they were not prepared on (the first batch, or after
// database/sql replaced a broken connection).
func (l *ledgerStmts) forConn(ctx context.Context, dc any) (*[nQueries]driver.Stmt, error) {
	if l.conn == dc {
		return &l.st, nil
	}
	// A different connection means the old one was closed, and its
	// statements with it: forget them, do not finalize them.
	l.st, l.conn, l.extra = [nQueries]driver.Stmt{}, nil, nil
	pc, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, errors.New("sqlite driver cannot prepare statements")
	}
	for i, q := range ledgerSQL {
		st, err := pc.PrepareContext(ctx, q)
		if err != nil {
			l.closeAll()
			return nil, fmt.Errorf("prepare %q: %w", q, err)
		}
		l.st[i] = st
	}
	l.conn = dc
	return &l.st, nil
}

func (l *ledgerStmts) closeAll() {
	for i, st := range l.st {
		if st != nil {
			_ = st.Close()
			l.st[i] = nil
		}
	}
	for _, st := range l.extra {
		_ = st.Close()
	}
	l.conn, l.extra = nil, nil
}

// close finalizes the statements on their connection before the database
// closes (SQLite will not close a connection with live statements).
func (s *Store) closeLedger() {
	conn, err := s.w.Conn(context.Background())
	if err != nil {
		return
	}
	defer conn.Close()
	_ = conn.Raw(func(dc any) error {
		s.ledger.mu.Lock()
		defer s.ledger.mu.Unlock()
		if s.ledger.conn != dc {
			// Prepared on a connection database/sql has since replaced (a
			// query interrupted by its context can break one): that
			// connection closed them with itself; finalizing them again
			// would touch freed memory.
			s.ledger.st, s.ledger.conn, s.ledger.extra = [nQueries]driver.Stmt{}, nil, nil
			return nil
		}
		s.ledger.closeAll()
		return nil
	})
}

// Batch is one write transaction holding many run-ledger writes. It exists so
// a busy run's events commit together instead of one transaction each.
type Batch struct {
	ctx context.Context
	st  *[nQueries]driver.Stmt
	l   *ledgerStmts
}

func (b *Batch) exec(q int, args ...any) error {
	_, err := b.execN(q, args...)
	return err
}

// execN runs a statement and reports how many rows it changed.
func (b *Batch) execN(q int, args ...any) (int64, error) {
	nv := make([]driver.NamedValue, len(args))
	for i, a := range args {
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: value(a)}
	}
	res, err := b.st[q].(driver.StmtExecContext).ExecContext(b.ctx, nv)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, nil // a driver that cannot count: assume nothing is known
	}
	return n, nil
}

// value turns the Go values the ledger uses into driver values.
func value(a any) driver.Value {
	switch v := a.(type) {
	case *string:
		if v == nil {
			return nil
		}
		return *v
	case *int64:
		if v == nil {
			return nil
		}
		return *v
	case *float64:
		if v == nil {
			return nil
		}
		return *v
	case int:
		return int64(v)
	}
	return a
}

// WriteBatch runs fn in one IMMEDIATE transaction on the writer connection,
// committing when fn returns nil and rolling back otherwise.
func (s *Store) WriteBatch(ctx context.Context, fn func(b *Batch) error) error {
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) (err error) {
		s.ledger.mu.Lock()
		defer s.ledger.mu.Unlock()
		st, err := s.ledger.forConn(ctx, dc)
		if err != nil {
			return err
		}
		b := &Batch{ctx: ctx, st: st, l: &s.ledger}
		if err := b.exec(qBegin); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		done := false
		defer func() {
			if !done {
				// SQLite may already have rolled back (on a full disk, say);
				// any other failure leaves the connection's state unknown,
				// so database/sql is told to discard it.
				if rerr := b.exec(qRollback); rerr != nil && !strings.Contains(rerr.Error(), "no transaction is active") {
					s.ledger.closeAll()
					err = errors.Join(err, driver.ErrBadConn)
				}
			}
		}()
		if err := fn(b); err != nil {
			return err
		}
		if err := b.exec(qCommit); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		done = true
		return nil
	})
}

// NewRun is a run's first ledger row. When its start or its end is already
// known by the time the row is written (a short run whose whole life fits in
// one batch), the row is written in that state directly, saving the updates.
type NewRun struct {
	ID        string
	RuntimeID string
	AgentID   *string
	TaskID    string
	TeamID    string
	Model     string
	Title     string
	CreatedAt int64
	StartedAt *int64
	Final     *RunFinish
	// SessionKey is written with the row when set (a critic's review key,
	// so a task lists its reviews while they run and when the runtime
	// reports no session); the finish's own key, when it has one, wins.
	SessionKey string
	// Prompt is the message the run was started with, as it is to be
	// stored (the caller bounds it and redacts secrets); "" stores none.
	Prompt string
}

// InsertRun records a new run.
func (b *Batch) InsertRun(r NewRun) error {
	status := RunStarting
	if r.StartedAt != nil {
		status = RunRunning
	}
	f := RunFinish{}
	var ended *int64
	if r.Final != nil {
		f, status, ended = *r.Final, r.Final.Status, &r.Final.EndedAt
	}
	if f.SessionKey == "" {
		f.SessionKey = r.SessionKey
	}
	err := b.exec(qInsertRun, r.ID, r.RuntimeID, r.AgentID, r.Title, status, f.DoneReason, f.Summary, f.Error,
		f.CostUSD, f.CostKind, f.InputTokens, f.OutputTokens, f.LastSeq, r.CreatedAt, r.StartedAt, ended, r.TaskID, r.TeamID, r.Model, f.Session, f.SessionKey, r.Prompt)
	if err != nil {
		return fmt.Errorf("insert run: %w", err)
	}
	return nil
}

// MarkRunning moves a starting run to running.
func (b *Batch) MarkRunning(id string, startedAt int64) error {
	if err := b.exec(qMarkRunning, startedAt, id); err != nil {
		return fmt.Errorf("mark running: %w", err)
	}
	return nil
}

// AppendEvent stores one event of a run.
// NewEvent is one event to store.
type NewEvent struct {
	RunID string
	Seq   int64
	Kind  string
	Data  []byte
}

// AppendEvents stores many events with as few statements as it can.
func (b *Batch) AppendEvents(evs []NewEvent) error {
	for _, sz := range appendSizes {
		for len(evs) >= sz.rows {
			args := make([]any, 0, 4*sz.rows)
			for _, e := range evs[:sz.rows] {
				args = append(args, e.RunID, e.Seq, e.Kind, string(e.Data))
			}
			if err := b.exec(sz.q, args...); err != nil {
				return fmt.Errorf("append events %s/%d..: %w", evs[0].RunID, evs[0].Seq, err)
			}
			evs = evs[sz.rows:]
		}
	}
	return nil
}

func (b *Batch) AppendEvent(runID string, seq int64, kind string, data []byte) error {
	if err := b.exec(qAppendEvent, runID, seq, kind, string(data)); err != nil {
		return fmt.Errorf("append event %s/%d: %w", runID, seq, err)
	}
	return nil
}

// FinishRun writes a run's terminal state. A run already terminal is left
// alone: the first terminal write wins.
func (b *Batch) FinishRun(f RunFinish) error {
	err := b.exec(qFinishRun, f.Status, f.DoneReason, f.Summary, f.Error, f.CostUSD, f.CostKind,
		f.InputTokens, f.OutputTokens, f.LastSeq, f.EndedAt, f.Session, f.SessionKey, f.ID)
	if err != nil {
		return fmt.Errorf("finish run: %w", err)
	}
	return nil
}

// FinishOrSave writes a run's terminal state like FinishRun, and when no
// live row took it (the run's first write never landed) inserts the whole
// row instead. done, when given, is stored with it unless that seq is
// stored already. So the last write of a run is enough on its own to leave
// the run durable, its log ending with done; a run already terminal is
// still left alone.
func (b *Batch) FinishOrSave(r NewRun, done *NewEvent) error {
	if r.Final == nil {
		return errors.New("finish run: no final state")
	}
	f := *r.Final
	n, err := b.execN(qFinishRun, f.Status, f.DoneReason, f.Summary, f.Error, f.CostUSD, f.CostKind,
		f.InputTokens, f.OutputTokens, f.LastSeq, f.EndedAt, f.Session, f.SessionKey, f.ID)
	if err != nil {
		return fmt.Errorf("finish run: %w", err)
	}
	if n == 0 {
		key := f.SessionKey
		if key == "" {
			key = r.SessionKey
		}
		n, err = b.execN(qSaveFinal, r.ID, r.RuntimeID, r.AgentID, r.Title, f.Status, f.DoneReason, f.Summary, f.Error,
			f.CostUSD, f.CostKind, f.InputTokens, f.OutputTokens, f.LastSeq, r.CreatedAt, r.StartedAt, f.EndedAt,
			r.TaskID, r.TeamID, r.Model, f.Session, key, r.Prompt)
		if err != nil {
			return fmt.Errorf("save run: %w", err)
		}
	}
	if n == 0 || done == nil {
		return nil
	}
	if err := b.exec(qAppendIgnore, r.ID, done.Seq, done.Kind, string(done.Data)); err != nil {
		return fmt.Errorf("save run's done event: %w", err)
	}
	return nil
}
