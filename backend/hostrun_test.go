package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/hosts"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

// hostVersion is the version the host tests' desktop and host builds say.
const hostVersion = "hostrun-1"

var (
	hostBuildOnce sync.Once
	hostBuildDir  string
	hostBuildErr  error
)

// hostBuild builds this program once for the host tests, as `make
// host-builds` does, with its sum beside it.
func hostBuild(t testing.TB) string {
	t.Helper()
	hostBuildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "clawboo-host-builds-")
		if err != nil {
			hostBuildErr = err
			return
		}
		bin := filepath.Join(dir, "clawboo-linux-"+runtime.GOARCH)
		if hostBuildErr = testkit.GoBuild("github.com/clawboo/desktop", bin, "-ldflags", "-X main.version="+hostVersion); hostBuildErr != nil {
			return
		}
		out, err := exec.Command("sha256sum", bin).Output()
		if err != nil {
			hostBuildErr = err
			return
		}
		sum, _, _ := strings.Cut(string(out), " ")
		hostBuildErr = os.WriteFile(bin+".sha256", []byte(sum+"  clawboo-linux-"+runtime.GOARCH+"\n"), 0o644)
		hostBuildDir = dir
	})
	if hostBuildErr != nil {
		t.Fatal(hostBuildErr)
	}
	return hostBuildDir
}

// hostRig is a desktop with the mock (in worktrees) and a ready host: a
// real sshd whose only login is a second Unix user.
type hostRig struct {
	b      *Backend
	srv    *testkit.SSHD
	hostID string
	agent  string
	repo   string
}

func newHostRig(t testing.TB) *hostRig {
	t.Helper()
	srv := testkit.StartSSHD(t)
	b := hostDesktop(t, srv.Config)
	r := &hostRig{b: b, srv: srv, repo: e2eRepo(t)}
	r.hostID = addHost(t, b, srv.Alias, "Build box")
	r.agent = placedAgent(t, b, "Remo", r.hostID)
	return r
}

