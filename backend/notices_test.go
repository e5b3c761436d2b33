package backend

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/supervisor"
	"github.com/clawboo/desktop/internal/testkit"
)

// Through the composition root: with a topic saved (PUT
// /api/settings/ntfy) and the phones' listener on, a mock run's question
// and a finished task each reach the stand-in ntfy as one POST naming the
// agent and its team and linking the paired page, holding nothing the
// command, the task or the key said.
func TestNoticesReachTheStandInNtfy(t *testing.T) {
	const sentinel = "sk-ant-NOTICE-ROOT-SENTINEL-9d2e"
	var mu sync.Mutex
	var posts []string
	ntfy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		posts = append(posts, fmt.Sprintf("%s %s|%s|%s|%s", r.Method, r.URL.Path, body, r.Header.Get("Title"), r.Header.Get("Click")))
		mu.Unlock()
	}))
	defer ntfy.Close()
	got := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), posts...)
	}
	r := newPhoneRig(t) // the listener on 127.0.0.2
	h := authed(r.b)
	if code := e2eDo(t, h, "PUT", "/api/settings/ntfy", map[string]any{"url": ntfy.URL + "/clawboo-root-topic"}, nil); code != http.StatusOK {
		t.Fatalf("PUT the topic: %d", code)
	}
	if err := r.b.Vault.Set(context.Background(), claudeKeyName, sentinel); err != nil {
		t.Fatal(err)
	}
	agent := placedAgent(t, r.b, "Ada", "")

	var started struct{ RunID string }
	if code := e2eDo(t, h, "POST", "/api/runtimes/clawboo-mock/run", map[string]any{
		"message": "!ask rm -rf /home/x/secret-path " + sentinel + "\n!ok after", "agentId": agent, "wait": false,
	}, &started); code/100 != 2 {
		t.Fatalf("run: %d", code)
	}
	click := r.origin + "/m"
	testkit.EventuallySays(t, 30*time.Second, "the question's notice", func() (bool, string) {
		p := got()
		return len(p) >= 1, fmt.Sprint(p)
	})
	if p := got(); len(p) != 1 || p[0] != "POST /clawboo-root-topic|Ada is waiting for your answer.|Clawboo: an answer is needed|"+click {
		t.Fatalf("the stand-in ntfy got %q", p)
	}

	mustTeam(t, r.b, "team-core")
	var created struct{ Task board.Task }
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "wipe /home/x/secret-path " + sentinel, "teamId": "team-core", "assigneeAgentId": agent, "kind": "research",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	hd, err := r.b.Supervisor.Start(context.Background(), supervisor.StartParams{RuntimeID: executor.Mock, TaskID: created.Task.ID, Message: "done"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := hd.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if task, err := r.b.Board.Get(ctx, created.Task.ID); err != nil || (task.Status != board.InReview && task.Status != board.Done) {
		t.Fatalf("the task did not finish: %+v %v", task.Status, err)
	}
	testkit.EventuallySays(t, 30*time.Second, "the finished task's notice", func() (bool, string) {
		p := got()
		return len(p) >= 2, fmt.Sprint(p)
	})
	p := got()
	if len(p) != 2 || p[1] != "POST /clawboo-root-topic|Ada finished a task (team team-core).|Clawboo: a task finished|"+click {
		t.Fatalf("the stand-in ntfy got %q", p)
	}
	for _, s := range p {
		for _, bad := range []string{sentinel, "rm -rf", "/home/x", "wipe", created.Task.ID} {
			if strings.Contains(s, bad) {
				t.Errorf("a notice holds %q: %s", bad, s)
			}
		}
	}
}
