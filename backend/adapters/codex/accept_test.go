package codex

import (
	"testing"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
)

// TestPlainTurn: one turn on the real codex app-server, text streamed,
// the thread id reported as the resume handle, tokens with no price.
func TestPlainTurn(t *testing.T) {
	w := newWorld(t, fakeresponses.Text("hi", "Hello from fake openai."))
	evs := w.runToEnd(executor.StartRequest{AgentID: "agent-1", Message: "hi", WorkDir: t.TempDir()})
	t.Log(kinds(evs))
	d := doneOf(t, evs)
	if d.Reason != executor.DoneSuccess || d.Summary != "Hello from fake openai." || textOf(evs) != "Hello from fake openai." {
		t.Fatalf("done %+v text %q", d, textOf(evs))
	}
	noSecret(t, evs)
}
