package supervisor

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/store"
)

// Retention keeps the event log bounded (see store.CompactRun): a run whose
// text deltas are over the size budget is compacted a grace period after it
// ends, once nobody streams its events (a reader paging through the log as
// it is rewritten could be shown a stretch of text twice), and every
// RetentionEvery the runs that ended longer ago than the age budget are, a
// few at a time. Both happen on one goroutine off the runs' path, in the
// store's bounded transactions, and the WAL is truncated after a compaction
// that removed anything, so neither file keeps the bulk.

const (
	defaultRetentionEvery = 10 * time.Minute
	defaultRetentionGrace = time.Minute
	retentionQueue        = 256 // ended runs waiting for the size rule; more are left to the age rule
	maxGraceTries         = 60  // a run watched this many graces in a row is left to the age rule
	agePassRuns           = 50  // runs per store call of an age pass
)

type endedRun struct {
	id         string
	deltaBytes int64
	due        time.Time
	tries      int
}

type retention struct {
	s      *Supervisor
	every  time.Duration
	grace  time.Duration
	ctx    context.Context // ends at close, stopping a compaction between chunks
	cancel context.CancelFunc
	done   chan struct{}

	// Ended runs reach the loop through pending, which ended appends to
	// without waking it while its grace timer is set (armed): a run's end
	// costs no wake-up, and the loop takes them all when the timer fires.
	mu      sync.Mutex
	pending []endedRun
	armed   bool
	wake    chan struct{} // cap 1: pending has runs and no timer is set
}

func newRetention(s *Supervisor, every, grace time.Duration) *retention {
	if every <= 0 {
		every = defaultRetentionEvery
	}
	if grace <= 0 {
		grace = defaultRetentionGrace
	}
	r := &retention{s: s, every: every, grace: grace, wake: make(chan struct{}, 1), done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r
}

// ended offers a run whose result is durable to the size rule. It never
// blocks: when the queue is full the age rule gets to the run later.
func (r *retention) ended(id string, deltaBytes int64) {
	if deltaBytes == 0 {
		return
	}
	r.mu.Lock()
	if len(r.pending) < retentionQueue {
		r.pending = append(r.pending, endedRun{id: id, deltaBytes: deltaBytes, due: time.Now().Add(r.grace)})
	}
	wake := !r.armed
	r.armed = true
	r.mu.Unlock()
	if wake {
		signal(r.wake)
	}
}

// take moves the pending runs into waiting (bounded) and says whether the
// grace timer is to be set; when nothing waits, the next ended run wakes
// the loop instead.
func (r *retention) take(waiting []endedRun) ([]endedRun, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.pending {
		if len(waiting) < retentionQueue {
			waiting = append(waiting, e)
		}
	}
	clear(r.pending)
	r.pending = r.pending[:0]
	slices.SortFunc(waiting, func(a, b endedRun) int { return a.due.Compare(b.due) })
	r.armed = len(waiting) > 0
	return waiting, r.armed
}

func (r *retention) loop() {
	defer close(r.done)
	ctx := r.ctx
	// The first age pass waits a little, so a start-up is not slowed.
	tick := time.NewTimer(min(r.every, time.Minute))
	defer tick.Stop()
	due := time.NewTimer(time.Hour)
	due.Stop()
	var waiting []endedRun // ended runs in their grace period, earliest due first
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		case <-due.C:
			waiting = r.dueRuns(ctx, waiting)
		case <-tick.C:
			r.byAge(ctx)
			tick.Reset(r.every)
			continue
		}
		var set bool
		if waiting, set = r.take(waiting); set {
			stopTimer(due)
			due.Reset(max(time.Until(waiting[0].due), time.Millisecond))
		}
	}
}

// dueRuns compacts the waiting runs whose grace is over and nobody
// watches, and returns the rest (take orders them again).
func (r *retention) dueRuns(ctx context.Context, waiting []endedRun) []endedRun {
	now := time.Now()
	rest := waiting[:0]
	var b *store.Retention // read once a pass, when a run is due
	for _, e := range waiting {
		switch {
		case e.due.After(now):
			rest = append(rest, e)
		case r.s.watched(e.id):
			if e.tries++; e.tries < maxGraceTries {
				e.due = now.Add(r.grace)
				rest = append(rest, e)
			}
		default:
			if b == nil {
				bb := r.budgets(ctx)
				b = &bb
			}
			r.bySize(ctx, *b, e)
		}
	}
	return rest
}

func (r *retention) budgets(ctx context.Context) store.Retention {
	b, err := r.s.opts.Store.Retention(ctx)
	if err != nil {
		r.s.opts.Log.Warn("retention settings not read; using the defaults", "err", err)
	}
	return b
}

func (r *retention) bySize(ctx context.Context, b store.Retention, e endedRun) {
	if b.CompactOverBytes <= 0 || e.deltaBytes <= b.CompactOverBytes {
		return
	}
	st, err := r.s.opts.Store.CompactRun(ctx, e.id)
	r.report(ctx, "size", st, err)
}

func (r *retention) byAge(ctx context.Context) {
	b := r.budgets(ctx)
	if b.CompactAfter <= 0 {
		return
	}
	var total store.CompactStats
	for ctx.Err() == nil {
		cutoff := r.s.opts.Now().Add(-b.CompactAfter).UnixMilli()
		st, more, err := r.s.opts.Store.CompactOld(ctx, cutoff, agePassRuns)
		total.Add(st)
		if err != nil || !more {
			r.report(ctx, "age", total, err)
			return
		}
	}
}

func (r *retention) report(ctx context.Context, rule string, st store.CompactStats, err error) {
	log := r.s.opts.Log
	if err != nil && ctx.Err() == nil {
		log.Warn("run events not compacted", "rule", rule, "err", err)
	}
	if st.Deleted == 0 {
		return
	}
	log.Info("compacted run events", "rule", rule, "runs", st.Runs, "rows", st.Deleted, "into", st.Written,
		"bytes_before", st.BytesBefore, "bytes_after", st.BytesAfter)
	if n, err := r.s.opts.Store.Reclaim(ctx, 0); err != nil && ctx.Err() == nil {
		log.Warn("free pages not given back after compaction", "err", err)
	} else if n > 0 {
		log.Info("database file shrank after compaction", "bytes", n)
	}
	if err := r.s.opts.Store.TruncateWAL(ctx); err != nil && ctx.Err() == nil {
		log.Warn("WAL not truncated after compaction", "err", err)
	}
}

func (r *retention) close() {
	r.cancel()
	<-r.done
}
