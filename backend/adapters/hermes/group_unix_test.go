//go:build unix

package hermes

import (
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
)

// Process groups are a Unix notion: these tests prove nothing a Hermes
// child starts outlives an abort, a crash or the host quitting.

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestAbortKillsTheProcessGroup(t *testing.T) {
	for _, stubborn := range []bool{false, true} {
		f := newFixture(t, orKey, func(o *Options) { o.Grace = 200 * time.Millisecond })
		msg := "!grandchild\n!hang"
		if stubborn {
			msg = "!stubborn\n" + msg
		}
		run := f.start(t, f.request("agent-1", msg))
		evs := waitText(t, run, "grandchild=")
		line := text(evs)[strings.Index(text(evs), "grandchild="):]
		gpid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.SplitN(line, "\n", 2)[0], "grandchild=")))
		if err != nil || !alive(gpid) {
			t.Fatalf("grandchild %q: %v", line, err)
		}
		pid := f.invocations(t, "agent-1")[0].Pid
		_ = run.Abort(context.Background())
		_, done := collect(t, run)
		if done.Reason != executor.DoneAborted {
			t.Fatalf("stubborn=%v: done %+v", stubborn, done)
		}
		deadline := time.Now().Add(5 * time.Second)
		for (alive(gpid) || alive(pid)) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(gpid) || alive(pid) {
			t.Fatalf("stubborn=%v: process %d or grandchild %d survived the abort", stubborn, pid, gpid)
		}
	}
}

// TestCrashAndQuitReapTheGroup: a program that crashes leaves nothing
// behind, and the host's context ending (quit) stops the program and its
// group and closes the stream.
func TestCrashAndQuitReapTheGroup(t *testing.T) {
	f := newFixture(t, orKey)
	evs, done := f.runToEnd(t, f.request("agent-1", "!grandchild\n!crash"))
	gpid := grandchildPID(t, text(evs))
	if done.Reason != executor.DoneError {
		t.Fatalf("done %+v", done)
	}
	waitGone(t, gpid)

	ctx, cancel := context.WithCancel(context.Background())
	req := f.request("agent-1", "!grandchild\n!hang")
	run, err := f.a.Start(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	gpid = grandchildPID(t, text(waitText(t, run, "grandchild=")))
	pid := f.invocations(t, "agent-1")[1].Pid
	cancel()
	deadline := time.After(10 * time.Second)
	for open := true; open; {
		select {
		case _, open = <-run.Events():
		case <-deadline:
			t.Fatal("stream did not close after the host's context ended")
		}
	}
	waitGone(t, pid)
	waitGone(t, gpid)
}

func grandchildPID(t *testing.T, s string) int {
	t.Helper()
	i := strings.Index(s, "grandchild=")
	if i < 0 {
		t.Fatalf("no grandchild in %q", s)
	}
	pid, err := strconv.Atoi(strings.SplitN(s[i+len("grandchild="):], "\n", 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		t.Fatalf("process %d survived", pid)
	}
}
