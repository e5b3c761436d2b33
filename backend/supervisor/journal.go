package supervisor

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
)

type opKind int

const (
	opCreate opKind = iota
	opRunning
	opEvent
	opFinish
)

// op is one ledger write. reply, when set, receives the commit result.
type op struct {
	kind  opKind
	runID string
	// create
	runtimeID string
	agentID   *string
	taskID    string
	teamID    string
	model     string
	title     string
	prompt    string // the run's message as stored (runPrompt)
	at        int64
	// reviewKey is a critic run's session key, written with its row
	reviewKey string
	// event
	seq   int64
	ekind string
	data  []byte
	// finish: the whole row, so the write stands alone when the run's
	// first write never landed, and the done event to store with it then
	final *store.NewRun
	done  *store.NewEvent
	// charge, when set, writes the run's run-end spend in the same batch
	// and may adjust the copy of final.Final this attempt writes (a paused
	// budget); it runs again on every retry of the batch.
	charge func(b *store.Batch, f *store.RunFinish) error

	onFail func(error) // event ops: tell the run its events are not being saved
	reply  chan error
}

const (
	journalQueue = 4096
	maxBatch     = 4096
)

// journal is the one writer of the runs ledger: every run's row, events and
// run-end spend go through it. It groups whatever is queued into one
// transaction (group commit), so a flood of events costs one commit per
// batch instead of one per event, and concurrent runs share commits. Ops
// are applied in queue order and one batch is written at a time, so a
// run's row always precedes its events and its events precede its finish.
//
// One writer at a time holds the ledger (writing). Whoever needs a commit
// and finds the ledger free writes it on its own goroutine: a caller
// waiting on its op (call) commits the queue itself, its own op included,
// so a short run's result costs no hand-off to another goroutine and back.
// A caller that finds a write in progress waits; the writer, as it lets
// go, hands what is queued behind it to the journal's goroutine (loop),
// which commits it in as few transactions as it can. Ops nobody waits on
// (a run's events) wait at most `linger` for a commit: a timer armed when
// they arrive, and stopped when a commit takes them first, so a short
// run's row and events land in its result's commit and wake nothing.
type journal struct {
	st       *store.Store
	log      *slog.Logger
	progress func(runID string) // called after a run's events became durable
	backoff  []time.Duration
	linger   time.Duration

	mu      sync.Mutex
	notFull *sync.Cond
	queue   []op
	waiters int  // ops in queue with a reply
	writing bool // a writer holds the ledger
	armed   bool // the linger timer will wake the loop
	closed  bool
	timer   *time.Timer // the linger: wakes the loop for ops nobody waits on
	buf     []op        // the batch being written, reused by whoever writes

	commits atomic.Int64 // transactions tried, for tests and benchmarks

	wake chan struct{} // cap 1: the loop is wanted
	done chan struct{}
}

// errJournalClosed answers an op queued after shutdown began.
var errJournalClosed = errors.New("run ledger is closed")

