package openclaw

import (
	"sync"
	"sync/atomic"
	"time"
)

// hub fans values out to subscribers, each with a bounded queue.
// publishMust waits up to bound for a full subscriber, then evicts it
// (its channel closes with Evicted() true): it must treat its stream as
// broken. publish skips a full subscriber (for lossy feeds). After close
// every subscription is closed.
type hub[T any] struct {
	bound time.Duration

	mu     sync.RWMutex
	subs   map[*Sub[T]]struct{}
	closed bool
}

// Sub is one subscriber.
type Sub[T any] struct {
	ch      chan T
	h       *hub[T]
	evicted atomic.Bool
	once    sync.Once
}

func newHub[T any](bound time.Duration) *hub[T] {
	return &hub[T]{bound: bound, subs: map[*Sub[T]]struct{}{}}
}

func (h *hub[T]) subscribe(buf int) *Sub[T] {
	s := &Sub[T]{ch: make(chan T, max(buf, 1)), h: h}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		s.once.Do(func() { close(s.ch) })
		return s
	}
	h.subs[s] = struct{}{}
	return s
}

// C is the subscriber's channel.
func (s *Sub[T]) C() <-chan T { return s.ch }

// Evicted reports the subscriber fell behind and was dropped.
func (s *Sub[T]) Evicted() bool { return s.evicted.Load() }

// Close unsubscribes.
func (s *Sub[T]) Close() {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	if _, ok := s.h.subs[s]; ok {
		delete(s.h.subs, s)
		s.once.Do(func() { close(s.ch) })
	}
}

func (h *hub[T]) publish(v T) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for s := range h.subs {
		select {
		case s.ch <- v:
		default:
		}
	}
}

func (h *hub[T]) publishMust(v T) {
	h.mu.RLock()
	var slow []*Sub[T]
	for s := range h.subs {
		select {
		case s.ch <- v:
		default:
			slow = append(slow, s)
		}
	}
	h.mu.RUnlock()
	for _, s := range slow {
		t := time.NewTimer(h.bound)
		sent := false
		h.mu.RLock()
		if _, live := h.subs[s]; live {
			select {
			case s.ch <- v:
				sent = true
			case <-t.C:
			}
		} else {
			sent = true
		}
		h.mu.RUnlock()
		t.Stop()
		if !sent {
			h.mu.Lock()
			if _, live := h.subs[s]; live {
				delete(h.subs, s)
				s.evicted.Store(true)
				s.once.Do(func() { close(s.ch) })
			}
			h.mu.Unlock()
		}
	}
}

func (h *hub[T]) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		delete(h.subs, s)
		s.once.Do(func() { close(s.ch) })
	}
}
