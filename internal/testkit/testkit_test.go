package testkit

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSyncBufferTakesConcurrentWriters(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				fmt.Fprintf(&b, "%d\n", i)
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if n := strings.Count(b.String(), "\n"); n != 800 {
		t.Fatalf("%d lines", n)
	}
}

// recorder is a testing.TB whose Fatalf is recorded instead of ending the test.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

func TestEventuallyWaitsForTheConditionAndNamesItOnTimeout(t *testing.T) {
	n := 0
	Eventually(t, 5*time.Second, "the third look", func() bool { n++; return n >= 3 })
	if n != 3 {
		t.Fatalf("looked %d times", n)
	}

	r := &recorder{TB: t}
	calls := 0
	// ok turns true on the look after the deadline's failure, so the wait
	// stops right after recording it.
	EventuallySays(r, 0, "a door to open", func() (bool, string) {
		calls++
		return calls > 2, fmt.Sprintf("shut (%d)", calls)
	})
	if !strings.Contains(r.failed, "waiting for a door to open") || !strings.Contains(r.failed, "last: shut (") {
		t.Fatalf("failure said %q", r.failed)
	}
}

func TestWithinAnswersInsteadOfFailing(t *testing.T) {
	n := 0
	if ok, last := Within(5*time.Second, func() (bool, string) { n++; return n == 2, fmt.Sprint(n) }); !ok || last != "2" {
		t.Fatalf("%v %q", ok, last)
	}
	if ok, last := Within(0, func() (bool, string) { return false, "never" }); ok || last != "never" {
		t.Fatalf("%v %q", ok, last)
	}
}
