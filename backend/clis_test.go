package backend

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/board"
)

// testCLIBin is a real, pinned program of test/clis (claude, codex): a
// plain `go test` skips, CLAWBOO_TEST_CLIS set without the program fails.
func testCLIBin(t *testing.T, name string) string {
	t.Helper()
	dir, set := os.LookupEnv("CLAWBOO_TEST_CLIS")
	if !set {
		t.Skip("CLAWBOO_TEST_CLIS is not set (make test sets it to test/clis, with the pinned programs installed)")
	}
	p := filepath.Join(dir, "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("CLAWBOO_TEST_CLIS: %v", err)
	}
	return p
}

// serveForTest makes b listen on a free loopback port, as `clawboo serve`
// does (CLI runtimes reach the MCP servers there), until the test ends.
func serveForTest(t *testing.T, b *Backend) {
	t.Helper()
	ln, err := b.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := b.Server()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
}

// taskRunResult is POST /api/runtimes/{id}/run's answer for a task run.
type taskRunResult struct {
	OK           bool        `json:"ok"`
	RunID        string      `json:"runId"`
	Status       string      `json:"status"`
	Summary      string      `json:"summary"`
	Error        string      `json:"error"`
	CostUSD      *float64    `json:"costUsd"`
	CostKind     *string     `json:"costKind"`
	Task         *board.Task `json:"task"`
	UsedWorktree bool        `json:"usedWorktree"`
}

// wantClaimedBy fails unless task id is in progress and assigned to agent
// (claimed through the Tasks MCP server during a run).
func wantClaimedBy(t *testing.T, h http.Handler, id, agent string) {
	t.Helper()
	var got struct{ Task board.Task }
	if code := e2eDo(t, h, "GET", "/api/board/"+id, nil, &got); code != http.StatusOK ||
		got.Task.Status != board.InProgress || got.Task.AssigneeAgentID == nil || *got.Task.AssigneeAgentID != agent {
		t.Fatalf("task %s after the run: %d %+v", id, code, got.Task)
	}
}

// wantReviewDiff fails unless the run worked in a worktree and left its
// task in review with file in the task's diff, holding the added line want.
func wantReviewDiff(t *testing.T, h http.Handler, res taskRunResult, taskID, file, want string) {
	t.Helper()
	if res.Task == nil || res.Task.Status != board.InReview || !res.UsedWorktree {
		t.Fatalf("task after the run %+v (worktree %v)", res.Task, res.UsedWorktree)
	}
	var diff struct {
		Changed bool   `json:"changed"`
		Diff    string `json:"diff"`
	}
	if code := e2eDo(t, h, "GET", "/api/board/"+taskID+"/diff", nil, &diff); code != http.StatusOK ||
		!diff.Changed || !strings.Contains(diff.Diff, file) || !strings.Contains(diff.Diff, "+"+want) {
		t.Fatalf("diff %d %+v", code, diff)
	}
}
