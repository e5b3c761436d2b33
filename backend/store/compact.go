package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Compaction keeps the event log from growing without bound: a finished
// run's text deltas, one row per token or so, are merged into the text they
// add up to. Each maximal stretch of consecutive deltas of one channel
// becomes one text-delta event (several when its text is over
// maxMergedText) carrying the seq of the stretch's last delta, so the log
// keeps its order, seqs still increase, and every other event (status,
// tool calls and results, costs, errors, done) is kept as it was. A replay
// of a compacted run therefore shows the same text, tool calls and end.
//
// A client that had read part of a stretch before it was merged and resumes
// inside it receives the whole stretch again: text may repeat, never go
// missing. Live runs are never touched.
// Variables, not constants, so tests can make them small.
var (
	// compactChunk bounds the rows one compaction transaction reads, so
	// the run ledger's writer never waits long behind it.
	compactChunk = 4096
	// maxMergedText bounds one merged event's text (and one SSE message).
	maxMergedText = 256 << 10
)

// ErrRunLive refuses to compact a run that has not finished.
var ErrRunLive = errors.New("run is still live")

// CompactStats say what compaction did.
type CompactStats struct {
	Runs        int   // runs whose log was rewritten
	Deleted     int64 // delta rows removed
	Written     int64 // merged rows written
	BytesBefore int64 // data bytes of the rows removed
	BytesAfter  int64 // data bytes of the rows written
}

// Add sums o into c.
func (c *CompactStats) Add(o CompactStats) {
	c.Runs += o.Runs
	c.Deleted += o.Deleted
	c.Written += o.Written
	c.BytesBefore += o.BytesBefore
	c.BytesAfter += o.BytesAfter
}

// delta is a text-delta event as stored (executor.Event's JSON for that
// kind: these are all the fields it sets).
type delta struct {
	RunID   string `json:"runId"`
	Seq     int64  `json:"seq"`
	TS      int64  `json:"ts"`
	Kind    string `json:"kind"`
	Text    string `json:"text,omitempty"`
	Channel string `json:"channel,omitempty"`
}

// stretch is consecutive deltas of one channel being merged.
type stretch struct {
	first, last int64 // seqs
	n           int64
	bytes       int64 // stored bytes of its rows
	text        strings.Builder
	head        delta // the last delta's fields, for the merged event
}

// CompactRun merges a finished run's text deltas (see the comment above),
// in transactions of at most compactChunk rows each. Compacting a run
// twice changes nothing the second time.
func (s *Store) CompactRun(ctx context.Context, runID string) (CompactStats, error) {
	var st CompactStats
	var status string
	err := s.r.QueryRowContext(ctx, `SELECT status FROM runs WHERE id = ?`, runID).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return st, ErrNotFound
	}
	if err != nil {
		return st, fmt.Errorf("compact run: %w", err)
	}
	if status == RunStarting || status == RunRunning {
		return st, ErrRunLive
	}
	from := int64(0)    // first seq the next chunk reads
	carried := int64(0) // bytes of the merged event the next chunk starts at, if it wrote one
	for {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		var c CompactStats
		var next int64
		var more bool
		err := s.InTx(ctx, func(tx *sql.Tx) (err error) {
			c, next, carried, more, err = compactChunkTx(ctx, tx, runID, from, carried)
			if err == nil && !more { // done: the age rule need not look at it again
				_, err = tx.ExecContext(ctx, `UPDATE runs SET compacted_at = ? WHERE id = ?`, time.Now().UnixMilli(), runID)
			}
			return err
		})
		if err != nil {
			return st, fmt.Errorf("compact run %s: %w", runID, err)
		}
		st.Add(c)
		if !more {
			if st.Deleted > 0 {
				st.Runs = 1
			}
			return st, nil
		}
		from = next
	}
}

// compactChunkTx merges the deltas among up to compactChunk events from seq
// `from` on. It reports where the next chunk starts: at the last merged
// event when its stretch may go on past this chunk, so the next chunk keeps
// merging into it (carry is then that event's size, which the next chunk
// does not count as removed or written again).
func compactChunkTx(ctx context.Context, tx *sql.Tx, runID string, from, carried int64) (st CompactStats, next, carry int64, more bool, err error) {
	all, err := compactRows(ctx, tx, runID, from)
	if err != nil {
		return st, 0, 0, false, err
	}
	if len(all) == 0 {
		return st, from, 0, false, nil
	}
	more = len(all) == compactChunk
	var cur *stretch
	var done []*stretch
	closeCur := func() {
		if cur != nil && cur.n > 1 {
			done = append(done, cur)
		}
		cur = nil
	}
	for _, r := range all {
		if r.kind != "text-delta" {
			closeCur()
			continue
		}
		var d delta
		if err := json.Unmarshal([]byte(r.data), &d); err != nil {
			closeCur() // not ours to rewrite: keep it and merge around it
			continue
		}
		if cur != nil && (cur.head.Channel != d.Channel || cur.text.Len()+len(d.Text) > maxMergedText) {
			closeCur()
		}
		if cur == nil {
			cur = &stretch{first: r.seq}
		}
		cur.last, cur.head = r.seq, d
		cur.n++
		cur.bytes += int64(len(r.data))
		cur.text.WriteString(d.Text)
	}
	next = all[len(all)-1].seq + 1
	var open *stretch
	if more && cur != nil && all[len(all)-1].kind == "text-delta" {
		// The stretch may continue in the next chunk: merge what it has so
		// far and start the next chunk at it.
		next, open = cur.last, cur
		if cur.n > 1 {
			done = append(done, cur)
		}
		cur = nil
	}
	closeCur()
	if carried > 0 && len(done) > 0 && done[0].first == from {
		// The carried event is merged again: it was counted when written.
		st.Deleted, st.Written, st.BytesBefore, st.BytesAfter = -1, -1, -carried, -carried
	}
	for _, m := range done {
		ev := m.head
		ev.Text = m.text.String()
		data, err := json.Marshal(ev)
		if err != nil {
			return st, 0, 0, false, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM run_events WHERE run_id = ? AND seq BETWEEN ? AND ?`, runID, m.first, m.last); err != nil {
			return st, 0, 0, false, err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO run_events(run_id, seq, kind, data) VALUES (?, ?, 'text-delta', ?)`,
			runID, m.last, string(data)); err != nil {
			return st, 0, 0, false, err
		}
		st.Deleted += m.n
		st.Written++
		st.BytesBefore += m.bytes
		st.BytesAfter += int64(len(data))
		if m == open {
			carry = int64(len(data))
		}
	}
	return st, next, carry, more, nil
}

// compactRow is one stored event as compaction reads it.
type compactRow struct {
	seq  int64
	kind string
	data string
}

// compactRows reads a run's next chunk of events from seq from on.
func compactRows(ctx context.Context, tx *sql.Tx, runID string, from int64) ([]compactRow, error) {
	rows, err := tx.QueryContext(ctx, `SELECT seq, kind, data FROM run_events WHERE run_id = ? AND seq >= ? ORDER BY seq LIMIT ?`,
		runID, from, compactChunk)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var all []compactRow
	for rows.Next() {
		var r compactRow
		if err := rows.Scan(&r.seq, &r.kind, &r.data); err != nil {
			return nil, err
		}
		all = append(all, r)
	}
	return all, rows.Err()
}
