//go:build desktopbench

// The desktop benchmark times the real desktop binary from exec to its
// window mapped with the page loaded, and reads the memory of the app and
// its WebKit processes once idle, each beside WebKitGTK's own MiniBrowser
// showing the same page, measured in the same run (`make bench`):
//
//	NO_AT_BRIDGE=1 xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- \
//	    go test -tags desktopbench -run '^$' -bench Desktop -benchtime 1x ./app/
//
// CLAWBOO_BENCH_BIN names the desktop binary (tags desktop,production,
// webkit2_41); without it one is built, which needs frontend/dist.
// CLAWBOO_BENCH_LAUNCHES sets the launches of each side (default 7).
//
// How each side is timed and what "ready" means:
//   - the app: from exec until it has printed app.ReadyMarker (WebKit's
//     load-finished for the page, after the window is shown) and a visible
//     window of its pid exists (xdotool, checked once the marker is seen, so
//     no polling competes with the launch for the two cores);
//   - MiniBrowser: it is pointed at `clawboo serve` of the same binary (the
//     same page, its API and assets, served over loopback) through a
//     pass-through proxy in this test that adds one script to
//     index.html (a same-origin file, as the page's CSP wants): on the
//     window's load event it requests /__bench/loaded.
//     The load event is what WebKit's load-finished follows, so both sides
//     stop at the same point of the same page; the proxy records the
//     request's arrival. The visible-window check is the same as the app's.
//
// Each launch has a throwaway HOME (and CLAWBOO_HOME), so neither side
// starts with a disk cache. Launches alternate which side goes first. The
// idle memory is the sum of PSS (/proc/PID/smaps_rollup) over the process
// and all its descendants (WebKitWebProcess, WebKitNetworkProcess and
// WebKitGPUProcess when there is one), read idleAfter the ready point of
// each launch; medians are reported.
package app_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	benchReadyMarker = "clawboo: page ready" // app.ReadyMarker, which needs the desktop tag
	miniBrowser      = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
	benchLaunches    = 7
	idleAfter        = 5 * time.Second
	loadedPath       = "/__bench/loaded"
	beaconPath       = "/__bench/beacon.js" // a file, not inline: the page's CSP allows script-src 'self' only
	beaconJS         = `addEventListener("load",()=>fetch("` + loadedPath + `"))`
	loadBeacon       = `<script async src="` + beaconPath + `"></script>`
)

func BenchmarkDesktop(b *testing.B) {
	if os.Getenv("DISPLAY") == "" {
		b.Fatal(`no DISPLAY: run under xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- ...`)
	}
	for _, tool := range []string{"xdotool", miniBrowser} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Fatalf("%s is needed (apt-get install xdotool libwebkit2gtk-4.1-0): %v", tool, err)
		}
	}
	bin := benchBinary(b)
	pg := servePage(b, bin)

	n := benchLaunches
	if s := os.Getenv("CLAWBOO_BENCH_LAUNCHES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	var app, mb []launch
	// One unrecorded launch of each first: the first-ever start reads the
	// libraries from disk.
	launchApp(b, bin)
	launchMiniBrowser(b, pg)
	for i := range n {
		if i%2 == 0 {
			app = append(app, launchApp(b, bin))
			mb = append(mb, launchMiniBrowser(b, pg))
		} else {
			mb = append(mb, launchMiniBrowser(b, pg))
			app = append(app, launchApp(b, bin))
		}
	}
	ta, tm := medianOf(app, func(l launch) float64 { return l.ready }), medianOf(mb, func(l launch) float64 { return l.ready })
	pa, pm := medianOf(app, func(l launch) float64 { return l.pss }), medianOf(mb, func(l launch) float64 { return l.pss })
	for i := range app {
		b.Logf("launch %d: app %4.0f ms %6.1f MiB %v | MiniBrowser %4.0f ms %6.1f MiB %v",
			i, app[i].ready, app[i].pss, app[i].procs, mb[i].ready, mb[i].pss, mb[i].procs)
	}
	b.ReportMetric(ta, "ms-launch")
	b.ReportMetric(tm, "ms-launch-MiniBrowser")
	b.ReportMetric(pa, "MiB-PSS")
	b.ReportMetric(pm, "MiB-PSS-MiniBrowser")

	fmt.Println()
	fmt.Printf("clawboo desktop vs WebKitGTK MiniBrowser (same page, same run, median of %d)\n", n)
	fmt.Printf("%-44s %12s %14s %7s  %s\n", "figure", "value", "MiniBrowser", "ratio", "target")
	row := func(name, unit string, v, f, target float64) {
		mark := "ok"
		if v/f > target {
			mark = "MISSED"
		}
		fmt.Printf("%-44s %8.1f %-3s %10.1f %-3s %7.2f  <= %.1fx %s\n", name, v, unit, f, unit, v/f, target, mark)
	}
	row("launch → window+page, median", "ms", ta, tm, 0.9)
	row(fmt.Sprintf("idle PSS (app + WebKit processes), %v", idleAfter), "MiB", pa, pm, 0.8)
	// PSS splits a shared library's pages among every process on the
	// machine that maps them, so another WebKit program running meanwhile
	// lowers both sides for a while; launches next to each other share
	// those conditions, and the median of their ratios is the steadier one.
	fmt.Printf("(median of the ratios of launches side by side: launch %.2f, idle PSS %.2f)\n",
		pairedRatio(app, mb, func(l launch) float64 { return l.ready }),
		pairedRatio(app, mb, func(l launch) float64 { return l.pss }))
}

