package codex

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
)

// Faults of the child, with small shell programs standing in for a broken
// codex app-server (they answer the handshake by its fixed ids: 1
// initialize, 2 thread/start, 3 turn/start). These run without the real
// CLI.

const handshake = `read l; echo '{"id":1,"result":{}}'
read l
read l; echo '{"id":2,"result":{"thread":{"id":"th-1"},"model":"m"}}'
read l; echo '{"id":3,"result":{"turn":{"id":"tu-1"}}}'
`

func fakeCodex(t *testing.T, body string) *Adapter {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "codex")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	a := New(Options{
		Find: func() (string, bool) { return bin, true }, Home: filepath.Join(dir, "home"), UserHome: t.TempDir(),
		Environ: func() []string { return []string{"PATH=" + os.Getenv("PATH")} },
		Key:     func(context.Context, string) string { return "sk-fault-test-key" },
		Mode:    AppServer, Grace: 500 * time.Millisecond, Handshake: time.Second, MaxLines: 500,
	})
	t.Cleanup(func() { settle(t, []*Adapter{a}) })
	return a
}

func runFault(t *testing.T, a *Adapter) ([]executor.Event, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := executor.StartRequest{RunID: "fault", AgentID: "agent-f", Message: "hi", WorkDir: t.TempDir(), Emitter: executor.NewEmitter("fault", 0)}
	start := time.Now()
	run, err := a.Start(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	evs := executortest.Collect(t, ctx, run)
	return evs, time.Since(start)
}

func TestChildFaults(t *testing.T) {
	for _, tc := range []struct {
		name, script, want string
	}{
		{"crash mid-turn", handshake + "echo 'panic: boom' >&2; exit 3\n", "exited without a result (exit code 3): panic: boom"},
		{"hang in the handshake", "read l; sleep 30\n", "did not answer initialize"},
		{"hang after the handshake", handshake + "exec sleep 30\n", ""},
		{"flood without a result", handshake + `while :; do echo '{"method":"item/agentMessage/delta","params":{"threadId":"th-1","turnId":"tu-1","itemId":"i","delta":"x"}}'; done` + "\n", "more than 500 lines"},
		{"huge line", handshake + `head -c 20000000 /dev/zero | tr '\0' a; echo; exit 0` + "\n", "exited without a result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := fakeCodex(t, tc.script)
			if tc.want == "" {
				// A turn that never ends is the host's to stop (its idle
				// timeout aborts the run): abort must end it at once.
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				req := executor.StartRequest{RunID: "hang", AgentID: "agent-f", Message: "hi", Emitter: executor.NewEmitter("hang", 0)}
				run, err := a.Start(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				go func() { time.Sleep(1500 * time.Millisecond); _ = run.Abort(ctx) }()
				evs := executortest.Collect(t, ctx, run)
				if d := executortest.Done(t, evs); d.Reason != executor.DoneAborted {
					t.Fatalf("events: %s", executortest.Describe(evs))
				}
				return
			}
			evs, took := runFault(t, a)
			d := executortest.Done(t, evs)
			if d.Reason != executor.DoneError || !strings.Contains(d.Summary, tc.want) {
				t.Fatalf("done %+v: %s", d, executortest.Describe(evs))
			}
			if took > 10*time.Second {
				t.Fatalf("took %v", took)
			}
			noSecret(t, evs, "sk-fault-test-key")
		})
	}
}

// TestStderrIsRedacted: a child that prints its key on stderr and dies
// does not put the key in the failure message.
func TestStderrIsRedacted(t *testing.T) {
	a := fakeCodex(t, handshake+`echo "auth failed for $OPENAI_API_KEY" >&2; exit 1`+"\n")
	evs, _ := runFault(t, a)
	if d := executortest.Done(t, evs); d.Reason != executor.DoneError || !strings.Contains(d.Summary, "auth failed for [redacted]") {
		t.Fatalf("events: %s", executortest.Describe(evs))
	}
	noSecret(t, evs, "sk-fault-test-key")
}

// TestChildrenReaped: an aborted run leaves nothing of its process group
// behind, grandchildren included.
func TestChildrenReaped(t *testing.T) {
	a := fakeCodex(t, handshake+"sleep 37.91 & sleep 37.92\n")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := executor.StartRequest{RunID: "reap", AgentID: "agent-f", Message: "hi", Emitter: executor.NewEmitter("reap", 0)}
	run, err := a.Start(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for ev := range run.Events() {
		if ev.Kind == executor.KindStatus && ev.Session != "" {
			time.Sleep(200 * time.Millisecond)
			if len(processes(t, "sleep 37.9")) != 2 {
				t.Errorf("the child's two sleeps are not running: %v", processes(t, "sleep 37.9"))
			}
			_ = run.Abort(ctx)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		out := processes(t, "sleep 37.9")
		if len(out) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("children outlived the run: %s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// processes lists the command lines of live processes containing s, from
// /proc (a process that is gone, or a zombie, is not listed).
func processes(t *testing.T, s string) []string {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no /proc to look for processes in: %v", err)
	}
	var out []string
	for _, d := range dirs {
		cmd, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || len(cmd) == 0 {
			continue
		}
		line := strings.ReplaceAll(string(cmd), "\x00", " ")
		if strings.Contains(line, s) {
			out = append(out, d+": "+line)
		}
	}
	return out
}
