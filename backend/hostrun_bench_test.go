package backend

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/internal/testkit"
)

// The figures of issue 29, each beside its floor, measured in one run
// with a real sshd on loopback (root; `make bench` runs them as root):
//
//	go test -run '^$' -bench 'Host' -benchtime 5x ./backend/

// hostOverheadFloor is the most a run on a host may cost beyond the same
// run here, per run, on loopback.
const hostOverheadFloor = 30.0

// runTimed runs a new task of agent with script, waits for it, and says
// how long that took.
func (r *hostRig) runTimed(b *testing.B, agent, script string) time.Duration {
	id := r.taskFor(b, agent, "Bench", script)
	t0 := time.Now()
	res := r.run(b, id, true)
	d := time.Since(t0)
	if res["status"] != "succeeded" {
		b.Fatalf("the run: %v", res)
	}
	return d
}

// BenchmarkHostRunBesideLocal: a mock task that writes a file, run on a
// host (branch pushed, run there, events streamed, branch fetched back)
// beside the same task run here.
func BenchmarkHostRunBesideLocal(b *testing.B) {
	r := newHostRig(b)
	local := placedAgent(b, r.b, "Loco", "")
	script := "!write F.md from the bench\n!ok done"
	r.runTimed(b, r.agent, script) // the host's clone is made on the first run
	r.runTimed(b, local, script)
	var there, here time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		there += r.runTimed(b, r.agent, script)
		here += r.runTimed(b, local, script)
	}
	n := float64(b.N)
	b.ReportMetric(ms(there)/n, "host-ms/run")
	b.ReportMetric(ms(here)/n, "local-ms/run")
	b.ReportMetric((ms(there)-ms(here))/n, "overhead-ms/run")
	b.ReportMetric(hostOverheadFloor, "floor-overhead-ms/run")
}

// BenchmarkHostFloodBesideLocal: events per second from one flood on a
// host, streamed here and recorded, beside the same flood run here.
func BenchmarkHostFloodBesideLocal(b *testing.B) {
	r := newHostRig(b)
	local := placedAgent(b, r.b, "Loco", "")
	const events = 20000
	script := fmt.Sprintf("!flood %d\n!ok done", events)
	r.runTimed(b, r.agent, "!ok warm")
	var there, here time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		there += r.runTimed(b, r.agent, script)
		here += r.runTimed(b, local, script)
	}
	n := float64(b.N) * events
	b.ReportMetric(n/there.Seconds(), "host-events/s")
	b.ReportMetric(n/here.Seconds(), "local-events/s")
}

// BenchmarkThreeHostsSixtyTasks: three hosts (three Unix users, three
// sshd), each taking 4 runs at once, take 60 queued mock tasks; the
// throughput, and this computer's CPU (its own and its ssh and git
// children's) per remote run.
func BenchmarkThreeHostsSixtyTasks(b *testing.B) {
	srvs := []*testkit.SSHD{testkit.StartSSHD(b), testkit.StartSSHD(b), testkit.StartSSHD(b)}
	var cfg strings.Builder
	for _, s := range srvs {
		text, err := os.ReadFile(s.Config)
		if err != nil {
			b.Fatal(err)
		}
		cfg.Write(text)
	}
	cfgPath := filepath.Join(b.TempDir(), "ssh_config")
	if err := os.WriteFile(cfgPath, []byte(cfg.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	d := hostDesktop(b, cfgPath)
	r := &hostRig{b: d, repo: e2eRepo(b)}
	var agents []string
	for i, s := range srvs {
		id := addHost(b, d, s.Alias, fmt.Sprintf("Box %d", i+1))
		if code := e2eDo(b, authed(d), "PATCH", "/api/hosts/"+id, map[string]any{"concurrency": 4}, nil); code != http.StatusOK {
			b.Fatalf("concurrency: %d", code)
		}
		agents = append(agents, placedAgent(b, d, fmt.Sprintf("Worker %d", i+1), id))
	}
	for _, a := range agents {
		r.runTimed(b, a, "!ok warm") // each host's clone is made once
	}
	const tasks = 60
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ids := make([]string, tasks)
		for j := range ids {
			ids[j] = r.taskFor(b, agents[j%len(agents)], "Queued", "!silent 300\n!write Q.md queued\n!ok done")
		}
		cpu0 := cpuNow()
		t0 := time.Now()
		for _, id := range ids {
			// A host already running its 4 defers the task (it starts when a run there ends).
			code := e2eDo(b, authed(d), "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"taskId": id, "wait": false}, nil)
			if code != http.StatusAccepted && code != http.StatusTooManyRequests && code != http.StatusServiceUnavailable && code != http.StatusConflict {
				b.Fatalf("start: %d", code)
			}
		}
		testkit.EventuallySays(b, 10*time.Minute, "the 60 tasks to be done there and back", func() (bool, string) {
			done, left := 0, ""
			for _, id := range ids {
				t, err := d.Board.Get(b.Context(), id)
				if err == nil && t.Status == "in_review" {
					done++
				} else if left == "" {
					left = whyNotDone(b, d, id)
				}
			}
			return done == tasks, fmt.Sprintf("%d of %d (%s)", done, tasks, left)
		})
		wall := time.Since(t0)
		cpu := cpuNow() - cpu0
		b.ReportMetric(tasks/wall.Seconds(), "tasks/s")
		b.ReportMetric(ms(cpu)/tasks, "desktop-cpu-ms/run")
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// cpuNow is this process's CPU time and its waited-for children's (ssh,
// git).
func cpuNow() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

// BenchmarkHostChatBesideLocal: a mock run with no worktree (an agent's
// chat turn) on a host beside the same run here: what the link itself
// costs, against the floor.
func BenchmarkHostChatBesideLocal(b *testing.B) {
	r := newHostRig(b)
	local := placedAgent(b, r.b, "Loco", "")
	chat := func(agent string) time.Duration {
		var res struct{ Status string }
		t0 := time.Now()
		code := e2eDo(b, authed(r.b), "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"agentId": agent, "message": "!ok hello\n!ok there"}, &res)
		d := time.Since(t0)
		if code != http.StatusOK || res.Status != "succeeded" {
			b.Fatalf("the run: %d %+v", code, res)
		}
		return d
	}
	chat(r.agent)
	chat(local)
	var there, here time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		there += chat(r.agent)
		here += chat(local)
	}
	n := float64(b.N)
	b.ReportMetric(ms(there)/n, "host-ms/run")
	b.ReportMetric(ms(here)/n, "local-ms/run")
	b.ReportMetric((ms(there)-ms(here))/n, "overhead-ms/run")
	b.ReportMetric(hostOverheadFloor, "floor-overhead-ms/run")
}

// whyNotDone says where a task is: its status, its last run's end, its
// deferral.
func whyNotDone(b *testing.B, d *Backend, id string) string {
	t, err := d.Board.Get(b.Context(), id)
	if err != nil {
		return err.Error()
	}
	out := "task " + string(t.Status)
	if runs, err := d.Store.TaskRuns(b.Context(), id, 1); err == nil && len(runs) > 0 {
		out += "; last run " + runs[0].Status + " " + runs[0].Error
	}
	if df, ok := d.Quota.DeferredTask(b.Context(), id); ok {
		out += fmt.Sprintf("; deferred %s until %s", df.Reason, time.UnixMilli(df.Until).Format(time.TimeOnly))
	}
	return out
}