func pairedRatio(a, f []launch, v func(launch) float64) float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = v(a[i]) / v(f[i])
	}
	sort.Float64s(r)
	return r[len(r)/2]
}

// launch is one start: milliseconds from exec to ready, and MiB of PSS
// summed over the process tree idleAfter that.
type launch struct {
	ready float64
	pss   float64
	procs string // the processes summed, name:MiB
}

func medianOf(ls []launch, f func(launch) float64) float64 {
	v := make([]float64, len(ls))
	for i, l := range ls {
		v[i] = f(l)
	}
	sort.Float64s(v)
	return v[len(v)/2]
}

func benchBinary(b *testing.B) string {
	if bin := os.Getenv("CLAWBOO_BENCH_BIN"); bin != "" {
		return bin
	}
	if _, err := os.Stat("../frontend/dist/index.html"); err != nil {
		b.Fatalf("the UI is not built (%v): cd frontend && npm ci && npm run build", err)
	}
	bin := filepath.Join(b.TempDir(), "clawboo")
	cmd := exec.Command("go", "build", "-tags", "desktop,production,webkit2_41", "-ldflags", "-s -w", "-o", bin, ".")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build the desktop binary: %v\n%s", err, out)
	}
	return bin
}

// benchEnv is this process's environment with a throwaway home for each
// side and no Clawboo settings a developer may have exported.
func benchEnv(home string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CLAWBOO_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") {
			env = append(env, kv)
		}
	}
	return append(env, append([]string{"HOME=" + home, "NO_AT_BRIDGE=1"}, extra...)...)
}

// page is `clawboo serve` behind the load-beacon proxy; loaded receives the
// time each beacon request arrives.
type page struct {
	url    string
	loaded chan time.Time
}

func servePage(b *testing.B, bin string) *page {
	home := b.TempDir()
	cmd := exec.Command(bin, "serve", "--home", filepath.Join(home, "clawboo"))
	cmd.Env = benchEnv(home, "CLAWBOO_VAULT=file")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var port string
	deadline := time.Now().Add(30 * time.Second)
	for port == "" {
		if time.Now().After(deadline) {
			b.Fatal("clawboo serve wrote no api-port.txt")
		}
		p, _ := os.ReadFile(filepath.Join(home, "clawboo", "api-port.txt"))
		port = strings.TrimSpace(string(p))
		time.Sleep(20 * time.Millisecond)
	}
	target, _ := url.Parse("http://127.0.0.1:" + port)
	pg := &page{loaded: make(chan time.Time, 16)}
	// The API answers only holders of the home's token: the proxy is the
	// page's logged-in session (the serve made the token before listening).
	tok, err := os.ReadFile(filepath.Join(home, "clawboo", "api-token"))
	if err != nil {
		b.Fatal(err)
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
			r.Out.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
		},
		FlushInterval: -1, // SSE passes straight through
	}
	rp.ModifyResponse = func(r *http.Response) error {
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
			return nil
		}
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return err
		}
		body = bytes.Replace(body, []byte("</head>"), []byte(loadBeacon+"</head>"), 1)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == beaconPath {
			w.Header().Set("Content-Type", "text/javascript")
			_, _ = io.WriteString(w, beaconJS)
			return
		}
		if r.URL.Path == loadedPath {
			pg.loaded <- time.Now()
			w.WriteHeader(http.StatusNoContent)
			return
		}
		r.Header.Del("Accept-Encoding") // the beacon is added to plain HTML
		rp.ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })
	pg.url = "http://" + ln.Addr().String() + "/"
	return pg
}

