package backend

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
)

// The attack a hostile pass found: an agent with file writes only (no
// shell) writes a git dir of its own (HEAD, objects, refs, a config whose
// clean filter runs a command) and a .gitattributes asking for the filter,
// then points the worktree's .git at it. The server's own git add at the
// end of the run used to run the command. Now the .git write is refused
// with a reason the run shows, and no command runs.
func forgedGitDir(pwned, taskID string) [][2]string {
	return [][2]string{
		{"evil/HEAD", "ref: refs/heads/clawboo/task-" + taskID + "\n"}, // the branch the server expects
		{"evil/objects/keep", "x\n"},
		{"evil/refs/heads/keep", "x\n"},
		{"evil/config", "[filter \"x\"] clean = touch " + pwned + "; cat\n"}, // one line, so !write can say it too
		{".gitattributes", "* filter=x\n"},
		{".git", "gitdir: evil\n"},
	}
}

// attackTask makes a code task on a fresh repository.
func attackTask(t *testing.T, h http.Handler) (board.Task, string) {
	t.Helper()
	repo := e2eRepo(t)
	var created struct{ Task board.Task }
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Edit the repo", "repoPath": repo,
		"kind": "code", "status": "todo",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create task: %d %+v", code, created)
	}
	return created.Task, repo
}

// noCommandRan checks the filter's marker is absent and the task's work is
// on its branch, under the worktree's real git dir.
func noCommandRan(t *testing.T, pwned string, res taskRunResult) {
	t.Helper()
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("the forged git config's filter ran")
	}
	if res.Task == nil || res.Task.Status != board.InReview {
		t.Fatalf("task after the run: %+v (%s)", res.Task, res.Error)
	}
}

func TestGitLinkAttackThroughNativeWriteFile(t *testing.T) {
	fake := fakeprovider.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	b := e2eBackend(t, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-e2e", "ANTHROPIC_BASE_URL": srv.URL})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h := authed(b)
	name, rt := "Writer", "clawboo-native"
	cfg := `{"systemPrompt":"You edit files.","primaryProvider":"anthropic","primaryModel":"claude-haiku-4-5",` +
		`"envVar":"ANTHROPIC_API_KEY","tools":{"memory":false,"tools":false,"tasks":false,"teamchat":false,"shell":false},"maxTurns":10}`
	agent, err := b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt, Config: json.RawMessage(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	task, _ := attackTask(t, h)
	pwned := filepath.Join(t.TempDir(), "pwned")
	var calls []fakeprovider.ToolCall
	for i, w := range forgedGitDir(pwned, task.ID) {
		args, _ := json.Marshal(map[string]string{"path": w[0], "content": w[1]})
		calls = append(calls, fakeprovider.ToolCall{ID: "toolu_" + string(rune('a'+i)), Name: "write_file", Args: string(args)})
	}
	var script []fakeprovider.Response
	for _, c := range calls {
		script = append(script, fakeprovider.Tools(c))
	}
	fake.Push("/v1/messages", append(script, fakeprovider.Text("done"))...)

	var res taskRunResult
	if code := e2eDo(t, h, "POST", "/api/runtimes/clawboo-native/run",
		map[string]any{"taskId": task.ID, "assigneeAgentId": agent.ID}, &res); code != http.StatusOK {
		t.Fatalf("run: %d %+v", code, res)
	}
	noCommandRan(t, pwned, res)
	// The model was told why its .git write failed.
	reqs := fake.RequestsTo("/v1/messages")
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "git metadata") || !strings.Contains(last, `"is_error":true`) {
		t.Fatalf("the refusal did not reach the model: %s", last)
	}
	runEventsSay(t, b, res.RunID, "git metadata")
}

func TestGitLinkAttackThroughMockWrite(t *testing.T) {
	b := e2eBackend(t, map[string]string{"CLAWBOO_ENABLE_MOCK_RUNTIME": "1", "CLAWBOO_MOCK_WORKTREES": "1"})
	h := authed(b)
	task, _ := attackTask(t, h)
	pwned := filepath.Join(t.TempDir(), "pwned")
	var msg []string
	for _, w := range forgedGitDir(pwned, task.ID) {
		msg = append(msg, "!write "+w[0]+" "+strings.TrimSuffix(strings.ReplaceAll(w[1], "\n", " "), " "))
	}
	var res taskRunResult
	if code := e2eDo(t, h, "POST", "/api/runtimes/clawboo-mock/run",
		map[string]any{"taskId": task.ID, "message": strings.Join(msg, "\n")}, &res); code != http.StatusOK {
		t.Fatalf("run: %d %+v", code, res)
	}
	noCommandRan(t, pwned, res)
	runEventsSay(t, b, res.RunID, "git metadata")
}

// runEventsSay fails unless a tool result of the run is an error saying want.
func runEventsSay(t *testing.T, b *Backend, runID, want string) {
	t.Helper()
	rows, err := b.Store.ListEvents(context.Background(), runID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		var e struct {
			Kind    string `json:"kind"`
			Output  string `json:"output"`
			IsError bool   `json:"isError"`
		}
		if json.Unmarshal([]byte(row.Data), &e) == nil && e.Kind == "tool-result" && e.IsError && strings.Contains(e.Output, want) {
			return
		}
	}
	t.Fatalf("no tool result of run %s says %q (%d events)", runID, want, len(rows))
}
