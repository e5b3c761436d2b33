//go:build linux

package claudecode

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/fakes/fakeanthropic"
)

// running lists the processes whose command line (NUL-separated
// arguments) contains cmd.
func running(cmd string) []string {
	var pids []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline")); err == nil && strings.Contains(string(b), cmd) {
			pids = append(pids, d.Name())
		}
	}
	return pids
}

// The CLI runs each shell command in a session of its own, out of reach
// of its process group: when the CLI dies hard in the middle of one, the
// command is found by the run's marker and stopped too, and the run fails
// saying how the CLI ended.
func TestRealCrashLeavesNoCommand(t *testing.T) {
	const sleep = "sleep\x0071.9"
	rg := newRig(t, fakeanthropic.Rule{Match: "sleepy", Tool: "^Bash$", Input: map[string]any{"command": "sleep 71.9", "description": "sleep"}})
	r := start(t, New(rg.opts), executor.StartRequest{Message: "sleepy time", WorkDir: t.TempDir()})
	evs := collect(t, r, func(ev executor.Event) {
		if ev.Kind != executor.KindToolCall {
			return
		}
		for deadline := time.Now().Add(20 * time.Second); len(running(sleep)) == 0; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the command never started")
			}
		}
		_ = syscall.Kill(r.child.Pid(), syscall.SIGKILL)
	})
	if d := last(evs); d.Reason != executor.DoneError || !strings.Contains(d.Summary, "runtime ended without a result (claude ended by signal: killed)") {
		t.Fatalf("%v", briefs(evs))
	}
	waitReaped(t, r)
	if pids := running(sleep); len(pids) > 0 {
		t.Fatalf("the command outlived the CLI: %v", pids)
	}
	_ = r.Abort(context.Background())
}

func TestSweepFindsOnlyItsRun(t *testing.T) {
	mine, other := "CLAWBOO_RUN=sweep-test.1", "CLAWBOO_RUN=sweep-test.10"
	self, _ := os.Executable()
	start := func(marker string) *os.Process {
		p, err := os.StartProcess(self, []string{self}, &os.ProcAttr{
			Env:   []string{"FAKE_CLAUDE=hang", marker},
			Files: []*os.File{nil, nil, nil}, Sys: &syscall.SysProcAttr{Setsid: true},
		})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := start(mine), start(other)
	defer b.Kill()
	time.Sleep(200 * time.Millisecond) // let them set up
	if n := sweep(mine, 300*time.Millisecond); n != 1 {
		t.Fatalf("swept %d", n)
	}
	if st, _ := a.Wait(); st == nil || st.Success() {
		t.Fatalf("the marked process: %v", st)
	}
	if syscall.Kill(b.Pid, 0) != nil {
		t.Fatal("another run's process was stopped")
	}
	_ = b.Kill()
	_, _ = b.Wait()
}
