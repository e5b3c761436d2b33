package budget

import (
	"github.com/clawboo/desktop/backend/store"
)

// BatchCharge is a charge written inside a run-ledger batch
// (store.WriteBatch) instead of a transaction of its own, so a run's
// run-end spend row commits with the run's result: one commit per run, not
// two. It keeps Charge's atomicity (the spend row and every budget it
// counts against change in the one transaction) and its events: Write may
// run more than once (the journal retries and splits failed batches), each
// time from scratch; Committed, called once after the batch that last ran
// Write committed, logs and publishes what that write changed.
type BatchCharge struct {
	l         *Ledger
	c         Charge
	now       int64
	crossings []Crossing
	changed   []Budget
}

// UnreportedInBatch is ChargeUnreported's estimate (logging its warning
// now), to be written by BatchCharge.Write.
func (l *Ledger) UnreportedInBatch(c Charge, inChars, outChars int64, aborted bool) (*BatchCharge, error) {
	c = l.unreported(c, inChars, outChars, aborted)
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &BatchCharge{l: l, c: c, now: l.now().UnixMilli()}, nil
}

// Charge is what will be (or was) written.
func (bc *BatchCharge) Charge() Charge { return bc.c }

// Write records the charge in b and returns the thresholds it crossed
// (valid once b commits).
func (bc *BatchCharge) Write(b *store.Batch) ([]Crossing, error) {
	crossings, changed, err := chargeIn(batchQ{b}, bc.c, bc.now)
	bc.crossings, bc.changed = crossings, changed
	return crossings, err
}

// Committed logs and publishes the last Write's changes and returns its
// crossings. Call it only after that Write's batch committed.
func (bc *BatchCharge) Committed() []Crossing {
	bc.l.committed(bc.c, bc.crossings, bc.changed)
	return bc.crossings
}

type batchQ struct{ b *store.Batch }

func (q batchQ) exec(query string, args ...any) error {
	_, err := q.b.Exec(query, args...)
	return err
}

func (q batchQ) row(query string, args ...any) interface{ Scan(...any) error } {
	return q.b.QueryRow(query, args...)
}
