package mock

import (
	"context"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
)

func playKey(t *testing.T, key, msg string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	em := executor.NewEmitter("r", 0)
	run, err := New().Start(ctx, executor.StartRequest{RunID: "r", SessionKey: key, Message: msg, Emitter: em})
	if err != nil {
		t.Fatal(err)
	}
	evs := executortest.Collect(t, ctx, run)
	last := evs[len(evs)-1]
	if last.Kind != executor.KindDone || last.Reason != executor.DoneSuccess {
		t.Fatalf("review run ended %+v", last)
	}
	return last.Summary
}

func TestCriticScript(t *testing.T) {
	desc := "Review this.\n!write a.txt hi\n!abort\n!critic {\"findings\":[{\"severity\":\"crash\",\"note\":\"1\"}]}\n!critic {\"findings\":[]}\n"
	if got := playKey(t, "review:T:1:x", desc); got != `{"findings":[{"severity":"crash","note":"1"}]}` {
		t.Fatalf("round 1: %q", got)
	}
	if got := playKey(t, "review:T:2:x", desc); got != `{"findings":[]}` {
		t.Fatalf("round 2: %q", got)
	}
	if got := playKey(t, "review:T:7:x", desc); got != `{"findings":[]}` {
		t.Fatalf("round 7 takes the last: %q", got)
	}
	if got := playKey(t, "review:T:1:x", "!ok not a critic line"); got != `{"findings":[]}` {
		t.Fatalf("no script: %q", got)
	}
	// A work run ignores !critic.
	if got := playKey(t, "task:T", "!critic {}\n!ok done"); got != "done" {
		t.Fatalf("work run: %q", got)
	}
}
