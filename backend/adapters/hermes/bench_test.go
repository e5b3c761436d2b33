//go:build unix

package hermes

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRunOverhead is what the adapter adds to a Hermes run (target
// <= 20 ms): the time from the program's final output line (the session
// line; the fake stamps the moment it wrote it) to the run's done event,
// and the host's CPU per run (this process only, the child excluded:
// home preparation, environment, spawn, reading and parsing, events).
// The program is the fake hermes, since Hermes cannot be installed here.
func BenchmarkRunOverhead(b *testing.B) {
	f := newFixture(b, orKey)
	stampFile := filepath.Join(f.root, "agent-b", "stamp")
	var tail time.Duration
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run := f.start(b, f.request("agent-b", "!reply ok\n!stamp"))
		var done executor.Event
		var doneAt time.Time
		for ev := range run.Events() {
			if ev.Kind == executor.KindDone {
				done, doneAt = ev, time.Now()
			}
		}
		if done.Reason != executor.DoneSuccess {
			b.Fatalf("run %d: %+v", i, done)
		}
		raw, err := os.ReadFile(stampFile)
		if err != nil {
			b.Fatal(err)
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		tail += doneAt.Sub(time.Unix(0, ns))
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(tail.Microseconds())/1000/float64(b.N), "final-line-to-done-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "host-cpu-ms/run")
}
