package backend

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/backend/supervisor"
)

// TestCodexQuitMidRunLeavesNothingBehind quits the backend while the real
// codex is mid-turn (the fake model stalls after its first word): when
// Close returns, no process of the run's child is left (its process group
// is empty) and its throwaway CODEX_HOME is gone. A run with no agent is
// what gets a throwaway home. The home is given the files a long session
// leaves (rollouts, logs), so removing it takes longer than the rest of
// Close: a Close that does not wait for Codex returns before it is gone,
// every time rather than now and then.
func TestCodexQuitMidRunLeavesNothingBehind(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds the child through /proc")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	b, fake := quitCodexBackend(t, ctx)
	fake.SetRules(fakeresponses.Rule{Match: "stall", Steps: []fakeresponses.Step{
		{Text: "Working on it", Delay: 10 * time.Minute},
	}}) // "Working ", then a stall
	h, err := b.Supervisor.Start(ctx, supervisor.StartParams{RuntimeID: "codex", Message: "stall mid-turn"})
	if err != nil {
		t.Fatal(err)
	}

	// Mid-turn: the model was asked, and the child is ours.
	var kid procInfo
	var home string
	for kid.pid == 0 {
		if ctx.Err() != nil {
			t.Fatalf("no codex child mid-turn (model calls: %d)", len(fake.Requests()))
		}
		if len(fake.Requests()) > 0 {
			kid, home = codexChild(t)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.HasPrefix(filepath.Base(home), "clawboo-codex-") {
		t.Fatalf("the run's CODEX_HOME %q is not a throwaway home", home)
	}
	if _, err := os.Stat(home); err != nil {
		t.Fatalf("throwaway home mid-run: %v", err)
	}
	fillHome(t, home, 10000)
	// The first words arrived: the turn is under way, stalled.
	for {
		evs, err := b.Store.ListEvents(ctx, h.ID, 0, 100)
		if err != nil || ctx.Err() != nil {
			t.Fatalf("events: %v %v", err, ctx.Err())
		}
		if strings.Contains(strings.Join(evsData(evs), "\n"), "Working") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r, err := b.Store.GetRun(ctx, h.ID); err != nil || r.Status != store.RunRunning {
		t.Fatalf("the run is not mid-turn: %+v %v", r, err)
	}

	closeCtx, closeCancel := context.WithTimeout(ctx, 30*time.Second)
	defer closeCancel()
	if err := b.Close(closeCtx); err != nil {
		t.Fatalf("close: %v", err)
	}
	if left := groupMembers(t, kid.pgid, home); len(left) > 0 {
		t.Fatalf("codex processes outlived quit: %v", left)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Fatalf("the throwaway CODEX_HOME %s outlived quit (%v)", home, err)
	}
	if r, err := h.Wait(ctx); err != nil || r.Status == store.RunRunning || r.Status == store.RunSucceeded {
		t.Fatalf("run after quit: %+v %v", r, err)
	}
}

// quitCodexBackend is a listening backend whose codex is the pinned CLI on
// the fake Responses API.
func quitCodexBackend(t *testing.T, ctx context.Context) (*Backend, *fakeresponses.Server) {
	t.Helper()
	cli := testCLIBin(t, "codex")
	fake := fakeresponses.New()
	fsrv := httptest.NewServer(fake)
	t.Cleanup(fsrv.Close)
	home, userCodex := t.TempDir(), t.TempDir()
	codexUser(t, cli, userCodex, fsrv.URL)
	path := filepath.Dir(cli) + string(os.PathListSeparator) + os.Getenv("PATH")
	env := map[string]string{"HOME": home, config.EnvVault: "file", "CODEX_HOME": userCodex, "PATH": path}
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(home, getenv)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(ctx, Options{Config: cfg, Getenv: getenv, Environ: func() []string { return []string{"HOME=" + home, "PATH=" + path} }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	serveForTest(t, b)
	if err := b.Vault.Set(ctx, "OPENAI_API_KEY", codexTestKey); err != nil {
		t.Fatal(err)
	}
	return b, fake
}

// fillHome writes n small files under home/sessions-test, as a long
// session's rollouts and logs would.
func fillHome(t *testing.T, home string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		dir := filepath.Join(home, "sessions-test", strconv.Itoa(i%100))
		if i < 100 {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(i)+".jsonl"), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// procInfo is one process as /proc/<pid>/stat tells it.
type procInfo struct {
	pid, ppid, pgid int
	state           string
}

// procs lists the live processes (zombies left out: they run nothing).
func procs(t *testing.T) []procInfo {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []procInfo
	for _, d := range ents {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// "pid (comm) state ppid pgrp ...": comm may hold spaces and parens.
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b)[i+1:])
		if i < 0 || len(f) < 3 || f[0] == "Z" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		out = append(out, procInfo{pid: pid, ppid: ppid, pgid: pgid, state: f[0]})
	}
	return out
}

// envOf is one variable of a process's environment ("" when unreadable).
func envOf(pid int, name string) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return ""
	}
	for _, kv := range strings.Split(string(b), "\x00") {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// codexChild is this test's codex child (a direct child whose environment
// names a CODEX_HOME) and that home, or a zero procInfo before it starts.
func codexChild(t *testing.T) (procInfo, string) {
	for _, p := range procs(t) {
		if p.ppid != os.Getpid() {
			continue
		}
		if home := envOf(p.pid, "CODEX_HOME"); home != "" {
			return p, home
		}
	}
	return procInfo{}, ""
}

// groupMembers are the live processes in the child's process group, or
// with its CODEX_HOME in their environment (one that left the group).
func groupMembers(t *testing.T, pgid int, home string) []procInfo {
	var out []procInfo
	for _, p := range procs(t) {
		if p.pgid == pgid || envOf(p.pid, "CODEX_HOME") == home {
			out = append(out, p)
		}
	}
	return out
}

// evsData is the stored events' payloads, for a text search.
func evsData(evs []store.EventRow) []string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		out = append(out, string(e.Data))
	}
	return out
}
