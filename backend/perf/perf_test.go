package perf

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var binFlag = flag.String("clawboo", "", "path to the clawboo binary to measure (built from the module root when empty)")

// result is one figure with its target, printed as a table at the end.
// floor, when set, is the same thing measured in the same run on the
// simplest program that can do it (a bare Go HTTP server, bare git): the
// machine's floor, so a figure reads against this machine, not another.
type result struct {
	name, unit string
	value      float64
	floor      float64 // 0: none
	target     string
	ok         bool
}

var (
	resultsMu sync.Mutex
	results   []result
)

func record(b *testing.B, name, unit string, v float64, target string, ok bool) {
	recordVs(b, name, unit, v, 0, target, ok)
}

// recordVs records v beside floor, the same measure of the machine's floor
// taken in the same run; the ratio v/floor is reported too.
func recordVs(b *testing.B, name, unit string, v, floor float64, target string, ok bool) {
	b.ReportMetric(v, unit)
	if floor != 0 {
		b.ReportMetric(floor, "floor-"+unit)
		b.ReportMetric(v/floor, "x-floor")
	}
	resultsMu.Lock()
	results = append(results, result{name, unit, v, floor, target, ok})
	resultsMu.Unlock()
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if len(results) > 0 {
		fmt.Println()
		fmt.Println("clawboo serve performance (reference TypeScript Clawboo in brackets)")
		fmt.Printf("%-52s %16s %10s %7s  %-30s %s\n", "figure", "value", "floor", "ratio", "target", "")
		for _, r := range results {
			mark := "ok"
			if !r.ok {
				mark = "MISSED"
			}
			floor, ratio := "", ""
			if r.floor != 0 {
				floor, ratio = fmt.Sprintf("%.2f", r.floor), fmt.Sprintf("%.2f", r.value/r.floor)
			}
			fmt.Printf("%-52s %9.2f %-6s %10s %7s  %-30s %s\n", r.name, r.value, r.unit, floor, ratio, r.target, mark)
		}
	}
	os.Exit(code)
}

func binary(b *testing.B) string {
	b.Helper()
	if *binFlag != "" {
		return *binFlag
	}
	dir := b.TempDir()
	out := filepath.Join(dir, "clawboo")
	cmd := exec.Command("go", "build", "-o", out, "../..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, o)
	}
	return out
}

func freePort(b *testing.B) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

type proc struct {
	cmd *exec.Cmd
	url string
}

// start launches `clawboo serve` with a fresh home on a known port.
func start(b *testing.B, bin string, env ...string) *proc {
	b.Helper()
	port := freePort(b)
	home := b.TempDir()
	homes.Store("127.0.0.1:"+strconv.Itoa(port), home)
	tokens.Delete("127.0.0.1:" + strconv.Itoa(port))
	cmd := exec.Command(bin, "serve", "--home", home, "--addr", "127.0.0.1:"+strconv.Itoa(port))
	cmd.Env = append(append(os.Environ(), "CLAWBOO_ENABLE_MOCK_RUNTIME=1", "CLAWBOO_VAULT=file"), env...)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &proc{cmd: cmd, url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	b.Cleanup(p.stop)
	return p
}

func (p *proc) stop() {
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	}
}

var client = &http.Client{Transport: tokenTransport{&http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}}

// homes maps a started server's host:port to its home, tokens the token
// read from <home>/api-token (the server makes it before it listens).
var homes, tokens sync.Map

// tokenTransport sends each server's API token, as every client of the
// API must (an external client, like the CLI).
type tokenTransport struct{ base http.RoundTripper }

func (t tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if tok, ok := tokens.Load(r.URL.Host); ok {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+tok.(string))
	} else if home, ok := homes.Load(r.URL.Host); ok {
		if b, err := os.ReadFile(filepath.Join(home.(string), "api-token")); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			tokens.Store(r.URL.Host, strings.TrimSpace(string(b)))
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(b)))
		}
	}
	return t.base.RoundTrip(r)
}