// hostDesktop is a desktop of this version, with the mock (in worktrees)
// and the ssh configuration sshConfig.
func hostDesktop(t testing.TB, sshConfig string) *Backend {
	t.Helper()
	builds := hostBuild(t)
	home := t.TempDir()
	env := map[string]string{
		"HOME": home, config.EnvVault: "file", "PATH": os.Getenv("PATH"), EnvSSHConfig: sshConfig,
		config.EnvEnableMock: "1", config.EnvMockWorktrees: "1",
	}
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(home, getenv)
	if err != nil {
		t.Fatal(err)
	}
	environ := func() []string { return []string{"HOME=" + home, "PATH=" + env["PATH"]} }
	b, err := New(context.Background(), Options{Config: cfg, Getenv: getenv, Environ: environ, Version: hostVersion, HostBuilds: builds, HostRecheck: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	return b
}

// addHost adds a host by its ssh alias, accepts the key it shows, and
// waits for it to be ready (this Clawboo installed there).
func addHost(t testing.TB, b *Backend, alias, name string) string {
	t.Helper()
	var made struct{ Host hosts.Host }
	if code := e2eDo(t, authed(b), "POST", "/api/hosts", map[string]any{"destination": alias, "name": name}, &made); code != http.StatusCreated {
		t.Fatalf("add host: %d", code)
	}
	id := made.Host.ID
	h := waitHostState(t, b, id, hosts.UnknownHostKey)
	if code := e2eDo(t, authed(b), "POST", "/api/hosts/"+id+"/trust", map[string]any{"fingerprint": h.Fingerprint}, nil); code != http.StatusOK {
		t.Fatalf("trust: %d", code)
	}
	waitHostState(t, b, id, hosts.Ready)
	return id
}

// placedAgent makes a mock agent and places it on hostID ("": here).
func placedAgent(t testing.TB, b *Backend, name, hostID string) string {
	t.Helper()
	var ag struct {
		Agent struct{ ID string } `json:"agent"`
	}
	if code := e2eDo(t, authed(b), "POST", "/api/agents", map[string]any{"name": name, "runtime": "clawboo-mock"}, &ag); code != http.StatusCreated {
		t.Fatalf("agent: %d", code)
	}
	if hostID == "" {
		return ag.Agent.ID
	}
	var placed struct {
		Agent struct{ HostID *string } `json:"agent"`
	}
	if code := e2eDo(t, authed(b), "PATCH", "/api/agents/"+ag.Agent.ID, map[string]any{"hostId": hostID}, &placed); code != http.StatusOK ||
		placed.Agent.HostID == nil || *placed.Agent.HostID != hostID {
		t.Fatalf("place the agent: %d %+v", code, placed)
	}
	return ag.Agent.ID
}

func waitHostState(t testing.TB, b *Backend, id string, want hosts.State) hosts.Host {
	t.Helper()
	var h hosts.Host
	testkit.EventuallySays(t, 90*time.Second, "the host "+string(want), func() (bool, string) {
		var err error
		h, err = b.Hosts.Get(context.Background(), id)
		return err == nil && h.State == want, string(h.State) + ": " + h.Reason
	})
	return h
}

func (r *hostRig) waitHost(t testing.TB, want hosts.State) hosts.Host {
	t.Helper()
	return waitHostState(t, r.b, r.hostID, want)
}

// task makes a code task of the placed agent whose description is the
// mock's script.
func (r *hostRig) task(t testing.TB, title, script string) string {
	t.Helper()
	return r.taskFor(t, r.agent, title, script)
}

// taskFor makes a code task of agent whose description is the mock's
// script.
func (r *hostRig) taskFor(t testing.TB, agent, title, script string) string {
	t.Helper()
	var out struct {
		Task struct{ ID string } `json:"task"`
	}
	if code := e2eDo(t, authed(r.b), "POST", "/api/board", map[string]any{
		"title": title, "description": script, "kind": "code", "repoPath": r.repo, "assigneeAgentId": agent,
	}, &out); code != http.StatusCreated {
		t.Fatalf("task: %d", code)
	}
	return out.Task.ID
}

// run runs a task and answers its result.
func (r *hostRig) run(t testing.TB, taskID string, wait bool) map[string]any {
	t.Helper()
	var res map[string]any
	code := e2eDo(t, authed(r.b), "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"taskId": taskID, "wait": wait}, &res)
	if code/100 != 2 {
		t.Fatalf("run: %d %v", code, res)
	}
	return res
}

// events are a run's recorded events as kind and text.
func runEventsOf(t *testing.T, st *store.Store, runID string) []string {
	t.Helper()
	rows, err := st.ListEvents(context.Background(), runID, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(rows))
	for _, row := range rows {
		out = append(out, row.Kind+" "+string(row.Data[strings.Index(string(row.Data), `"kind"`):]))
	}
	return out
}

// TestATaskRunsOnAHostAndComesBackByGit: an agent placed on a host runs
// its task there — the branch pushed to the host's clone by git over the
// person's ssh, the worktree made there by the host's own Clawboo — and
// the work comes back by git fetch, so the diff and the merge into the
// local repository work as for a local task.
func TestATaskRunsOnAHostAndComesBackByGit(t *testing.T) {
	r := newHostRig(t)
	id := r.task(t, "Write the note", "!write NOTE.md written on the host\n!ok wrote the note")
	res := r.run(t, id, true)
	if res["status"] != "succeeded" {
		t.Fatalf("the run: %v", res)
	}
	runID := res["runId"].(string)
	run, err := r.b.Store.GetRun(context.Background(), runID)
	if err != nil || run.HostID == nil || *run.HostID != r.hostID {
		t.Fatalf("the run's host: %+v %v", run.HostID, err)
	}
	var got struct {
		Task struct {
			Status string
			HostID *string `json:"hostId"`
		} `json:"task"`
	}
	e2eDo(t, authed(r.b), "GET", "/api/board/"+id, nil, &got)
	if got.Task.HostID == nil || *got.Task.HostID != r.hostID || got.Task.Status != "in_review" {
		t.Fatalf("the task: %+v", got.Task)
	}
	// Its worktree there goes once the work came back (the host's own task
	// is cancelled); only the clone's own checkout is left.
	testkit.EventuallySays(t, 30*time.Second, "the host's worktree removed", func() (bool, string) {
		out, err := exec.Command("su", "-s", "/bin/sh", "-c", `cd ~/.clawboo-host/repos/* && git worktree list --porcelain | grep -c '^worktree '`, r.srv.User).CombinedOutput()
		return err == nil && strings.TrimSpace(string(out)) == "1", fmt.Sprintf("%q %v", out, err)
	})
	var diff struct {
		Paths []string `json:"paths"`
	}
	if code := e2eDo(t, authed(r.b), "GET", "/api/board/"+id+"/diff", nil, &diff); code != http.StatusOK || len(diff.Paths) != 1 || diff.Paths[0] != "NOTE.md" {
		t.Fatalf("the diff here: %d %+v", code, diff)
	}
	if code := e2eDo(t, authed(r.b), "POST", "/api/board/"+id+"/merge", map[string]any{}, nil); code != http.StatusOK {
		t.Fatalf("merge: %d", code)
	}
	note, err := exec.Command("git", "-C", r.repo, "show", "main:NOTE.md").Output()
	if err != nil || strings.TrimSpace(string(note)) != "written on the host" {
		t.Fatalf("the local repository's main: %q %v", note, err)
	}
	// The commit of NOTE.md was made on the host: its clone has the object.
	commit, err := exec.Command("git", "-C", r.repo, "log", "-1", "--format=%H", "main", "--", "NOTE.md").Output()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("su", "-s", "/bin/sh", "-c", `cd ~/.clawboo-host/repos/* && git cat-file -t `+strings.TrimSpace(string(commit)), r.srv.User).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "commit" {
		t.Fatalf("the host's clone lacks the commit of NOTE.md: %q %v", out, err)
	}
}

// waitEvent waits until a run has recorded an event whose JSON holds text.
func (r *hostRig) waitEvent(t testing.TB, runID, text string) {
	t.Helper()
	testkit.EventuallySays(t, 60*time.Second, "the run's event "+text, func() (bool, string) {
		rows, err := r.b.Store.ListEvents(context.Background(), runID, 0, 10000)
		for _, row := range rows {
			if strings.Contains(string(row.Data), text) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d events (%v)", len(rows), err)
	})
}

// waitRun waits for a run to end and answers it.
func (r *hostRig) waitRun(t testing.TB, runID string) store.Run {
	t.Helper()
	var run store.Run
	testkit.EventuallySays(t, 120*time.Second, "the run to end", func() (bool, string) {
		var err error
		run, err = r.b.Store.GetRun(context.Background(), runID)
		return err == nil && !run.Live() && !r.b.Supervisor.IsLive(runID), run.Status
	})
	return run
}

// kill sends SIGKILL to the processes whose command line holds what.
func kill(t *testing.T, what string, user string) {
	t.Helper()
	args := []string{"-KILL", "-f", what}
	if user != "" {
		args = append([]string{"-u", user}, args...)
	}
	if out, err := exec.Command("pkill", args...).CombinedOutput(); err != nil {
		t.Fatalf("pkill %v: %v %s", args, err, out)
	}
}

// The script of a run the link drops in the middle of.
const dropScript = "!ok one\n!silent 3000\n!flood 300\n!ok two"

// TestTheLinkDropsAndTheRunGoesOn: the desktop's ssh is killed mid-run;
// the run goes on on the host, the desktop re-attaches, and its events are
// an uninterrupted run's (no gap, no duplicate).
func TestTheLinkDropsAndTheRunGoesOn(t *testing.T) {
	r := newHostRig(t)
	calm := r.run(t, r.task(t, "Calm", dropScript), true)
	if calm["status"] != "succeeded" {
		t.Fatalf("the uninterrupted run: %v", calm)
	}
	res := r.run(t, r.task(t, "Dropped", dropScript), false)
	runID := res["runId"].(string)
	r.waitEvent(t, runID, `"text":"one"`)
	// The shared connection (ssh names its master "ssh: <socket> [mux]"),
	// which carries the forward: every link of this desktop to the host.
	kill(t, "ssh: "+hosts.ControlDir(filepath.Join(r.b.Config.Home, "ssh")), "")
	run := r.waitRun(t, runID)
	if run.Status != store.RunSucceeded {
		t.Fatalf("the run after the drop: %s %q", run.Status, run.Error)
	}
	want, got := runEventsOf(t, r.b.Store, calm["runId"].(string)), runEventsOf(t, r.b.Store, runID)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the events after a drop differ from an uninterrupted run's:\n%d events: %.2000q\nwant %d: %.2000q", len(got), got, len(want), want)
	}
}

// TestTheHostServerDiesAndTheRunIsLost: the host's Clawboo is killed
// mid-run; the run ends failed with "Host lost" in words, the task goes
// back to To do, and what was done stays on the host's branch.
func TestTheHostServerDiesAndTheRunIsLost(t *testing.T) {
	r := newHostRig(t)
	id := r.task(t, "Doomed", "!write HALF.md half done\n!ok half\n!silent 600000\n!ok never")
	res := r.run(t, id, false)
	runID := res["runId"].(string)
	r.waitEvent(t, runID, `"text":"half"`)
	kill(t, "clawboo host --serve", r.srv.User)
	run := r.waitRun(t, runID)
	if run.Status != store.RunFailed || !strings.Contains(run.Error, "Host lost") || !strings.Contains(run.Error, "Build box") {
		t.Fatalf("the run: %s %q", run.Status, run.Error)
	}
	task, err := r.b.Board.Get(context.Background(), id)
	if err != nil || task.Status != "todo" || task.RunID != nil {
		t.Fatalf("the task: %s %v", task.Status, err)
	}
}

// TestWorkWaitsForAnUnreachableHost: a task whose agent's host cannot be
// reached waits in To do with the reason, and starts when the host
// returns.
func TestWorkWaitsForAnUnreachableHost(t *testing.T) {
	r := newHostRig(t)
	// The host goes away with its link; nobody tests it. The run's
	// admission reaches for it, finds it gone and holds the task.
	r.srv.Stop()
	r.b.Hosts.Forget(r.hostID)
	_ = exec.Command("pkill", "-KILL", "-f", "ssh: "+hosts.ControlDir(filepath.Join(r.b.Config.Home, "ssh"))).Run() // the master, if one lives
	id := r.task(t, "Patient", "!write LATER.md after the wait\n!ok done at last")
	var refused struct {
		Error  string `json:"error"`
		Reason string `json:"reason"`
	}
	code := e2eDo(t, authed(r.b), "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"taskId": id, "wait": false}, &refused)
	if code/100 == 2 || !strings.Contains(refused.Error, "Build box is unreachable") {
		t.Fatalf("a run for an unreachable host: %d %+v", code, refused)
	}
	task, _ := r.b.Board.Get(context.Background(), id)
	if task.Status != "todo" {
		t.Fatalf("the task: %s", task.Status)
	}
	r.waitHost(t, hosts.Unreachable)
	// It comes back; nobody tests it: the recheck finds it ready, and the
	// task starts by itself.
	if err := r.srv.Restart(); err != nil {
		t.Fatal(err)
	}
	testkit.EventuallySays(t, 120*time.Second, "the task to run when the host returned", func() (bool, string) {
		task, _ := r.b.Board.Get(context.Background(), id)
		return task.Status == "in_review", string(task.Status)
	})
}

// TestSecretsReachTheHostInMemoryOnly: a task's secret goes with its run
// to the host's server, reaches the run there, and is found nowhere under
// the host user's home, in any process's command line, or in the host
// user's processes' environments after the run.
func TestSecretsReachTheHostInMemoryOnly(t *testing.T) {
	r := newHostRig(t)
	sentinel := "sk-host-sentinel-" + strings.ReplaceAll(t.Name(), "Test", "") + "-7f3a9c"
	if code := e2eDo(t, authed(r.b), "PUT", "/api/secrets/HOST_SENTINEL", map[string]any{"value": sentinel}, nil); code/100 != 2 {
		t.Fatalf("secret: %d", code)
	}
	var out struct {
		Task struct{ ID string } `json:"task"`
	}
	if code := e2eDo(t, authed(r.b), "POST", "/api/board", map[string]any{
		"title": "Use the secret", "description": "!hasenv HOST_SENTINEL\n!write USED.md used\n!ok done",
		"kind": "code", "repoPath": r.repo, "assigneeAgentId": r.agent, "secrets": []string{"HOST_SENTINEL"},
	}, &out); code != http.StatusCreated {
		t.Fatalf("task: %d", code)
	}
	res := r.run(t, out.Task.ID, true)
	if res["status"] != "succeeded" {
		t.Fatalf("the run: %v", res)
	}
	want := fmt.Sprintf("HOST_SENTINEL is set (%d bytes)", len(sentinel))
	r.waitEvent(t, res["runId"].(string), want)
	if out, _ := exec.Command("grep", "-rlF", sentinel, r.srv.UserHome).Output(); len(out) > 0 {
		t.Fatalf("the secret is on the host's disk: %s", out)
	}
	if out, _ := exec.Command("ps", "-eo", "args").Output(); strings.Contains(string(out), sentinel) {
		t.Fatal("the secret is in a process's command line")
	}
	pids, _ := exec.Command("pgrep", "-u", r.srv.User).Output()
	for _, pid := range strings.Fields(string(pids)) {
		if env, err := os.ReadFile("/proc/" + pid + "/environ"); err == nil && strings.Contains(string(env), sentinel) {
			t.Fatalf("the secret is in the environment of the host user's process %s", pid)
		}
	}
}

// TestStopStopsTheRunOnTheHost: a person's stop of a run on a host stops
// it there too, and nothing starts it again.
func TestStopStopsTheRunOnTheHost(t *testing.T) {
	r := newHostRig(t)
	id := r.task(t, "Endless", "!ok started\n!silent 600000\n!ok never")
	runID := r.run(t, id, false)["runId"].(string)
	r.waitEvent(t, runID, `"text":"started"`)
	if code := e2eDo(t, authed(r.b), "POST", "/api/runs/"+runID+"/abort", map[string]any{}, nil); code != http.StatusAccepted {
		t.Fatalf("abort: %d", code)
	}
	if run := r.waitRun(t, runID); run.Status != store.RunAborted {
		t.Fatalf("the run here: %s %q", run.Status, run.Error)
	}
	r.noRunGoingThere(t)
	task, _ := r.b.Board.Get(context.Background(), id)
	if task.Status != "todo" || task.RunID != nil {
		t.Fatalf("the task after a stop: %s", task.Status)
	}
}

// TestStopReachesTheHostWhenTheLinkIsBack: a person stops a run on a host
// while the link to it is down; the run ends here at once, and the stop
// reaches the host as soon as it can be reached again.
func TestStopReachesTheHostWhenTheLinkIsBack(t *testing.T) {
	r := newHostRig(t)
	id := r.task(t, "Cut off", "!ok started\n!silent 600000\n!ok never")
	runID := r.run(t, id, false)["runId"].(string)
	r.waitEvent(t, runID, `"text":"started"`)
	r.srv.Stop()                                                                 // no new connection...
	kill(t, "ssh: "+hosts.ControlDir(filepath.Join(r.b.Config.Home, "ssh")), "") // ...and the one there was is gone
	if code := e2eDo(t, authed(r.b), "POST", "/api/runs/"+runID+"/abort", map[string]any{}, nil); code != http.StatusAccepted {
		t.Fatalf("abort: %d", code)
	}
	if run := r.waitRun(t, runID); run.Status != store.RunAborted {
		t.Fatalf("the run here: %s %q", run.Status, run.Error)
	}
	if err := r.srv.Restart(); err != nil {
		t.Fatal(err)
	}
	r.noRunGoingThere(t)
}

// noRunGoingThere waits until the host's server has no run going.
func (r *hostRig) noRunGoingThere(t *testing.T) {
	t.Helper()
	testkit.EventuallySays(t, 60*time.Second, "no run going there", func() (bool, string) {
		conn, err := r.b.Hosts.Connect(context.Background(), r.hostID)
		if err != nil {
			return false, err.Error()
		}
		req, _ := http.NewRequest("GET", "http://localhost/api/runs?limit=50", nil)
		res, err := conn.Remote.Do(req)
		if err != nil {
			return false, err.Error()
		}
		defer res.Body.Close()
		var page struct {
			Runs []struct{ Status string } `json:"runs"`
		}
		if err := json.NewDecoder(res.Body).Decode(&page); err != nil {
			return false, err.Error()
		}
		for _, r := range page.Runs {
			if r.Status == "running" || r.Status == "starting" {
				return false, "still " + r.Status
			}
		}
		return len(page.Runs) > 0, fmt.Sprintf("%d runs there", len(page.Runs))
	})
}
