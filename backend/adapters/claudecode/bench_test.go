//go:build unix

package claudecode

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/fakes/fakeanthropic"
)

// The adapter's overhead per run, on top of the CLI: the time from the
// CLI's final (result) line to the run's done reaching the host, and the
// host's CPU per run. The fake API runs in a child process (the test
// binary again), so the host CPU counted is the adapter's: starting the
// child, reading and mapping its lines, emitting, reaping. Target: at most
// 20 ms each.

// serveFakeAPI is the test binary as the fake Messages API (FAKE_API=1):
// it prints its URL and serves until killed.
func serveFakeAPI() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.Exit(2)
	}
	fmt.Println("http://" + ln.Addr().String())
	_ = http.Serve(ln, fakeanthropic.New(fakeanthropic.Rule{Match: "bench", Text: "bench answer"}))
}

// fakeAPIProcess starts serveFakeAPI and returns its URL.
func fakeAPIProcess(b *testing.B) string {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "FAKE_API=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return strings.TrimSpace(url)
}

func cpuSelf() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// overhead runs b.N plain turns on a and reports the two numbers.
func overhead(b *testing.B, a *Adapter, msg string) {
	var toDone time.Duration
	b.ResetTimer()
	cpu0 := cpuSelf()
	for i := 0; i < b.N; i++ {
		r := start(b, a, executor.StartRequest{Message: msg})
		var done time.Time
		for ev := range r.Events() {
			if ev.Kind == executor.KindDone {
				done = time.Now()
				if ev.Reason != executor.DoneSuccess {
					b.Fatalf("run ended %s: %s", ev.Reason, ev.Summary)
				}
			}
		}
		waitReaped(b, r)
		toDone += done.Sub(r.lastResultAt)
	}
	cpu := cpuSelf() - cpu0
	b.StopTimer()
	b.ReportMetric(float64(toDone.Microseconds())/1000/float64(b.N), "final-line-to-done-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "host-cpu-ms/run")
}

// BenchmarkRunOverheadRealCLI: the pinned claude against the fake API.
func BenchmarkRunOverheadRealCLI(b *testing.B) {
	bin := claudeBin(b)
	url := fakeAPIProcess(b)
	overhead(b, New(Options{
		Binary:     func() (string, bool) { return bin, true },
		Key:        func(context.Context) string { return testKey },
		Environ:    func() []string { return []string{"PATH=" + os.Getenv("PATH")} },
		Env:        offline(b, url),
		ScratchDir: b.TempDir(),
	}), "bench")
}

// BenchmarkRunOverheadInstantCLI: a CLI that answers at once (the test
// binary, FAKE_CLAUDE=instant), so the adapter's share is all there is.
func BenchmarkRunOverheadInstantCLI(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	overhead(b, New(Options{
		Binary:     func() (string, bool) { return self, true },
		Environ:    func() []string { return nil },
		Env:        map[string]string{"FAKE_CLAUDE": "instant"},
		ScratchDir: b.TempDir(),
	}), "bench")
}

// instantClaude answers one plain turn as the real CLI's lines do.
func instantClaude() {
	in := bufio.NewScanner(os.Stdin)
	in.Scan()
	w := bufio.NewWriter(os.Stdout)
	for _, v := range []any{
		map[string]any{"type": "system", "subtype": "init", "session_id": "instant-session", "model": "claude-opus-4-8[1m]"},
		map[string]any{"type": "assistant", "message": map[string]any{
			"model":   "claude-opus-4-8",
			"content": []any{map[string]any{"type": "text", "text": "bench answer"}},
		}},
		map[string]any{
			"type": "result", "subtype": "success", "is_error": false, "num_turns": 1, "result": "bench answer",
			"session_id": "instant-session", "total_cost_usd": 0.001,
			"usage": map[string]any{"input_tokens": 100, "output_tokens": 20},
		},
	} {
		b, _ := json.Marshal(v)
		w.Write(append(b, '\n'))
	}
	w.Flush()
	for in.Scan() {
	}
}
