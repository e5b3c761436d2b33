package store

import (
	"context"
	"database/sql"
	"fmt"
)

// writerStmts are statements prepared once on the writer connection and
// bound to each batch's transaction, because run events are the hottest
// write path in the product.
type writerStmts struct {
	insertRun   *sql.Stmt
	markRunning *sql.Stmt
	appendEvent *sql.Stmt
	finishRun   *sql.Stmt
}

func (s *Store) prepare(ctx context.Context) error {
	var err error
	p := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = s.w.PrepareContext(ctx, q)
		return st
	}
	s.stmts = writerStmts{
		insertRun: p(`INSERT INTO runs(id, runtime_id, agent_id, title, status, done_reason, summary, error, cost_usd, cost_kind,
			input_tokens, output_tokens, last_seq, created_at, started_at, ended_at)
			VALUES (?, ?, ?, ?, ?, NULLIF(?, ''), ?, ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?)`),
		markRunning: p(`UPDATE runs SET status = 'running', started_at = ? WHERE id = ? AND status = 'starting'`),
		appendEvent: p(`INSERT INTO run_events(run_id, seq, kind, data) VALUES (?, ?, ?, ?)`),
		finishRun: p(`UPDATE runs SET status = ?, done_reason = NULLIF(?, ''), summary = ?, error = ?, cost_usd = ?,
			cost_kind = NULLIF(?, ''), input_tokens = ?, output_tokens = ?, last_seq = MAX(last_seq, ?), ended_at = ?
			WHERE id = ? AND status IN ('starting','running')`),
	}
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	return nil
}

func (w *writerStmts) close() {
	for _, st := range []*sql.Stmt{w.insertRun, w.markRunning, w.appendEvent, w.finishRun} {
		if st != nil {
			st.Close()
		}
	}
}

// Batch is one write transaction holding many run-ledger writes. It exists so
// a busy run's events commit together instead of one transaction each.
type Batch struct {
	ctx   context.Context
	tx    *sql.Tx
	s     *Store
	bound map[*sql.Stmt]*sql.Stmt
}

// WriteBatch runs fn in one IMMEDIATE transaction.
func (s *Store) WriteBatch(ctx context.Context, fn func(b *Batch) error) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		b := &Batch{ctx: ctx, tx: tx, s: s, bound: map[*sql.Stmt]*sql.Stmt{}}
		return fn(b)
	})
}

func (b *Batch) stmt(st *sql.Stmt) *sql.Stmt {
	if t, ok := b.bound[st]; ok {
		return t
	}
	t := b.tx.StmtContext(b.ctx, st)
	b.bound[st] = t
	return t
}

// NewRun is a run's first ledger row. When its start or its end is already
// known by the time the row is written (a short run whose whole life fits in
// one batch), the row is written in that state directly, saving the updates.
type NewRun struct {
	ID        string
	RuntimeID string
	AgentID   *string
	Title     string
	CreatedAt int64
	StartedAt *int64
	Final     *RunFinish
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
	_, err := b.stmt(b.s.stmts.insertRun).Exec(r.ID, r.RuntimeID, r.AgentID, r.Title, status, f.DoneReason, f.Summary, f.Error,
		f.CostUSD, f.CostKind, f.InputTokens, f.OutputTokens, f.LastSeq, r.CreatedAt, r.StartedAt, ended)
	if err != nil {
		return fmt.Errorf("insert run: %w", err)
	}
	return nil
}

// MarkRunning moves a starting run to running.
func (b *Batch) MarkRunning(id string, startedAt int64) error {
	if _, err := b.stmt(b.s.stmts.markRunning).Exec(startedAt, id); err != nil {
		return fmt.Errorf("mark running: %w", err)
	}
	return nil
}

// AppendEvent stores one event of a run.
func (b *Batch) AppendEvent(runID string, seq int64, kind string, data []byte) error {
	if _, err := b.stmt(b.s.stmts.appendEvent).Exec(runID, seq, kind, string(data)); err != nil {
		return fmt.Errorf("append event %s/%d: %w", runID, seq, err)
	}
	return nil
}

// FinishRun writes a run's terminal state. A run already terminal is left
// alone: the first terminal write wins.
func (b *Batch) FinishRun(f RunFinish) error {
	_, err := b.stmt(b.s.stmts.finishRun).Exec(f.Status, f.DoneReason, f.Summary, f.Error, f.CostUSD, f.CostKind,
		f.InputTokens, f.OutputTokens, f.LastSeq, f.EndedAt, f.ID)
	if err != nil {
		return fmt.Errorf("finish run: %w", err)
	}
	return nil
}