// firstOK polls url until it answers 200 and returns the elapsed time since
// begin.
func firstOK(b *testing.B, url string, begin time.Time) time.Duration {
	b.Helper()
	deadline := begin.Add(10 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := client.Get(url)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return time.Since(begin)
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
	b.Fatal("server never answered")
	return 0
}

// rssKiB reads a process's resident set size.
func rssKiB(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return n
		}
	}
	return 0
}

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkColdStart times exec to the first 200 of /api/runtimes on a
// fresh home, beside the floor: a bare Go HTTP server (floorSource) timed
// the same way in the same run, rounds alternating so neither always
// follows the other.
func BenchmarkColdStart(b *testing.B) {
	bin, floorBin := binary(b), floorBinary(b)
	var ds, fs []time.Duration
	for i := 0; i < 11; i++ {
		port := freePort(b)
		home, host := b.TempDir(), "127.0.0.1:"+strconv.Itoa(port)
		homes.Store(host, home) // its first 200 carries the token the server makes before it listens
		tokens.Delete(host)
		cmd := exec.Command(bin, "serve", "--home", home, "--addr", host)
		begin := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, firstOK(b, fmt.Sprintf("http://127.0.0.1:%d/api/runtimes", port), begin))
		_ = cmd.Process.Kill()
		_ = cmd.Wait()

		port = freePort(b)
		cmd = exec.Command(floorBin, "--addr", "127.0.0.1:"+strconv.Itoa(port))
		begin = time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		fs = append(fs, firstOK(b, fmt.Sprintf("http://127.0.0.1:%d/api/runtimes", port), begin))
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	m, f := median(ds), median(fs)
	recordVs(b, "cold start to first 200 of /api/runtimes", "ms", ms(m), ms(f), "<= 15 ms [350 ms]", m <= 15*time.Millisecond)
}

// BenchmarkIdleRSS reads resident memory 30 s after start (past the 10 s
// FreeOSMemory), beside the bare Go HTTP server's after the same wait.
func BenchmarkIdleRSS(b *testing.B) {
	p := start(b, binary(b))
	f := startFloor(b, floorBinary(b))
	firstOK(b, p.url+"/api/runtimes", time.Now())
	firstOK(b, f.url+"/api/health", time.Now())
	time.Sleep(30 * time.Second)
	mib := float64(rssKiB(p.cmd.Process.Pid)) / 1024
	floor := float64(rssKiB(f.cmd.Process.Pid)) / 1024
	recordVs(b, "idle RSS after 30 s", "MiB", mib, floor, "<= 20 MiB [104 MiB]", mib <= 20)
}

func BenchmarkRuntimesLatency(b *testing.B) {
	runtimesLatency(b, start(b, binary(b)), "")
}

// BenchmarkRuntimesLatencyInstalled lists with every CLI runtime installed
// (fake binaries on PATH and in the pip/pipx user folder) and keys present.
func BenchmarkRuntimesLatencyInstalled(b *testing.B) {
	home := b.TempDir()
	bin := filepath.Join(home, "bin")
	user := filepath.Join(home, ".local", "bin")
	for dir, names := range map[string][]string{bin: {"claude", "codex", "npm"}, user: {"hermes"}} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
				b.Fatal(err)
			}
		}
	}
	p := start(b, binary(b), "HOME="+home, "PATH="+bin+":"+os.Getenv("PATH"), "ANTHROPIC_API_KEY=sk-bench", "OPENROUTER_API_KEY=or-bench")
	runtimesLatency(b, p, ", all runtimes installed")
}

func runtimesLatency(b *testing.B, p *proc, label string) {
	url := p.url + "/api/runtimes"
	firstOK(b, url, time.Now())
	const n = 5000
	p50, p99 := percentiles(b, url, n)
	h50, h99 := percentiles(b, p.url+"/api/health", n)
	recordVs(b, "GET /api/runtimes p50"+label, "ms", ms(p50), ms(h50), "<= 1 ms [15 ms]", p50 <= time.Millisecond)
	recordVs(b, "GET /api/runtimes p99"+label, "ms", ms(p99), ms(h99), "(reported)", true)
}

// percentiles times n sequential GETs of url (after 200 unrecorded) and
// returns p50 and p99.
func percentiles(b *testing.B, url string, n int) (p50, p99 time.Duration) {
	ds := make([]time.Duration, 0, n)
	for i := 0; i < n+200; i++ {
		t0 := time.Now()
		resp, err := client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if i >= 200 { // warm-up excluded
			ds = append(ds, time.Since(t0))
		}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2], ds[len(ds)*99/100]
}

