package codex

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
)

// TestRecordAppServer re-records testdata/appserver-tools.txt from the
// real codex when CODEX_RECORD=1 (a shell command that fails, then an
// answer), in the reference transcript's IN/OUT form.
func TestRecordAppServer(t *testing.T) {
	if os.Getenv("CODEX_RECORD") != "1" {
		t.Skip("set CODEX_RECORD=1 to re-record testdata/appserver-tools.txt")
	}
	w := newWorld(t, shellRule("failing", "echo to-stderr >&2; exit 3", "The command failed: {result}"))
	a := w.adapter()
	var mu sync.Mutex
	var b strings.Builder
	b.WriteString("##### failing-shell\n")
	a.opts.tap = func(in bool, line string) {
		mu.Lock()
		defer mu.Unlock()
		if in {
			b.WriteString("IN  " + line + "\n")
		} else {
			b.WriteString("OUT " + line + "\n")
		}
	}
	ctx := t.Context()
	run := w.start(ctx, a, executor.StartRequest{AgentID: "agent-rec", Message: "run a failing command", WorkDir: t.TempDir()})
	evs := executortest.Collect(t, ctx, run)
	if executortest.Done(t, evs).Reason != executor.DoneSuccess {
		t.Fatalf("events: %s", executortest.Describe(evs))
	}
	settle(t, w.adapters)
	mu.Lock()
	defer mu.Unlock()
	out := strings.ReplaceAll(b.String(), w.home, "<home>")
	if err := os.WriteFile("testdata/appserver-tools.txt", []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}
