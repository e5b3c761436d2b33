package mock

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
)

// TestDeclaresWhatSeed000Says: the mock New builds has no worktrees, no
// resume and no steering, refuses a steer, and never writes in a folder
// it is handed; only NewWithWorktrees (CLAWBOO_MOCK_WORKTREES=1) declares
// worktrees and writes there.
func TestDeclaresWhatSeed000Says(t *testing.T) {
	c := New().Capabilities()
	if c.Worktrees || c.Resume || c.Steering || c.ModelChange || c.MCP || c.ToolApproval || !c.Streaming ||
		c.RuntimeClass != executor.EphemeralTestDouble {
		t.Fatalf("the seed's mock declares streaming only: %+v", c)
	}
	if c := NewWithWorktrees().Capabilities(); !c.Worktrees || c.Resume || c.Steering {
		t.Fatalf("the worktree mock declares worktrees and nothing more: %+v", c)
	}

	for _, tc := range []struct {
		name  string
		a     *Adapter
		wrote bool
	}{{"seed", New(), false}, {"worktrees", NewWithWorktrees(), true}} {
		dir := t.TempDir()
		em := executor.NewEmitter("r", 0)
		run, err := tc.a.Start(context.Background(), executor.StartRequest{
			RunID: "r", WorkDir: dir, Emitter: em,
			Message: "!write hello.txt hi\n!ok done",
		})
		if err != nil {
			t.Fatal(err)
		}
		if res, err := run.Steer(context.Background(), executor.Steer{Text: "hi", Mode: executor.SteerNext}); err != nil || res != executor.SteerRejected {
			t.Fatalf("%s: steer %q %v", tc.name, res, err)
		}
		evs := executortest.Collect(t, ctxWithin(t), run)
		if done := executortest.CheckStream(t, "r", evs); done.Reason != executor.DoneSuccess {
			t.Fatalf("%s: %+v", tc.name, done)
		}
		_, err = os.Stat(filepath.Join(dir, "hello.txt"))
		if wrote := err == nil; wrote != tc.wrote {
			t.Fatalf("%s: wrote in the run's folder = %v, want %v", tc.name, wrote, tc.wrote)
		}
	}
}
