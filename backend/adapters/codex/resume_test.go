package codex

import (
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
)

// TestResumeOfAThreadThatIsGone: a handle whose thread this home does not
// have (a cleared home, another machine) starts a new thread and says so.
func TestResumeOfAThreadThatIsGone(t *testing.T) {
	for _, mode := range []Mode{AppServer, Exec} {
		w := newWorld(t, fakeresponses.Text("hi", "Fresh start."))
		w.mode = mode
		gone := Handle{Thread: "01a22865-0000-7000-8000-000000000000", Totals: Totals{Input: 99}}.Encode()
		evs := w.runToEnd(executor.StartRequest{AgentID: "agent-g", Message: "hi", Resume: gone})
		t.Logf("mode %d: %s", mode, executortest.Describe(evs))
		d := executortest.Done(t, evs)
		h := DecodeHandle(handleOf(evs))
		said := false
		for _, e := range evs {
			said = said || strings.Contains(e.Detail, "no rollout found") && strings.Contains(e.Detail, "starting a new one")
		}
		if d.Reason != executor.DoneSuccess || !said || h.Thread == "" || strings.HasPrefix(h.Thread, "01a22865-0000") || h.Totals.Input == 99 {
			t.Fatalf("mode %d: %s", mode, executortest.Describe(evs))
		}
	}
}
