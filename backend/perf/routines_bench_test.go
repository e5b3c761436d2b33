package perf

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The routines figures (issue 17): "1,000 armed schedules cost ≈ no CPU
// while idle (one timer); a fire starts ≤ 1 s after it is due." Since
// issue 26 a home keeps at most 100 schedules, so the figures arm 100.

// armedSchedules is how many schedules the routines figures arm: the most
// a home keeps (routines.MaxSchedules, issue 26 §2.5e).
const armedSchedules = 100

// idleWindow is how long idle CPU is measured: one MaxSleep of the
// routines timer (60 s), so each window holds one timer pass of each server
// and the figure is per minute as measured, not extrapolated.
const idleWindow = 60 * time.Second

// postJSON posts body to url and decodes the answer into out, failing the
// benchmark on any status but want.
func postJSON(b *testing.B, url, body string, want int, out any) {
	b.Helper()
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		msg, _ := io.ReadAll(resp.Body)
		b.Fatalf("POST %s: %d %s", url, resp.StatusCode, msg)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			b.Fatal(err)
		}
	}
}

func getJSON(b *testing.B, url string, out any) {
	b.Helper()
	resp, err := client.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		msg, _ := io.ReadAll(resp.Body)
		b.Fatalf("GET %s: %d %s", url, resp.StatusCode, msg)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		b.Fatal(err)
	}
}

// startRoutines starts `clawboo serve` with a temporary HOME too (so no
// user setting or CLI of the machine is read) and creates the one mock
// agent the schedules belong to; it returns the server and the agent's id.
func startRoutines(b *testing.B) (*proc, string) {
	b.Helper()
	p := start(b, binary(b), "HOME="+b.TempDir())
	firstOK(b, p.url+"/api/runtimes", time.Now())
	var out struct{ Agent struct{ ID string } }
	postJSON(b, p.url+"/api/agents", `{"name":"Bench","runtime":"clawboo-mock"}`, 201, &out)
	return p, out.Agent.ID
}

// benchZones are the timezones the armed schedules are spread over.
var benchZones = []string{"UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Asia/Kolkata", "Australia/Sydney", "America/Los_Angeles", "Africa/Cairo"}

// armSchedules creates n schedules none of which is due within the next
// hour, 16 requests at a time: three in four daily cron specs two to
// twenty-one hours ahead in one of benchZones, one in four once@ an hour
// or two ahead. Each answer's nextRunAt is checked to be that far out.
func armSchedules(b *testing.B, p *proc, agent string, n int) {
	b.Helper()
	notBefore := time.Now().Add(time.Hour).UnixMilli()
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				zone := benchZones[i%len(benchZones)]
				loc, err := time.LoadLocation(zone)
				if err != nil {
					failed.Store(err.Error())
					return
				}
				now := time.Now().In(loc)
				spec := fmt.Sprintf("%d %d * * *", i%60, (now.Hour()+2+i%20)%24)
				if i%4 == 3 {
					spec = "once@" + now.Add(time.Hour+time.Duration(i)*time.Second*3).Truncate(time.Second).Format(time.RFC3339)
				}
				body := fmt.Sprintf(`{"agentId":%q,"spec":%q,"timezone":%q,"template":{"title":"bench routine %04d","kind":"research"}}`, agent, spec, zone, i)
				resp, err := client.Post(p.url+"/api/schedules", "application/json", strings.NewReader(body))
				if err != nil {
					failed.Store(err.Error())
					return
				}
				var out struct{ Schedule struct{ NextRunAt *int64 } }
				err = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				switch {
				case err != nil || resp.StatusCode != 201:
					failed.Store(fmt.Sprintf("create %q: %d %v", spec, resp.StatusCode, err))
					return
				case out.Schedule.NextRunAt == nil || *out.Schedule.NextRunAt < notBefore:
					failed.Store(fmt.Sprintf("%q in %s is not armed an hour ahead", spec, zone))
					return
				}
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f != nil {
		b.Fatal(f)
	}
}

