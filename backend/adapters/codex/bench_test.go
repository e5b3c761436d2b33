//go:build unix

package codex

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
)

// fakeProcessEnv makes the test binary serve the fake Responses API (and
// nothing else), so a benchmark's host CPU excludes the fake's.
const fakeProcessEnv = "CODEX_BENCH_SERVE_FAKE"

func TestMain(m *testing.M) {
	if os.Getenv(fakeProcessEnv) == "1" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			os.Exit(1)
		}
		fmt.Println(ln.Addr().String())
		_ = http.Serve(ln, fakeresponses.New(fakeresponses.Text("", "Hello from fake openai.")))
		os.Exit(0)
	}
	code := m.Run()
	if catalogPath != "" {
		os.RemoveAll(filepath.Dir(catalogPath))
	}
	os.Exit(code)
}

// fakeProcess starts the fake in its own process and returns its URL.
func fakeProcess(b *testing.B) string {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fakeProcessEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return "http://" + addr[:len(addr)-1]
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAdapterOverhead runs plain turns on the real codex and reports
// the adapter's own cost per run: overhead-ms is the time from the CLI's
// final line (turn/completed, or exec's turn.completed) to the host
// receiving done; host-cpu-ms is this process's CPU per run (the fake
// model runs in another process; codex's CPU is its own). Target: <= 20 ms.
func BenchmarkAdapterOverhead(b *testing.B) {
	for _, mode := range []struct {
		name string
		mode Mode
	}{{"app-server", AppServer}, {"exec", Exec}} {
		b.Run(mode.name, func(b *testing.B) {
			w := newWorld(b)
			w.writeUser("config.toml", userConfig(modelCatalog(b, w.bin), fakeProcess(b)+"/v1"))
			w.mode = mode.mode
			a := w.adapter()
			ctx := context.Background()
			var overhead, cpu time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req := executor.StartRequest{RunID: executor.RunID(fmt.Sprint("bench-", i)), AgentID: "agent-bench", Message: "hi"}
				req.Emitter = executor.NewEmitter(req.RunID, 0)
				c0 := cpuNow()
				r, err := a.Start(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				var last executor.Event
				for ev := range r.Events() {
					last = ev
				}
				got := time.Now()
				cpu += cpuNow() - c0
				if last.Kind != executor.KindDone || last.Reason != executor.DoneSuccess {
					b.Fatalf("run ended %+v", last)
				}
				overhead += got.Sub(time.Unix(0, r.(*run).lastLine.Load()))
			}
			b.ReportMetric(float64(overhead.Microseconds())/1000/float64(b.N), "overhead-ms")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "host-cpu-ms")
		})
	}
}
