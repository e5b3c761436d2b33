package backend

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/store"
)

type lineCommentList struct {
	Comments []board.LineComment `json:"comments"`
	Unsent   int                 `json:"unsent"`
}

type errAnswer struct {
	Error  string `json:"error"`
	Reason string `json:"reason"`
}

// TestLineCommentsSendBack reviews a mock task's diff with line comments
// and sends them back: the new run works in the same worktree (same path)
// with the comments as its message, the comments are marked sent with its
// id, and they stay on the task.
func TestLineCommentsSendBack(t *testing.T) {
	b := e2eBackend(t, map[string]string{"CLAWBOO_ENABLE_MOCK_RUNTIME": "1", "CLAWBOO_MOCK_WORKTREES": "1"})
	h := authed(b)
	repo := e2eRepo(t)
	var created struct{ Task board.Task }
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Say hello", "description": "!write hello.txt hi",
		"repoPath": repo, "kind": "code",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create: %d %+v", code, created)
	}
	id := created.Task.ID
	var first taskRunResult
	if code := e2eDo(t, h, "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"taskId": id}, &first); code != http.StatusOK ||
		!first.UsedWorktree || first.Task == nil || first.Task.Status != board.InReview {
		t.Fatalf("first run: %d %+v", code, first)
	}
	var detail struct{ Worktree *board.Worktree }
	e2eDo(t, h, "GET", "/api/board/"+id, nil, &detail)
	if detail.Worktree == nil {
		t.Fatal("no worktree after the first run")
	}
	wtPath := detail.Worktree.Path
	var diff struct{ Paths []string }
	if code := e2eDo(t, h, "GET", "/api/board/"+id+"/diff", nil, &diff); code != http.StatusOK || len(diff.Paths) != 1 || diff.Paths[0] != "hello.txt" {
		t.Fatalf("diff: %d %+v", code, diff)
	}

	// Validation: only the diff's files, real line numbers, bounded text.
	for name, tc := range map[string]struct {
		body   map[string]any
		reason string
	}{
		"unchanged file": {map[string]any{"path": "README.md", "line": 1, "body": "x"}, "path_not_in_diff"},
		"escape":         {map[string]any{"path": "../../../etc/passwd", "line": 1, "body": "x"}, "path_not_in_diff"},
		"absolute":       {map[string]any{"path": filepath.Join(wtPath, "hello.txt"), "line": 1, "body": "x"}, "path_not_in_diff"},
		"no path":        {map[string]any{"line": 1, "body": "x"}, "path_not_in_diff"},
		"line 0":         {map[string]any{"path": "hello.txt", "line": 0, "body": "x"}, "invalid"},
		"huge body":      {map[string]any{"path": "hello.txt", "line": 1, "body": strings.Repeat("x", 8<<10+1)}, "invalid"},
		"empty body":     {map[string]any{"path": "hello.txt", "line": 1, "body": "  "}, "invalid"},
		"bad side":       {map[string]any{"path": "hello.txt", "line": 1, "side": "left", "body": "x"}, "invalid"},
	} {
		var e errAnswer
		if code := e2eDo(t, h, "POST", "/api/board/"+id+"/line-comments", tc.body, &e); code != http.StatusBadRequest || e.Reason != tc.reason || e.Error == "" {
			t.Errorf("%s: %d %+v", name, code, e)
		}
	}
	var e errAnswer
	if code := e2eDo(t, h, "GET", "/api/board/01NOSUCHTASK/line-comments", nil, &e); code != http.StatusNotFound {
		t.Fatalf("unknown task: %d %+v", code, e)
	}
	if code := e2eDo(t, h, "POST", "/api/board/"+id+"/send-back", nil, &e); code != http.StatusConflict || e.Reason != "nothing_to_send" {
		t.Fatalf("send back with nothing: %d %+v", code, e)
	}

	// Add two, delete one, list.
	add := func(body map[string]any) board.LineComment {
		t.Helper()
		var out struct{ Comment board.LineComment }
		if code := e2eDo(t, h, "POST", "/api/board/"+id+"/line-comments", body, &out); code != http.StatusCreated {
			t.Fatalf("add %v: %d %+v", body, code, out)
		}
		return out.Comment
	}
	// The mock reads indented directives, so the comment's own second and
	// third lines show that the run got the comments as its message.
	keep := add(map[string]any{"path": "hello.txt", "line": 1, "body": "Say hello properly.\n!write reviewed.txt fixed\n!ok addressed the review"})
	drop := add(map[string]any{"path": "hello.txt", "line": 1, "side": "old", "body": "never mind"})
	if keep.Side != "new" || drop.Side != "old" {
		t.Fatalf("sides: %+v %+v", keep, drop)
	}
	if code := e2eDo(t, h, "DELETE", "/api/board/"+id+"/line-comments/"+drop.ID, nil, nil); code != http.StatusOK {
		t.Fatalf("delete: %d", code)
	}
	if code := e2eDo(t, h, "DELETE", "/api/board/"+id+"/line-comments/"+drop.ID, nil, nil); code != http.StatusNotFound {
		t.Fatalf("delete twice: %d", code)
	}
	var list lineCommentList
	if e2eDo(t, h, "GET", "/api/board/"+id+"/line-comments", nil, &list); len(list.Comments) != 1 || list.Unsent != 1 || list.Comments[0].ID != keep.ID {
		t.Fatalf("list: %+v", list)
	}

	// Send back.
	var sent struct {
		RunID string `json:"runId"`
		Sent  int    `json:"sent"`
	}
	if code := e2eDo(t, h, "POST", "/api/board/"+id+"/send-back", nil, &sent); code != http.StatusAccepted || sent.RunID == "" || sent.Sent != 1 {
		t.Fatalf("send back: %d %+v", code, sent)
	}
	if sent.RunID == first.RunID {
		t.Fatal("send-back reused the first run's id")
	}
	run := waitRunEnded(t, h, sent.RunID)
	if run.Status != store.RunSucceeded || run.TaskID == nil || *run.TaskID != id || run.RuntimeID != "clawboo-mock" ||
		!strings.Contains(run.Summary, "addressed the review") {
		t.Fatalf("send-back run: %+v", run)
	}
	var after struct {
		Task     board.Task
		Worktree *board.Worktree
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if e2eDo(t, h, "GET", "/api/board/"+id, nil, &after); after.Task.RunID == nil || time.Now().After(deadline) {
			break
		}
	}
	if after.Task.Status != board.InReview || after.Worktree == nil || after.Worktree.Path != wtPath {
		t.Fatalf("after the send-back run: %+v %+v, worktree was %s", after.Task, after.Worktree, wtPath)
	}
	if detail.Worktree == nil || detail.Worktree.Path != wtPath {
		t.Fatalf("worktree moved: %+v, was %s", detail.Worktree, wtPath)
	}
	if got, err := os.ReadFile(filepath.Join(wtPath, "reviewed.txt")); err != nil || string(got) != "fixed" && string(got) != "fixed\n" {
		t.Fatalf("the run did not work in the same worktree: %q %v", got, err)
	}
	if e2eDo(t, h, "GET", "/api/board/"+id+"/diff", nil, &diff); strings.Join(diff.Paths, ",") != "hello.txt,reviewed.txt" {
		t.Fatalf("diff after: %+v", diff)
	}

	// The comment stays, marked sent with the run; it can no longer be
	// deleted, and there is nothing left to send.
	if e2eDo(t, h, "GET", "/api/board/"+id+"/line-comments", nil, &list); len(list.Comments) != 1 || list.Unsent != 0 ||
		list.Comments[0].SentRunID == nil || *list.Comments[0].SentRunID != sent.RunID {
		t.Fatalf("after send-back: %+v", list)
	}
	if code := e2eDo(t, h, "DELETE", "/api/board/"+id+"/line-comments/"+keep.ID, nil, &e); code != http.StatusConflict || e.Reason != "already_sent" {
		t.Fatalf("delete a sent comment: %d %+v", code, e)
	}
	if code := e2eDo(t, h, "POST", "/api/board/"+id+"/send-back", nil, &e); code != http.StatusConflict || e.Reason != "nothing_to_send" {
		t.Fatalf("send back twice: %d %+v", code, e)
	}

	// A finished task is not sent back.
	add(map[string]any{"path": "reviewed.txt", "line": 1, "body": "too late"})
	if code := e2eDo(t, h, "PATCH", "/api/board/"+id, map[string]any{"status": "done"}, nil); code != http.StatusOK {
		t.Fatalf("done: %d", code)
	}
	if code := e2eDo(t, h, "POST", "/api/board/"+id+"/send-back", nil, &e); code != http.StatusConflict || e.Reason != "illegal_transition" {
		t.Fatalf("send back a done task: %d %+v", code, e)
	}
}