func launchApp(b *testing.B, bin string) launch {
	home := b.TempDir()
	pr, pw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = benchEnv(home, "CLAWBOO_HOME="+filepath.Join(home, "clawboo"))
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ready := make(chan time.Time, 1)
	var out strings.Builder
	var outMu sync.Mutex
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), benchReadyMarker) {
				select {
				case ready <- time.Now():
				default:
				}
			}
			outMu.Lock()
			out.WriteString(sc.Text() + "\n")
			outMu.Unlock()
		}
	}()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	pw.Close()
	defer pr.Close()
	var at time.Time
	select {
	case at = <-ready:
	case <-time.After(30 * time.Second):
		stopTree(cmd)
		outMu.Lock()
		defer outMu.Unlock()
		b.Fatalf("the app printed no %q within 30 s:\n%s", benchReadyMarker, out.String())
	}
	return finish(b, cmd, start, at)
}

func launchMiniBrowser(b *testing.B, pg *page) launch {
	for len(pg.loaded) > 0 { // a late beacon from the previous launch
		<-pg.loaded
	}
	home := b.TempDir()
	cmd := exec.Command(miniBrowser, pg.url)
	cmd.Env = benchEnv(home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	var at time.Time
	select {
	case at = <-pg.loaded:
	case <-time.After(30 * time.Second):
		stopTree(cmd)
		b.Fatal("MiniBrowser's page never fired its load event within 30 s")
	}
	return finish(b, cmd, start, at)
}

// finish waits for a visible window of cmd's process (normally there by the
// ready point), reads the PSS of the tree idleAfter that, and stops it.
func finish(b *testing.B, cmd *exec.Cmd, start, at time.Time) launch {
	defer stopTree(cmd)
	pid := strconv.Itoa(cmd.Process.Pid)
	for {
		out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--pid", pid).Output()
		if len(bytes.TrimSpace(out)) > 0 {
			break
		}
		if time.Since(start) > 30*time.Second {
			b.Fatalf("no visible window for pid %s", pid)
		}
		time.Sleep(5 * time.Millisecond)
		at = time.Now()
	}
	l := launch{ready: float64(at.Sub(start)) / float64(time.Millisecond)}
	time.Sleep(time.Until(at.Add(idleAfter)))
	var parts []string
	for _, p := range append([]int{cmd.Process.Pid}, treeBelow(cmd.Process.Pid)...) {
		kib := pssKiB(p)
		l.pss += float64(kib) / 1024
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p))
		parts = append(parts, fmt.Sprintf("%s:%.0f", strings.TrimSpace(string(comm)), float64(kib)/1024))
	}
	l.procs = strings.Join(parts, " ")
	return l
}

// stopTree kills the process group and waits until no process of the tree
// is left, so the next launch starts on a quiet machine.
func stopTree(cmd *exec.Cmd) {
	below := treeBelow(cmd.Process.Pid)
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	for _, p := range below {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range below {
		for time.Now().Before(deadline) {
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", p)); err != nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// treeBelow lists the pids of every live process below pid, from /proc.
func treeBelow(pid int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", n))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(st, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(st[i+1:]))
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], n)
	}
	var out []int
	for q := []int{pid}; len(q) > 0; q = q[1:] {
		out = append(out, children[q[0]]...)
		q = append(q, children[q[0]]...)
	}
	return out
}

// pssKiB reads a process's proportional set size from smaps_rollup.
func pssKiB(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Pss:"); ok {
			n, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return n
		}
	}
	return 0
}