// cpuNanos is the CPU time a process's threads have used, in ns: the sum
// of the first field of /proc/<pid>/task/*/schedstat, which counts
// nanoseconds where utime+stime in /proc/<pid>/stat counts 10 ms ticks
// (too coarse for a figure of a few ms a minute). Without schedstat
// (a kernel without CONFIG_SCHED_INFO) it falls back to the ticks.
func cpuNanos(b *testing.B, pid int) int64 {
	b.Helper()
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var sum int64
	for _, t := range tasks {
		raw, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that ended
		}
		f := strings.Fields(string(raw))
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		sum += n
	}
	if sum > 0 {
		return sum
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the command (which may hold spaces) start at state;
	// utime and stime are the 14th and 15th fields of the line.
	rest := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	ut, _ := strconv.ParseInt(rest[11], 10, 64)
	st, _ := strconv.ParseInt(rest[12], 10, 64)
	return (ut + st) * int64(10*time.Millisecond) // USER_HZ is 100 on Linux
}

// BenchmarkRoutinesIdleCPU measures the CPU `clawboo serve` uses while
// idle with 100 armed schedules (none due for an hour), beside the floor:
// an identical server (its own home, one mock agent, the same timer with
// nothing armed) measured over the same window, so a noisy neighbour hits
// both alike. Both settle 15 s first (past the 10 s FreeOSMemory and the
// garbage of the creates), then each one's CPU is read over 60 s.
//
// Target: at most the floor plus the larger of 20 % and 5 ms CPU a minute
// (0.008 % of a core): the armed schedules must cost one indexed query a
// pass, not work per schedule, and 5 ms absorbs the noise of a floor of a
// few ms. Being within that margin is what "≈ no CPU" is taken to mean.
func BenchmarkRoutinesIdleCPU(b *testing.B) {
	floor, _ := startRoutines(b)
	p, agent := startRoutines(b)
	armSchedules(b, p, agent, armedSchedules)
	var list struct{ Schedules []struct{ NextRunAt *int64 } }
	getJSON(b, p.url+"/api/schedules", &list)
	armed := 0
	for _, s := range list.Schedules {
		if s.NextRunAt != nil {
			armed++
		}
	}
	if armed != armedSchedules {
		b.Fatalf("%d of %d schedules armed", armed, armedSchedules)
	}
	time.Sleep(15 * time.Second)
	pid, fpid := p.cmd.Process.Pid, floor.cmd.Process.Pid
	c0, f0, t0 := cpuNanos(b, pid), cpuNanos(b, fpid), time.Now()
	time.Sleep(idleWindow)
	c1, f1, el := cpuNanos(b, pid), cpuNanos(b, fpid), time.Since(t0)
	perMin := func(ns int64) float64 { return float64(ns) / 1e6 * float64(time.Minute) / float64(el) }
	v, fl := perMin(c1-c0), perMin(f1-f0)
	if fl == 0 {
		fl = 0.001 // a floor below the clock's resolution: keep the ratio printable
	}
	ok := v <= fl+max(0.2*fl, 5)
	recordVs(b, "idle CPU, 100 armed schedules (floor: none armed)", "ms/min", v, fl, "<= floor + max(20%, 5 ms)", ok)
}

// fireLag is how late one fire started: the ledger's startedAt and its
// run's startedAt, each less its dueAt.
type fireLag struct{ ledger, run time.Duration }

