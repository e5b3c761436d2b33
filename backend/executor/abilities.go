package executor

import (
	"context"
	"sync"
)

// Optional abilities: small interfaces an Adapter may also implement, for
// what only some runtimes can do. The host finds them with a type
// assertion on these names (never an anonymous interface), and each
// adapter that has one asserts it at compile time, so renaming a method
// breaks the build instead of silently dropping the ability.

// Waiter is implemented by every adapter that starts child processes. A
// run's Done can reach the host before its child has exited and before the
// adapter has removed what the run left (a throwaway home); Wait blocks
// until every run's children are reaped and cleaned up, or ctx ends. A
// host that shuts down aborts its runs, then calls Wait, so no child
// outlives it.
type Waiter interface {
	Wait(ctx context.Context) error
}

// Readier is implemented by adapters whose readiness is a live connection
// (OpenClaw's Gateway): Ready answers from what the adapter already knows,
// without a round trip, for listings that must not wait on the runtime.
// Health still asks the runtime itself.
type Readier interface {
	Ready() bool
}

// WaitGroup is Waiter's body for an adapter that counts its live runs in
// a sync.WaitGroup: it waits for wg, or returns ctx's error when ctx ends
// first (the waiting goroutine then ends when the runs do).
func WaitGroup(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