// mockRuns runs `!ok` runs (wait: true, so each is fully persisted before
// it answers) from `clients` concurrent clients for d and returns runs/s.
func mockRuns(b *testing.B, p *proc, clients int, d time.Duration) float64 {
	url := p.url + "/api/runtimes/clawboo-mock/run"
	body := `{"message":"!ok done"}`
	var count atomic.Int64
	var failed atomic.Value
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	begin := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				resp, err := client.Post(url, "application/json", strings.NewReader(body))
				if err != nil {
					failed.Store(err.Error())
					return
				}
				var r struct{ OK bool }
				err = json.NewDecoder(resp.Body).Decode(&r)
				resp.Body.Close()
				if err != nil || !r.OK {
					failed.Store(fmt.Sprintf("run not ok: %v", err))
					return
				}
				count.Add(1)
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f != nil {
		b.Fatal(f)
	}
	return float64(count.Load()) / time.Since(begin).Seconds()
}

// healthRate is GET /api/health answered per second from clients
// concurrent clients over d: one HTTP round trip through the same server,
// the floor a mock run is compared with.
func healthRate(b *testing.B, p *proc, clients int, d time.Duration) float64 {
	url := p.url + "/api/health"
	var count atomic.Int64
	var failed atomic.Value
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	begin := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				resp, err := client.Get(url)
				if err != nil {
					failed.Store(err.Error())
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				count.Add(1)
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f != nil {
		b.Fatal(f)
	}
	return float64(count.Load()) / time.Since(begin).Seconds()
}

// runsVsHealth measures mock runs/s and GET /api/health/s on the same
// server with the same number of clients, each 3 s, in halves interleaved
// (health, runs, health, runs) so a noisy neighbour hits both alike.
func runsVsHealth(b *testing.B, clients int) (runs, health float64) {
	p := start(b, binary(b))
	firstOK(b, p.url+"/api/runtimes", time.Now())
	healthRate(b, p, clients, 300*time.Millisecond) // warm-up
	mockRuns(b, p, clients, 500*time.Millisecond)
	for range 2 {
		health += healthRate(b, p, clients, 1500*time.Millisecond) / 2
		runs += mockRuns(b, p, clients, 1500*time.Millisecond) / 2
	}
	return runs, health
}

func BenchmarkMockRunsSequential(b *testing.B) {
	r, h := runsVsHealth(b, 1)
	recordVs(b, "mock !ok runs/s, sequential (floor: GET /api/health/s)", "runs/s", r, h, ">= 0.6 x floor [about 200]", r >= 0.6*h)
}

func BenchmarkMockRunsConcurrent8(b *testing.B) {
	r, h := runsVsHealth(b, 8)
	recordVs(b, "mock !ok runs/s, 8 clients (floor: GET /api/health/s)", "runs/s", r, h, ">= 0.5 x floor [about 200]", r >= 0.5*h)
}

func BenchmarkFlood100k(b *testing.B) {
	p := start(b, binary(b))
	firstOK(b, p.url+"/api/runtimes", time.Now())
	mockRuns(b, p, 1, 200*time.Millisecond) // warm the heap as a running server would be
	pid := p.cmd.Process.Pid
	base := rssKiB(pid)
	var peak atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if r := rssKiB(pid); r > peak.Load() {
				peak.Store(r)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	const n = 100_000
	begin := time.Now()
	resp, err := client.Post(p.url+"/api/runtimes/clawboo-mock/run", "application/json",
		strings.NewReader(fmt.Sprintf(`{"message":"!flood %d","wait":false}`, n)))
	if err != nil {
		b.Fatal(err)
	}
	var started struct{ RunID string }
	json.NewDecoder(resp.Body).Decode(&started)
	resp.Body.Close()
	stream, err := client.Get(p.url + "/api/runs/" + started.RunID + "/events")
	if err != nil {
		b.Fatal(err)
	}
	defer stream.Body.Close()
	sc := bufio.NewScanner(stream.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	events, lastID := 0, int64(0)
	for sc.Scan() {
		line := sc.Text()
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			v, _ := strconv.ParseInt(id, 10, 64)
			if v != lastID+1 {
				b.Fatalf("event %d after %d: a gap", v, lastID)
			}
			lastID = v
			events++
		}
	}
	elapsed := time.Since(begin)
	cancel()
	want := n + 2 // status, n deltas, done
	if events != want {
		b.Fatalf("got %d of %d events", events, want)
	}
	growth := float64(peak.Load()-base) / 1024
	record(b, "!flood 100000: every event at an SSE client", "s", elapsed.Seconds(), "<= 0.3 s", elapsed <= 300*time.Millisecond)
	record(b, "!flood 100000: RSS growth", "MiB", growth, "<= 50 MiB", growth <= 50)
}