// BenchmarkRoutinesFireLatency times how late a routine fire starts with
// 80 other schedules armed (100 in all, the most a home keeps): 20
// schedules once@ 3, 4, 5 and 6 s ahead
// (five due in each second, as routines set for the same minute are),
// then each fire's lateness read back from the API: the ledger's
// startedAt − dueAt (the timer's pass) and its run's startedAt − dueAt
// (the task made, the mock run started: what a person sees start).
//
// The floor, measured on the same server just before: a plain mock run
// started through the API (POST /api/runtimes/clawboo-mock/run, wait
// false) as a round trip, the least a fire's run could take to start.
// Target: the latest run starts ≤ 1 s after its due time.
func BenchmarkRoutinesFireLatency(b *testing.B) {
	const n = 20
	p, agent := startRoutines(b)
	armSchedules(b, p, agent, armedSchedules-n)

	var starts []time.Duration
	for i := range 60 {
		t0 := time.Now()
		var out struct{ RunID string }
		postJSON(b, p.url+"/api/runtimes/clawboo-mock/run", `{"message":"!ok done","wait":false}`, 202, &out)
		if i >= 10 { // warm-up excluded
			starts = append(starts, time.Since(t0))
		}
		if out.RunID == "" {
			b.Fatal("mock run: no runId")
		}
	}
	floorMed := median(starts)
	floorMax := starts[len(starts)-1] // median sorted them

	base := time.Now().Truncate(time.Second)
	ids := make([]string, n)
	for i := range n {
		due := base.Add(time.Duration(3+i%4) * time.Second).UTC().Format(time.RFC3339)
		body := fmt.Sprintf(`{"agentId":%q,"spec":"once@%s","template":{"title":"!ok done","kind":"research"}}`, agent, due)
		var out struct{ Schedule struct{ ID string } }
		postJSON(b, p.url+"/api/schedules", body, 201, &out)
		ids[i] = out.Schedule.ID
	}
	if time.Since(base) > 2500*time.Millisecond {
		b.Fatal("creating the schedules took past the first due time")
	}
	time.Sleep(time.Until(base.Add(7 * time.Second)))

	type fire struct {
		DueAt     int64
		StartedAt *int64
		Outcome   string
		RunID     *string
	}
	lags := make([]fireLag, 0, n)
	deadline := base.Add(30 * time.Second)
	for _, id := range ids {
		for {
			var out struct{ Fires []fire }
			getJSON(b, p.url+"/api/schedules/"+id+"/fires", &out)
			if len(out.Fires) > 0 && out.Fires[0].RunID != nil && out.Fires[0].StartedAt != nil {
				f := out.Fires[0]
				var run struct {
					StartedAt *int64
					CreatedAt int64
				}
				getJSON(b, p.url+"/api/runs/"+*f.RunID, &run)
				started := run.CreatedAt
				if run.StartedAt != nil {
					started = *run.StartedAt
				}
				lags = append(lags, fireLag{
					ledger: time.Duration(*f.StartedAt-f.DueAt) * time.Millisecond,
					run:    time.Duration(started-f.DueAt) * time.Millisecond,
				})
				break
			}
			if len(out.Fires) > 0 && out.Fires[0].Outcome != "running" && out.Fires[0].RunID == nil {
				b.Fatalf("schedule %s fired without a run: %+v", id, out.Fires[0])
			}
			if time.Now().After(deadline) {
				b.Fatalf("schedule %s: no fire with a run 30 s after it was due", id)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	ledger, run := make([]time.Duration, n), make([]time.Duration, n)
	for i, l := range lags {
		ledger[i], run[i] = l.ledger, l.run
	}
	sort.Slice(ledger, func(i, j int) bool { return ledger[i] < ledger[j] })
	runMed := median(run) // sorts run
	runMax := run[n-1]
	// The target figure last: `go test` keeps the last metric of a unit.
	record(b, "routine fire ledger startedAt after due, max", "ms", ms(ledger[n-1]), "(reported)", true)
	recordVs(b, "routine run start after due, p50 (floor: mock run)", "ms", ms(runMed), ms(floorMed), "(reported)", true)
	recordVs(b, "routine run start after due, max (floor: mock run)", "ms", ms(runMax), ms(floorMax), "<= 1000 ms", runMax <= time.Second)
}
