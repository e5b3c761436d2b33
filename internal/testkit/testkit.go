// Package testkit holds the few helpers the module's tests share, so no
// test file writes its own copy: a buffer safe for concurrent writers, a
// poll that waits for a condition (never for a fixed time), and a client
// of the MCP servers' Streamable HTTP transport (MCPPost, MCPOpen,
// MCPCall), as a program holding a token would speak it, and GoBuild for
// the stand-in programs tests start.
//
// Invariants: only tests import it (production code never does); it
// imports nothing of this module; a wait always has a deadline, and its
// failure names what was awaited.
package testkit

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// SyncBuffer is an io.Writer safe for concurrent writers and readers: a
// logger's sink or a child's stderr that a failing test may read while
// exec's copying goroutine still writes it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Poll is how often a wait looks again.
const Poll = 20 * time.Millisecond

// Eventually polls ok until it holds. After within it fails the test,
// naming what it waited for and, when show is given, what show says then.
func Eventually(tb testing.TB, within time.Duration, what string, ok func() bool, show ...func() string) {
	tb.Helper()
	for deadline := time.Now().Add(within); !ok(); time.Sleep(Poll) {
		if time.Now().After(deadline) {
			msg := ""
			for _, s := range show {
				msg += "\n" + s()
			}
			tb.Fatalf("timed out after %v waiting for %s%s", within, what, msg)
		}
	}
}

// Within polls cond until it holds or within passes, without failing the
// test: for a wait whose failure the caller handles (a retry, a better
// message). It answers whether cond held and the last thing it said.
func Within(within time.Duration, cond func() (bool, string)) (bool, string) {
	deadline := time.Now().Add(within)
	for {
		ok, last := cond()
		if ok || time.Now().After(deadline) {
			return ok, last
		}
		time.Sleep(Poll)
	}
}

// EventuallySays is Eventually for a condition that also says what it saw:
// the failure quotes the last thing cond said.
func EventuallySays(tb testing.TB, within time.Duration, what string, cond func() (bool, string)) {
	tb.Helper()
	last := ""
	Eventually(tb, within, what, func() bool {
		var ok bool
		ok, last = cond()
		return ok
	}, func() string { return "last: " + last })
}
