// Package bus is a small typed publish/subscribe broker.
//
// Delivery semantics, stated once so every caller can rely on them:
//   - Publish is lossy: a subscriber whose buffer is full misses that value.
//     Use it for signals and deltas where a later value supersedes an earlier
//     one, and where the subscriber re-reads durable state when it wakes.
//     Because a full buffer already holds an undelivered value, a lossy
//     subscriber is always woken at least once after the last Publish.
//   - PublishMust is reliable but bounded: it waits up to the broker's bound
//     for each subscriber. A subscriber that cannot keep up within the bound
//     is evicted (its channel is closed and Evicted reports true) rather
//     than silently missing a value; it must re-sync from durable state.
//   - Values are delivered to one subscriber in publish order; a
//     subscription narrowed by Only is offered, in that order, just the
//     values it keeps.
//   - Close ends every subscription; publishing after Close does nothing.
package bus

import (
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMustBound is how long PublishMust waits on one slow subscriber.
const DefaultMustBound = 2 * time.Second

// Broker fans values of type T out to subscribers.
type Broker[T any] struct {
	bound time.Duration

	mu     sync.RWMutex
	subs   map[*Subscription[T]]struct{}
	closed bool
}

// Subscription is one subscriber's view of a Broker.
type Subscription[T any] struct {
	ch      chan T
	b       *Broker[T]
	evicted atomic.Bool
	once    sync.Once
	keep    atomic.Pointer[func(T) bool] // nil: every value
}

// New makes a broker whose PublishMust waits at most bound per subscriber
// (DefaultMustBound when bound is zero or negative).
func New[T any](bound time.Duration) *Broker[T] {
	if bound <= 0 {
		bound = DefaultMustBound
	}
	return &Broker[T]{bound: bound, subs: map[*Subscription[T]]struct{}{}}
}

// Subscribe registers a subscriber with a buffer of buf values (at least 1).
func (b *Broker[T]) Subscribe(buf int) *Subscription[T] {
	if buf < 1 {
		buf = 1
	}
	s := &Subscription[T]{ch: make(chan T, buf), b: b}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		s.evicted.Store(true)
		s.once.Do(func() { close(s.ch) }) // so a later Close is a no-op
		return s
	}
	b.subs[s] = struct{}{}
	return s
}

// C is the channel values arrive on; it is closed when the subscription
// ends for any reason.
func (s *Subscription[T]) C() <-chan T { return s.ch }

// Only narrows the subscription to the values keep accepts, judged by the
// publisher: a value it refuses is never offered, so it neither wakes the
// subscriber nor takes buffer room. keep must be quick and must not block.
func (s *Subscription[T]) Only(keep func(T) bool) { s.keep.Store(&keep) }

// wants reports whether v is to be offered to s.
func (s *Subscription[T]) wants(v T) bool {
	keep := s.keep.Load()
	return keep == nil || (*keep)(v)
}

// Evicted reports whether the broker dropped this subscriber for being too
// slow (or because the broker closed), so the caller knows to re-sync.
func (s *Subscription[T]) Evicted() bool { return s.evicted.Load() }

// Close ends the subscription. It is safe to call more than once.
func (s *Subscription[T]) Close() {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.closeLocked()
}

func (s *Subscription[T]) closeLocked() {
	s.once.Do(func() {
		delete(s.b.subs, s)
		close(s.ch)
	})
}

// Publish offers v to every subscriber without waiting.
func (b *Broker[T]) Publish(v T) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	for s := range b.subs {
		if !s.wants(v) {
			continue
		}
		select {
		case s.ch <- v:
		default:
		}
	}
}

// PublishMust delivers v to every subscriber, evicting any that cannot
// accept it within the broker's bound.
func (b *Broker[T]) PublishMust(v T) {
	var slow []*Subscription[T]
	b.mu.RLock()
	var timer *time.Timer
	for s := range b.subs {
		if !s.wants(v) {
			continue
		}
		select {
		case s.ch <- v:
			continue
		default:
		}
		if timer == nil {
			timer = time.NewTimer(b.bound)
		}
		select {
		case s.ch <- v:
		case <-timer.C:
			slow = append(slow, s)
			// The bound is shared by this publish: once spent, every other
			// full subscriber is also too slow.
			timer.Reset(0)
		}
	}
	b.mu.RUnlock()
	if timer != nil {
		timer.Stop()
	}
	if len(slow) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range slow {
		s.evicted.Store(true)
		s.closeLocked()
	}
}

// Len is the number of live subscribers.
func (b *Broker[T]) Len() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.subs)
}

// Close ends every subscription and refuses new ones.
func (b *Broker[T]) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for s := range b.subs {
		s.evicted.Store(true)
		s.closeLocked()
	}
}
