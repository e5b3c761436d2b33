package codex

import (
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
)

// TestContract is the foundation's suite on the real codex app-server
// against the fake Responses API: "success" is a plain turn, "hold" a
// slowly streamed answer that only an abort ends.
func TestContract(t *testing.T) {
	w := newWorld(t,
		fakeresponses.Text("^say hi", "Hello from fake openai."),
		fakeresponses.Rule{Match: "^hold", Steps: []fakeresponses.Step{{Text: "a b c d e f g h i j k l m n o p q r s t", Delay: 2 * time.Second}}})
	executortest.RunContract(t, executortest.Harness{
		New: func(t *testing.T) executor.Adapter { return w.adapter() },
		Request: func(t *testing.T, scenario string) executor.StartRequest {
			msg := "say hi"
			if scenario == "hold" {
				msg = "hold on"
			}
			return executor.StartRequest{AgentID: "agent-contract", Message: msg, WorkDir: t.TempDir()}
		},
		Timeout:      60 * time.Second,
		OwnsChildren: true,
	})
}

// TestContractExec is the same suite on the exec fallback.
func TestContractExec(t *testing.T) {
	w := newWorld(t,
		fakeresponses.Text("^say hi", "Hello from fake openai."),
		fakeresponses.Rule{Match: "^hold", Steps: []fakeresponses.Step{{Text: "a b c d e f g h i j k l m n o p q r s t", Delay: 2 * time.Second}}})
	w.mode = Exec
	executortest.RunContract(t, executortest.Harness{
		New: func(t *testing.T) executor.Adapter { return w.adapter() },
		Request: func(t *testing.T, scenario string) executor.StartRequest {
			msg := "say hi"
			if scenario == "hold" {
				msg = "hold on"
			}
			return executor.StartRequest{AgentID: "agent-contract", Message: msg, WorkDir: t.TempDir()}
		},
		Timeout:      60 * time.Second,
		OwnsChildren: true,
	})
}
