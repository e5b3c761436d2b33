package approval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/clawboo/desktop/backend/bus"
	"github.com/clawboo/desktop/backend/redact"
	"github.com/clawboo/desktop/backend/store"
	"github.com/oklog/ulid/v2"
)

// Options wire a Queue.
type Options struct {
	Store *store.Store
	// Events receives every change; nil makes the queue its own (closed
	// with it).
	Events *bus.Broker[Event]
	Log    *slog.Logger
	Now    func() time.Time
	// TTL is the default time a request stays answerable (DefaultTTL).
	TTL time.Duration
}

// Queue is the approvals queue.
type Queue struct {
	st        *store.Store
	events    *bus.Broker[Event]
	ownEvents bool
	log       *slog.Logger
	now       func() time.Time
	ttl       time.Duration

	mu sync.Mutex
	// waiters are the Asks of this process still blocked, by request id;
	// whoever takes a waiter out of the map delivers the final request.
	waiters map[string]chan Request
	closed  bool
}

// Open makes the queue and expires every request a previous process left
// pending: nobody is waiting for their answer any more.
func Open(ctx context.Context, o Options) (*Queue, error) {
	if o.Store == nil {
		return nil, errors.New("approval: a store is required")
	}
	q := &Queue{st: o.Store, events: o.Events, log: o.Log, now: o.Now, ttl: o.TTL, waiters: map[string]chan Request{}}
	if q.events == nil {
		q.events, q.ownEvents = bus.New[Event](0), true
	}
	if q.log == nil {
		q.log = slog.New(slog.DiscardHandler)
	}
	if q.now == nil {
		q.now = time.Now
	}
	if q.ttl <= 0 {
		q.ttl = DefaultTTL
	}
	res, err := q.st.Write().ExecContext(ctx, `UPDATE approvals SET status = 'expired', resolved_at = ?,
		resolved_by = 'system', note = 'Clawboo restarted before anyone answered' WHERE status = 'pending'`, q.ms())
	if err != nil {
		if q.ownEvents {
			q.events.Close()
		}
		return nil, fmt.Errorf("approval: expire leftovers: %w", err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		q.log.Info("expired approval requests left pending by a previous run", "count", n)
	}
	return q, nil
}

func (q *Queue) ms() int64 { return q.now().UnixMilli() }

// Subscribe follows the queue's changes (bus.PublishMust semantics: a
// subscriber too slow to keep up is evicted and must re-read Pending).
func (q *Queue) Subscribe(buf int) *bus.Subscription[Event] { return q.events.Subscribe(buf) }

// Ask records req as pending and blocks until a person answers it, it
// expires (ttl, or the queue's default when ttl <= 0), or ctx ends (the
// request is then withdrawn: expired). It returns the request as it ended;
// only Allowed() lets the caller go ahead. An error means the request could
// not be recorded or settled, and must be read as "no".
func (q *Queue) Ask(ctx context.Context, req Request, ttl time.Duration) (Request, error) {
	if ttl <= 0 {
		ttl = q.ttl
	}
	if req.Kind != KindTool && req.Kind != KindCommand {
		return Request{}, fmt.Errorf("%w: kind must be %q or %q", ErrInvalid, KindTool, KindCommand)
	}
	req = clean(req)
	if req.Title == "" {
		return Request{}, fmt.Errorf("%w: a title is required", ErrInvalid)
	}
	now := q.now()
	req.ID = ulid.Make().String()
	req.Status, req.CreatedAt, req.ExpiresAt = Pending, now.UnixMilli(), now.Add(ttl).UnixMilli()
	req.ResolvedAt, req.ResolvedBy, req.Note = 0, "", ""

	ch := make(chan Request, 1)
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return Request{}, ErrClosed
	}
	q.waiters[req.ID] = ch
	q.mu.Unlock()
	if err := q.insert(ctx, req); err != nil {
		q.takeWaiter(req.ID)
		return Request{}, err
	}
	q.events.PublishMust(Event{Kind: "requested", Approval: req})

	timer := time.NewTimer(ttl)
	defer timer.Stop()
	select {
	case r := <-ch:
		return r, nil
	case <-timer.C:
		return q.settle(req.ID, ch, "nobody answered in time")
	case <-ctx.Done():
		return q.settle(req.ID, ch, "withdrawn: the caller stopped waiting")
	}
}

// Record writes e into the history as done: kind device, status approved,
// answered now by e.By. It is never pending, so it is never listed as
// waiting and Resolve on it fails with ErrResolved; it is published as
// "resolved" only, so live histories show it.
func (q *Queue) Record(ctx context.Context, e Entry) (Request, error) {
	if e.Kind != KindDevice {
		return Request{}, fmt.Errorf("%w: only a %q entry is recorded; a %q or a %q is asked", ErrInvalid, KindDevice, KindTool, KindCommand)
	}
	r := clean(Request{Kind: e.Kind, Title: e.Title})
	if r.Title == "" {
		return Request{}, fmt.Errorf("%w: a title is required", ErrInvalid)
	}
	now := q.ms()
	r.ID, r.Status = ulid.Make().String(), Approved
	r.CreatedAt, r.ExpiresAt, r.ResolvedAt = now, now, now
	r.ResolvedBy = cut(redact.Secrets(strings.TrimSpace(e.By)), maxShort)
	r.Note = cut(redact.Secrets(strings.TrimSpace(e.Note)), maxNote)
	if err := q.insertDone(ctx, r); err != nil {
		return Request{}, err
	}
	q.events.PublishMust(Event{Kind: "resolved", Approval: r})
	return r, nil
}

