package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/board"
)

// inReviewTask is a code task the worktree mock left in review with a diff
// that adds hello.txt.
func inReviewTask(t *testing.T, f *fixture) board.Task {
	t.Helper()
	task := f.createTask(t, `{"title":"say hi","description":"!write hello.txt hi","repoPath":"`+gitRepo(t)+`"}`)
	code, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"taskId":"`+task.ID+`"}`)
	if code != 200 {
		t.Fatal(code, string(b))
	}
	if res := decode[runResult](t, b); res.Task == nil || res.Task.Status != board.InReview {
		t.Fatalf("not in review: %s", b)
	}
	return task
}

// "Request changes" sends a person's general message back with the line
// comments: the next run's prompt carries both, the request first, and
// the agent acts on it (the mock follows the directives in it).
func TestSendBackCarriesAGeneralRequestBesideLineComments(t *testing.T) {
	f := newFixture(t, nil)
	task := inReviewTask(t, f)
	if code, _, b := f.do(t, "POST", "/api/board/"+task.ID+"/line-comments", `{"path":"hello.txt","line":1,"body":"Say hello properly."}`); code != 201 {
		t.Fatal(code, string(b))
	}
	msg, _ := json.Marshal(map[string]string{"message": "  Also say goodbye.\n!write bye.txt bye\n!ok done  "})
	code, _, b := f.do(t, "POST", "/api/board/"+task.ID+"/send-back", string(msg))
	if code != 202 {
		t.Fatal(code, string(b))
	}
	ans := decode[struct {
		RunID string `json:"runId"`
		Sent  int    `json:"sent"`
	}](t, b)
	if ans.Sent != 1 {
		t.Fatalf("sent %d comments: %s", ans.Sent, b)
	}
	run := waitRun(t, f, ans.RunID)
	req := strings.Index(run.Prompt, "Requested changes:\nAlso say goodbye.\n!write bye.txt bye\n!ok done")
	rev := strings.Index(run.Prompt, "Review comments:\n- hello.txt:1 — Say hello properly.")
	if req < 0 || rev < 0 || rev < req {
		t.Fatalf("the prompt does not carry the request, then the comments:\n%s", run.Prompt)
	}
	code, _, b = f.do(t, "GET", "/api/board/"+task.ID+"/diff", "")
	if code != 200 || !strings.Contains(string(b), "bye.txt") {
		t.Fatalf("the agent did not act on the request: %d %s", code, b)
	}
}

// A general request alone is enough; with neither a request nor an unsent
// comment there is nothing to send, and an oversized request is refused.
func TestSendBackWithARequestAloneAndWithNothing(t *testing.T) {
	f := newFixture(t, nil)
	task := inReviewTask(t, f)
	code, _, b := f.do(t, "POST", "/api/board/"+task.ID+"/send-back", `{"message":"   "}`)
	if code != 409 || decode[map[string]string](t, b)["reason"] != "nothing_to_send" {
		t.Fatal(code, string(b))
	}
	big, _ := json.Marshal(map[string]string{"message": strings.Repeat("x", board.MaxLineCommentBody+1)})
	if code, _, b = f.do(t, "POST", "/api/board/"+task.ID+"/send-back", string(big)); code != 400 {
		t.Fatal(code, string(b))
	}
	code, _, b = f.do(t, "POST", "/api/board/"+task.ID+"/send-back", `{"message":"Rename it.\n!ok renamed"}`)
	if code != 202 {
		t.Fatal(code, string(b))
	}
	run := waitRun(t, f, decode[map[string]any](t, b)["runId"].(string))
	if !strings.Contains(run.Prompt, "Requested changes:\nRename it.") || strings.Contains(run.Prompt, "Review comments:") {
		t.Fatalf("%s", run.Prompt)
	}
}
