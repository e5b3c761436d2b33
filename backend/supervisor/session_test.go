package supervisor

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/store"
)

// startKeyed runs a mock run in conversation key and returns its init
// status detail (where the mock says which session it resumes).
func (e *env) startKeyed(t *testing.T, key, msg string) string {
	t.Helper()
	h, err := e.sup.Start(context.Background(), StartParams{RuntimeID: executor.Mock, Message: msg, SessionKey: key})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	for _, ev := range e.storedEvents(t, h.ID) {
		if ev.Kind == executor.KindStatus && ev.Phase == executor.PhaseInit {
			return ev.Detail
		}
	}
	t.Fatal("no init status")
	return ""
}

func TestResumeHandleFollowsTheConversation(t *testing.T) {
	e := setup(t, Options{})
	if got := e.startKeyed(t, "agent:a", "!session s-1\n!ok"); got != "" {
		t.Fatalf("a first run resumed %q", got)
	}
	if got := e.startKeyed(t, "agent:a", "!ok no session reported"); got != "resuming s-1" {
		t.Fatalf("second run: %q", got)
	}
	// A run that reports no session keeps the last handle that did.
	if got := e.startKeyed(t, "agent:a", "!session s-2\n!ok"); got != "resuming s-1" {
		t.Fatalf("third run: %q", got)
	}
	if got := e.startKeyed(t, "agent:a", "!ok"); got != "resuming s-2" {
		t.Fatalf("the newest handle wins: %q", got)
	}
	if got := e.startKeyed(t, "agent:b", "!ok"); got != "" {
		t.Fatalf("another conversation resumed %q", got)
	}
	if got := e.startKeyed(t, "", "!session loose\n!ok"); got != "" {
		t.Fatalf("a keyless run resumed %q", got)
	}
	if got := e.startKeyed(t, "", "!ok"); got != "" {
		t.Fatalf("keyless runs share nothing: %q", got)
	}
}

func TestSessionCodec(t *testing.T) {
	v := encodeSession("task:1", "abc")
	if decodeSession(v, "task:1") != "abc" {
		t.Fatal(v)
	}
	for _, bad := range []string{"", "{", `{"v":2,"key":"task:1","native":"abc"}`, encodeSession("task:2", "abc")} {
		if got := decodeSession(bad, "task:1"); got != "" {
			t.Fatalf("%q decoded to %q", bad, got)
		}
	}
	if encodeSession("", "x") != "" || encodeSession("k", "") != "" {
		t.Fatal("nothing to resume must encode to nothing")
	}
}

func TestAbortAllStopsEveryLiveRun(t *testing.T) {
	e := setup(t, Options{})
	var hs []*Handle
	for i := 0; i < 3; i++ {
		h, err := e.sup.Start(context.Background(), StartParams{RuntimeID: executor.Mock, Message: "!abort"})
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	for deadline := time.Now().Add(5 * time.Second); e.sup.LiveCount() != 3; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("live %d", e.sup.LiveCount())
		}
	}
	if n := e.sup.AbortAll(); n != 3 {
		t.Fatalf("asked %d", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, h := range hs {
		r, err := h.Wait(ctx)
		if err != nil || r.Status != "aborted" {
			t.Fatalf("%+v %v", r, err)
		}
	}
	if e.sup.AbortAll() != 0 {
		t.Fatal("nothing should be left to abort")
	}
	for deadline := time.Now().Add(5 * time.Second); e.sup.LiveCount() != 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still live: %d", e.sup.LiveCount())
		}
	}
}

// TestClaimedRunIsKnownWhileItsWorktreeIsMade: the board names the run as
// soon as the claim commits; until the run is live (its worktree still
// being made) the supervisor answers for it as starting, never as unknown.
func TestClaimedRunIsKnownWhileItsWorktreeIsMade(t *testing.T) {
	e := setupTasks(t, Options{})
	repo := gitRepo(t)
	// git worktree add runs post-checkout: make provisioning take a while.
	hook := filepath.Join(repo, ".git", "hooks", "post-checkout")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nsleep 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	task := e.task(t, board.NewTask{Title: "slow workspace", RepoPath: repo})
	done := make(chan error, 1)
	go func() {
		h, err := e.sup.Start(context.Background(), StartParams{RuntimeID: executor.Mock, TaskID: task.ID, Message: "!ok"})
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err = h.Wait(ctx)
		}
		done <- err
	}()
	var runID string
	eventually := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	eventually("the claim", func() bool {
		got, err := e.board.Get(context.Background(), task.ID)
		if err == nil && got.RunID != nil {
			runID = *got.RunID
		}
		return runID != ""
	})
	if e.sup.IsLive(runID) {
		t.Fatal("the run is live already: the hook did not slow provisioning, so this test proves nothing")
	}
	r, ok := e.sup.Live(runID)
	if !ok || r.Status != store.RunStarting || r.ID != runID || r.TaskID == nil || *r.TaskID != task.ID {
		t.Fatalf("claimed run %s answered %v %+v", runID, ok, r)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if r, _ := e.sup.Live(runID); r.Status == store.RunStarting && !e.sup.IsLive(runID) {
		t.Fatal("a finished run is still answered as starting")
	}
}

func TestAFailedWorkspaceForgetsTheClaimedRun(t *testing.T) {
	e := setupTasks(t, Options{})
	task := e.task(t, board.NewTask{Title: "no repo", RepoPath: filepath.Join(t.TempDir(), "missing")})
	_, err := e.sup.Start(context.Background(), StartParams{RuntimeID: executor.Mock, TaskID: task.ID, Message: "!ok"})
	if refusal(t, err) != "workspace_unavailable" {
		t.Fatal(err)
	}
	e.sup.mu.Lock()
	n := len(e.sup.claiming)
	e.sup.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d claimed runs left behind", n)
	}
}