// settle expires a request its asker gives up on. When someone else
// settled it first (an answer racing the timer), their outcome stands.
func (q *Queue) settle(id string, ch chan Request, note string) (Request, error) {
	// The caller's context may be done; the expiry must still be written.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, won, err := q.expire(ctx, id, note)
	if err != nil {
		q.takeWaiter(id)
		return Request{}, err
	}
	if won {
		return r, nil
	}
	// Whoever won took the waiter and delivers (or has delivered) to ch.
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return q.Get(context.Background(), id)
	}
}

// expire moves a pending request to expired. won is false when it was no
// longer pending; the winner of a race owns the delivery to the waiter.
func (q *Queue) expire(ctx context.Context, id, note string) (Request, bool, error) {
	res, err := q.st.Write().ExecContext(ctx, `UPDATE approvals SET status = 'expired', resolved_at = ?,
		resolved_by = 'system', note = ? WHERE id = ? AND status = 'pending'`, q.ms(), note, id)
	if err != nil {
		return Request{}, false, fmt.Errorf("approval: expire %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Request{}, false, nil
	}
	r, err := q.Get(ctx, id)
	if err != nil {
		return Request{}, false, err
	}
	q.deliver(r)
	return r, true, nil
}

// Resolve answers a pending request; the first answer wins. It fails with
// ErrNotFound, ErrBadDecision, ErrNoAlways (allow-always on a request that
// does not offer it: it stays pending), ErrExpired (also when the deadline passed
// but the expiry has not been written yet) or ErrResolved, returning the
// request as it stands when there is one.
func (q *Queue) Resolve(ctx context.Context, id string, d Decision, by, note string) (Request, error) {
	var status Status
	scope := ""
	switch d {
	case Approve:
		status = Approved
	case AllowAlways:
		status, scope = Approved, ScopeSession
	case Deny:
		status = Denied
	default:
		return Request{}, ErrBadDecision
	}
	now := q.ms()
	// An "allow always" lands only on a request that offers it.
	res, err := q.st.Write().ExecContext(ctx, `UPDATE approvals SET status = ?, resolved_at = ?, resolved_by = ?, note = ?,
		scope = ? WHERE id = ? AND status = 'pending' AND expires_at > ? AND (? = '' OR always = 1)`,
		string(status), now, cut(redact.Secrets(by), maxShort), cut(redact.Secrets(note), maxNote), scope, id, now, scope)
	if err != nil {
		return Request{}, fmt.Errorf("approval: resolve %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		r, err := q.Get(ctx, id)
		if err != nil {
			return Request{}, err
		}
		q.deliver(r)
		return r, nil
	}
	cur, err := q.Get(ctx, id)
	if err != nil {
		return Request{}, err
	}
	switch cur.Status {
	case Pending:
		if scope != "" && !cur.Always && cur.ExpiresAt > now {
			return cur, ErrNoAlways
		}
		// past its deadline; its timer has not fired yet
		if r, won, err := q.expire(ctx, id, "nobody answered in time"); err == nil && won {
			cur = r
		} else if c, err := q.Get(ctx, id); err == nil {
			cur = c
		}
		if cur.Status == Expired || cur.Status == Pending {
			return cur, ErrExpired
		}
		return cur, ErrResolved
	case Expired:
		return cur, ErrExpired
	default:
		return cur, ErrResolved
	}
}

// deliver hands the final request to its waiter (if this process has one)
// and publishes the change.
func (q *Queue) deliver(r Request) {
	if ch := q.takeWaiter(r.ID); ch != nil {
		ch <- r // buffered; only the taker sends
	}
	q.events.PublishMust(Event{Kind: "resolved", Approval: r})
}

func (q *Queue) takeWaiter(id string) chan Request {
	q.mu.Lock()
	defer q.mu.Unlock()
	ch := q.waiters[id]
	delete(q.waiters, id)
	return ch
}

// Close expires every request still waiting in this process (their askers
// get "expired") and refuses new ones.
func (q *Queue) Close() {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	ids := make([]string, 0, len(q.waiters))
	for id := range q.waiters {
		ids = append(ids, id)
	}
	q.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, id := range ids {
		if _, _, err := q.expire(ctx, id, "Clawboo is shutting down"); err != nil {
			q.log.Warn("expire an approval request at shutdown", "id", id, "err", err)
		}
	}
	if q.ownEvents {
		q.events.Close()
	}
}

// clean scrubs and cuts what will be stored and shown.
func clean(r Request) Request {
	s := func(v string, n int) string { return cut(redact.Secrets(strings.TrimSpace(v)), n) }
	r.Title = s(r.Title, maxTitle)
	r.Tool = s(r.Tool, maxShort)
	r.Command = s(r.Command, maxText)
	r.Args = s(r.Args, maxText)
	r.Folder = s(r.Folder, maxText)
	r.AgentID, r.TeamID = s(r.AgentID, maxShort), s(r.TeamID, maxShort)
	r.TaskID, r.RunID = s(r.TaskID, maxShort), s(r.RunID, maxShort)
	r.Reason = s(r.Reason, maxReason)
	r.Risk = s(r.Risk, maxShort)
	return r
}

// cut shortens s to at most n bytes on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	end := n - len(mark)
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + mark
}
