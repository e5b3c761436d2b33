package board

import (
	"context"
	"database/sql"
	"errors"
	"runtime"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/store"
)

// claimer runs claims with group commit: concurrent claims queue up and one
// goroutine executes each as its own conditional statement, in order,
// inside one write transaction, then commits once for all of them. A claim
// keeps its single-statement, race-free semantics; what is shared is only
// the commit, which with SQLite costs far more than the statement. Under a
// burst of claimers this multiplies claims per second; a lone claim waits
// for nothing extra.
type claimer struct {
	st   *store.Store
	now  func() time.Time
	reqs chan *claimReq
	done chan struct{}
	once sync.Once
}

type claimReq struct {
	ctx   context.Context
	query string
	key   string // the task id, or the team for claim-next
	spec  ClaimSpec
	reply chan claimReply
}

type claimReply struct {
	task Task
	ok   bool
	err  error
}

const maxClaimBatch = 64

func newClaimer(st *store.Store, now func() time.Time) *claimer {
	c := &claimer{st: st, now: now, reqs: make(chan *claimReq, maxClaimBatch), done: make(chan struct{})}
	go c.loop()
	return c
}

var errClaimerClosed = errors.New("board is closed")

func (c *claimer) do(ctx context.Context, query, key string, spec ClaimSpec) (Task, bool, error) {
	r := &claimReq{ctx: ctx, query: query, key: key, spec: spec, reply: make(chan claimReply, 1)}
	select {
	case c.reqs <- r:
	case <-c.done:
		return Task{}, false, errClaimerClosed
	case <-ctx.Done():
		return Task{}, false, ctx.Err()
	}
	// The claim may commit even if ctx ends now; wait for the truth.
	rep := <-r.reply
	return rep.task, rep.ok, rep.err
}

func (c *claimer) close() { c.once.Do(func() { close(c.done) }) }

func (c *claimer) loop() {
	batch := make([]*claimReq, 0, maxClaimBatch)
	for {
		select {
		case <-c.done:
			c.drain()
			return
		case r := <-c.reqs:
			batch = append(batch[:0], r)
		}
		// Let claimers just answered by the last batch queue their next
		// claim, so they share this commit instead of waiting for the next.
		runtime.Gosched()
	fill:
		for len(batch) < maxClaimBatch {
			select {
			case r := <-c.reqs:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		c.run(batch)
	}
}

// drain answers claims queued at close.
func (c *claimer) drain() {
	for {
		select {
		case r := <-c.reqs:
			r.reply <- claimReply{err: errClaimerClosed}
		default:
			return
		}
	}
}

func (c *claimer) run(batch []*claimReq) {
	replies := make([]claimReply, len(batch))
	err := c.st.InTx(context.Background(), func(tx *sql.Tx) error {
		q := c.st.Tx(tx)
		now := c.now().UnixMilli()
		for i, r := range batch {
			if r.ctx.Err() != nil {
				replies[i] = claimReply{err: r.ctx.Err()}
				continue
			}
			row := q.QueryRowContext(context.Background(), r.query,
				optional(r.spec.AgentID), optional(r.spec.Runtime), optional(r.spec.RunID), now, now, r.key)
			t, err := scanTask(row)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				replies[i] = claimReply{}
			case err != nil:
				return err
			default:
				replies[i] = claimReply{task: t, ok: true}
			}
		}
		return nil
	})
	for i, r := range batch {
		if err != nil {
			replies[i] = claimReply{err: err}
		}
		r.reply <- replies[i]
	}
}
