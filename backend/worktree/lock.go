package worktree

import (
	"context"
	"sync"
)

// keyedMutex serializes work per key (a worktree path). An entry lives only
// while someone holds or awaits it, so the map stays as small as the number
// of paths in use; waiting honours the caller's context.
type keyedMutex struct {
	mu sync.Mutex
	m  map[string]*keyEntry
}

type keyEntry struct {
	sem  chan struct{} // capacity 1: holding the token is holding the lock
	refs int           // holders and waiters
}

// lock blocks until key is free or ctx ends; the returned func unlocks.
func (k *keyedMutex) lock(ctx context.Context, key string) (func(), error) {
	k.mu.Lock()
	if k.m == nil {
		k.m = map[string]*keyEntry{}
	}
	e := k.m[key]
	if e == nil {
		e = &keyEntry{sem: make(chan struct{}, 1)}
		k.m[key] = e
	}
	e.refs++
	k.mu.Unlock()

	select {
	case e.sem <- struct{}{}:
		return func() {
			<-e.sem
			k.release(key, e)
		}, nil
	case <-ctx.Done():
		k.release(key, e)
		return nil, ctx.Err()
	}
}

func (k *keyedMutex) release(key string, e *keyEntry) {
	k.mu.Lock()
	e.refs--
	if e.refs == 0 {
		delete(k.m, key)
	}
	k.mu.Unlock()
}

// size is the number of live entries (for tests).
func (k *keyedMutex) size() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.m)
}