func newJournal(st *store.Store, log *slog.Logger, progress func(runID string)) *journal {
	j := &journal{
		st: st, log: log, progress: progress,
		backoff: []time.Duration{20 * time.Millisecond, 200 * time.Millisecond, time.Second},
		linger:  2 * time.Millisecond,
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	j.notFull = sync.NewCond(&j.mu)
	j.timer = time.AfterFunc(time.Hour, j.lingered)
	j.timer.Stop()
	go j.loop()
	return j
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// lingered is the linger timer's end: what is queued is committed now.
func (j *journal) lingered() {
	j.mu.Lock()
	j.armed = false
	j.mu.Unlock()
	signal(j.wake)
}

// submit queues an op, waiting while the queue is full (back-pressure on the
// producing run, never a drop).
func (j *journal) submit(o op) { j.enqueue(o, false) }

// enqueue queues o and sees that it will be committed: by the writer that
// holds the ledger, by the loop, or after the linger. With lead set (an op
// with a reply) and the ledger free, the caller becomes the writer instead,
// which enqueue reports.
func (j *journal) enqueue(o op, lead bool) (led bool) {
	j.mu.Lock()
	for len(j.queue) >= journalQueue && !j.closed {
		j.notFull.Wait()
	}
	if j.closed {
		j.mu.Unlock()
		if o.reply != nil {
			o.reply <- errJournalClosed
		}
		if o.onFail != nil {
			o.onFail(errJournalClosed)
		}
		return false
	}
	defer j.mu.Unlock()
	j.queue = append(j.queue, o)
	if o.reply != nil {
		j.waiters++
	}
	switch {
	case j.writing:
		// The writer hands the queue on as it lets go (release).
	case lead:
		j.writing, led = true, true
	case o.reply != nil || len(j.queue) >= maxBatch:
		signal(j.wake)
	case !j.armed:
		j.armed = true
		j.timer.Reset(j.linger)
	}
	return led
}

// call queues an op and waits for its commit. When the ledger is free the
// caller writes the queue itself, up to and including its own op.
func (j *journal) call(ctx context.Context, o op) error {
	o.reply = make(chan error, 1)
	if j.enqueue(o, true) {
		for len(o.reply) == 0 {
			j.writeNext()
		}
		j.release()
	}
	select {
	case err := <-o.reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// writeNext takes the next batch off the queue and commits it; the caller
// holds the ledger (writing), and with it the batch buffer.
func (j *journal) writeNext() {
	j.mu.Lock()
	n := min(len(j.queue), maxBatch)
	batch := append(j.buf[:0], j.queue[:n]...)
	rest := copy(j.queue, j.queue[n:])
	clear(j.queue[rest:])
	j.queue = j.queue[:rest]
	for i := range batch {
		if batch[i].reply != nil {
			j.waiters--
		}
	}
	if rest == 0 && j.armed && j.timer.Stop() {
		j.armed = false // this commit takes what the timer waited for
	}
	j.notFull.Broadcast()
	j.mu.Unlock()
	if n > 0 {
		j.commit(batch)
	}
	clear(batch) // drop event data until the next batch
	j.buf = batch[:0]
}

// release lets go of the ledger and hands on what is queued: to the loop
// at once when someone waits on it (or the queue is full, or the journal
// is closing), else to the linger timer.
func (j *journal) release() {
	j.mu.Lock()
	j.writing = false
	switch {
	case j.closed || j.waiters > 0 || len(j.queue) >= maxBatch:
		signal(j.wake)
	case len(j.queue) > 0 && !j.armed:
		j.armed = true
		j.timer.Reset(j.linger)
	}
	j.mu.Unlock()
}

// close flushes what is queued and stops the writer. Ops queued afterwards
// fail with errJournalClosed.
func (j *journal) close() {
	j.mu.Lock()
	j.closed = true
	j.notFull.Broadcast()
	j.mu.Unlock()
	signal(j.wake)
	<-j.done
	j.timer.Stop()
}

// loop is the journal's own writer, woken when the linger ends, when
// someone waits behind a writer that let go, when the queue is full, or at
// close. It commits a batch whenever the ledger is free, and ends once the
// journal is closed, drained and no caller is writing.
func (j *journal) loop() {
	defer close(j.done)
	for range j.wake {
		j.mu.Lock()
		free := !j.writing && len(j.queue) > 0
		end := j.closed && !j.writing && len(j.queue) == 0
		if free {
			j.writing = true
		}
		j.mu.Unlock()
		if end {
			return
		}
		if free {
			j.writeNext()
			j.release() // wakes this loop again while there is a hurry
		}
	}
}

// commit writes one batch, retrying transient failures with a short
// backoff. If the batch still fails it is split and retried in halves, so
// one bad op (a vanished agent, say) cannot take other runs' events with it.
// An op that fails on its own is failed loudly: a caller waiting gets the
// error and a run whose events were lost is told, so it stops with a clear
// message instead of streaming into the void.
func (j *journal) commit(batch []op) {
	err := j.write(batch)
	for attempt := 0; err != nil && attempt < len(j.backoff); attempt++ {
		j.log.Warn("run ledger write failed; retrying", "err", err, "attempt", attempt+1)
		time.Sleep(j.backoff[attempt])
		err = j.write(batch)
	}
	if err == nil {
		j.settle(batch, nil)
		return
	}
	if store.IsDiskFull(err) {
		j.diskFull(batch, err)
		return
	}
	j.split(batch, err)
}

// diskFull fails a batch that found no room. Halving it would only repeat
// the failure once per op (thousands of doomed transactions, and as many
// log lines, for a flood), so its events fail together at once, and the few
// run rows it holds (creates, starts, results: small, and what a waiting
// caller needs) get one more try on their own.
func (j *journal) diskFull(batch []op, err error) {
	var rows, events []op
	for _, o := range batch {
		if o.kind == opEvent {
			events = append(events, o)
		} else {
			rows = append(rows, o)
		}
	}
	if len(events) > 0 {
		j.log.Error("run events not saved", "err", err, "events", len(events))
		j.settle(events, err)
	}
	if len(rows) == 0 {
		return
	}
	if rerr := j.write(rows); rerr != nil {
		j.split(rows, rerr)
		return
	}
	j.settle(rows, nil)
}

func (j *journal) split(batch []op, err error) {
	if len(batch) == 1 {
		j.log.Error("run ledger write failed", "err", err, "run", batch[0].runID)
		j.settle(batch, err)
		return
	}
	mid := len(batch) / 2
	for _, half := range [][]op{batch[:mid], batch[mid:]} {
		if herr := j.write(half); herr != nil {
			j.split(half, herr)
		} else {
			j.settle(half, nil)
		}
	}
}

func (j *journal) write(batch []op) error {
	j.commits.Add(1)
	return j.st.WriteBatch(context.Background(), func(b *store.Batch) error { return apply(b, batch) })
}

// settle reports a written (or failed) batch to its waiters and wakes the
// readers of every run whose events are now durable.
func (j *journal) settle(batch []op, err error) {
	var runs map[string]struct{}
	for i := range batch {
		o := &batch[i]
		if o.reply != nil {
			o.reply <- err
		}
		if err != nil {
			if o.onFail != nil {
				o.onFail(err)
			}
			continue
		}
		if o.kind == opEvent {
			if runs == nil {
				runs = map[string]struct{}{}
			}
			runs[o.runID] = struct{}{}
		}
	}
	for id := range runs {
		j.progress(id)
	}
}

// apply writes a batch. A run created in this batch is inserted in the
// latest state the batch knows (running, or even finished), and the ops
// folded into that insert are skipped: a short run then costs one row write.
func apply(b *store.Batch, batch []op) error {
	pl, err := planBatch(b, batch)
	if err != nil {
		return err
	}
	created, doneIn, charged := pl.created, pl.doneIn, pl.charged
	var events []store.NewEvent
	flush := func() error {
		err := b.AppendEvents(events)
		events = events[:0]
		return err
	}
	for i := range batch {
		o := &batch[i]
		if o.kind == opEvent {
			events = append(events, store.NewEvent{RunID: o.runID, Seq: o.seq, Kind: o.ekind, Data: o.data})
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		var err error
		switch o.kind {
		case opCreate:
			err = b.InsertRun(*created[o.runID])
		case opRunning:
			if created[o.runID] == nil {
				err = b.MarkRunning(o.runID, o.at)
			}
		case opFinish:
			if created[o.runID] == nil {
				done := o.done
				if seq, ok := doneIn[o.runID]; ok && done != nil && seq == done.Seq {
					done = nil // written by this batch already
				}
				final := o.final
				if r := charged[i]; r != nil {
					final = r
				}
				err = b.FinishOrSave(*final, done)
			}
		default:
			err = errors.New("unknown journal op")
		}
		if err != nil {
			return err
		}
	}
	return flush()
}

// batchPlan is what a batch's writes depend on, read in a first pass: the
// rows it creates (in their final state when their run also ends in it),
// the done events it holds, and the finish rows as their charge left them.
type batchPlan struct {
	created map[string]*store.NewRun
	doneIn  map[string]int64
	charged map[int]*store.NewRun
}

// planBatch is apply's first pass; a charge that fails fails the batch.
func planBatch(b *store.Batch, batch []op) (batchPlan, error) {
	created := map[string]*store.NewRun{}
	var doneIn map[string]int64       // done events in this batch, by run
	var charged map[int]*store.NewRun // finish rows as their charge left them
	for i := range batch {
		o := &batch[i]
		switch o.kind {
		case opEvent:
			if o.ekind == string(executor.KindDone) {
				if doneIn == nil {
					doneIn = map[string]int64{}
				}
				doneIn[o.runID] = o.seq
			}
		case opCreate:
			created[o.runID] = &store.NewRun{
				ID: o.runID, RuntimeID: o.runtimeID, AgentID: o.agentID, TaskID: o.taskID,
				TeamID: o.teamID, Model: o.model, Title: o.title, CreatedAt: o.at, SessionKey: o.reviewKey,
				Prompt: o.prompt,
			}
		case opRunning:
			if nr := created[o.runID]; nr != nil {
				at := o.at
				nr.StartedAt = &at
			}
		case opFinish:
			final := o.final
			if o.charge != nil {
				f := *final.Final
				if err := o.charge(b, &f); err != nil {
					return batchPlan{}, err
				}
				r := *final
				r.Final = &f
				final = &r
				if charged == nil {
					charged = map[int]*store.NewRun{}
				}
				charged[i] = final
			}
			if nr := created[o.runID]; nr != nil {
				nr.Final = final.Final
			}
		}
	}
	return batchPlan{created: created, doneIn: doneIn, charged: charged}, nil
}