// waitRunEnded polls a run until it is no longer live.
func waitRunEnded(t *testing.T, h http.Handler, id string) store.Run {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var run store.Run
		if code := e2eDo(t, h, "GET", "/api/runs/"+id, nil, &run); code == http.StatusOK && !run.Live() {
			return run
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s did not end: %+v", id, run)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLineCommentsSendBackWhileRunning: comments may be added while a run
// works on the task, but sending them back waits for it to end.
func TestLineCommentsSendBackWhileRunning(t *testing.T) {
	b := e2eBackend(t, map[string]string{"CLAWBOO_ENABLE_MOCK_RUNTIME": "1", "CLAWBOO_MOCK_WORKTREES": "1"})
	h := authed(b)
	var created struct{ Task board.Task }
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Slow", "description": "!write a.txt x\n!silent 2000",
		"repoPath": e2eRepo(t), "kind": "code",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	id := created.Task.ID
	var started struct {
		RunID string `json:"runId"`
	}
	if code := e2eDo(t, h, "POST", "/api/runtimes/clawboo-mock/run", map[string]any{"taskId": id, "wait": false}, &started); code != http.StatusAccepted {
		t.Fatalf("start: %d", code)
	}
	var out struct{ Comment board.LineComment }
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		code := e2eDo(t, h, "POST", "/api/board/"+id+"/line-comments", map[string]any{"path": "a.txt", "line": 1, "body": "hm"}, &out)
		if code == http.StatusCreated {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no comment while running: %d", code)
		}
	}
	var e errAnswer
	if code := e2eDo(t, h, "POST", "/api/board/"+id+"/send-back", nil, &e); code != http.StatusConflict || e.Reason != "conflict" {
		t.Fatalf("send back during a run: %d %+v", code, e)
	}
	waitRunEnded(t, h, started.RunID)
	var list lineCommentList
	if e2eDo(t, h, "GET", "/api/board/"+id+"/line-comments", nil, &list); list.Unsent != 1 {
		t.Fatalf("the comment was sent anyway: %+v", list)
	}
}
