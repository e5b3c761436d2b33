package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/adapters/native"
	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
	"github.com/clawboo/desktop/backend/llm"
	"github.com/clawboo/desktop/backend/mcp"
)

// e2eRepo is a real git repository with one commit.
func e2eRepo(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# repo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// e2eBackend is nativeBackend with git on the PATH, so code tasks get
// real worktrees.
func e2eBackend(t testing.TB, env map[string]string) *Backend {
	t.Helper()
	home := t.TempDir()
	env["HOME"], env[config.EnvVault], env["PATH"] = home, "file", os.Getenv("PATH")
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(home, getenv)
	if err != nil {
		t.Fatal(err)
	}
	environ := func() []string { return []string{"HOME=" + home, "PATH=" + env["PATH"]} }
	b, err := New(context.Background(), Options{Config: cfg, Getenv: getenv, Environ: environ})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	if b.Worktrees == nil {
		t.Fatal("no worktrees: is git installed?")
	}
	return b
}

// e2eDo sends one API request through the backend's handler and decodes
// the answer.
func e2eDo(t testing.TB, h http.Handler, method, path string, body, out any) int {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req := httptest.NewRequest(method, "http://127.0.0.1"+path, rd)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if out != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			t.Fatalf("%s %s: %d %v in %s", method, path, rec.Code, err, rec.Body.String())
		}
	}
	return rec.Code
}

// TestNativeE2EBoardTask runs a board code task on clawboo-native end to
// end: a configured agent (memory on, tasks full), a real repository and
// worktree, the supervisor, the in-process MCP hub, and the fake Messages
// API scripting five turns — list_files, write_file, memory_save,
// claim_task on a subtask, then a final answer.
func TestNativeE2EBoardTask(t *testing.T) {
	fake := fakeprovider.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	b := e2eBackend(t, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-e2e", "ANTHROPIC_BASE_URL": srv.URL})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h := authed(b)

	// The agent: native, pinned model, memory on and the board read-write.
	name, rt := "Planner", "clawboo-native"
	cfg := `{"systemPrompt":"You plan work.","primaryProvider":"anthropic","primaryModel":"claude-haiku-4-5",` +
		`"envVar":"ANTHROPIC_API_KEY","tools":{"memory":true,"tools":false,"tasks":true,"teamchat":false},"maxTurns":10}`
	agent, err := b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt, Config: json.RawMessage(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	if agent.Config == nil || !agent.Config.Tools.Memory || agent.Config.Tools.Tasks != native.TasksOn {
		t.Fatalf("agent config %+v", agent.Config)
	}

	// The board: a code task on the repository, and a todo subtask of it
	// in the same team.
	repo := e2eRepo(t)
	var created struct{ Task board.Task }
	mustTeam(t, b, "team-e2e")
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Write the plan", "teamId": "team-e2e",
		"repoPath": repo, "kind": "code", "status": "todo",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create parent: %d %+v", code, created)
	}
	parent := created.Task
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Follow up on the plan", "teamId": "team-e2e",
		"parentTaskId": parent.ID, "status": "todo",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create child: %d %+v", code, created)
	}
	child := created.Task
	if child.TeamID == nil || *child.TeamID != "team-e2e" || child.Status != board.Todo {
		t.Fatalf("child %+v", child)
	}

	// The model's five turns, with exact usage so the cost is exact.
	use := func(r fakeprovider.Response, in, out int) fakeprovider.Response {
		r.Usage = fakeprovider.Usage{Input: in, Output: out}
		return r
	}
	claimArgs := fmt.Sprintf(`{"taskId":%q,"assigneeAgentId":%q}`, child.ID, agent.ID)
	fake.Push("/v1/messages",
		use(fakeprovider.Tools(fakeprovider.ToolCall{ID: "toolu_1", Name: "list_files", Args: `{}`}), 1000, 100),
		use(fakeprovider.Tools(fakeprovider.ToolCall{
			ID: "toolu_2", Name: "write_file",
			Args: `{"path":"notes/plan.md","content":"# Plan\n\n1. Read the repo.\n2. Write this plan.\n"}`,
		}), 2000, 200),
		use(fakeprovider.Tools(fakeprovider.ToolCall{
			ID: "toolu_3", Name: "memory_save",
			Args: `{"title":"Plan location","content":"The zebra plan lives in notes/plan.md"}`,
		}), 3000, 300),
		use(fakeprovider.Tools(fakeprovider.ToolCall{ID: "toolu_4", Name: "claim_task", Args: claimArgs}), 4000, 400),
		use(fakeprovider.Text("done"), 5000, 500),
	)

	var res taskRunResult
	code := e2eDo(t, h, "POST", "/api/runtimes/clawboo-native/run",
		map[string]any{"taskId": parent.ID, "assigneeAgentId": agent.ID}, &res)
	if code != http.StatusOK || !res.OK || res.Summary != "done" {
		t.Fatalf("run: %d %+v", code, res)
	}
	if n := fake.Pending("/v1/messages"); n != 0 {
		t.Fatalf("%d scripted turns never asked for", n)
	}

	// Every tool call went through without an error.
	reqs := fake.RequestsTo("/v1/messages")
	if len(reqs) != 5 {
		t.Fatalf("provider saw %d requests", len(reqs))
	}
	type wire struct {
		System   json.RawMessage `json:"system"`
		Tools    json.RawMessage `json:"tools"`
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string          `json:"type"`
				ToolUseID string          `json:"tool_use_id"`
				IsError   bool            `json:"is_error"`
				Content   json.RawMessage `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}
	var last wire
	if err := reqs[4].JSON(&last); err != nil {
		t.Fatal(err)
	}
	for _, m := range last.Messages {
		for _, c := range m.Content {
			if c.Type == "tool_result" && c.IsError {
				t.Errorf("tool %s failed: %s", c.ToolUseID, c.Content)
			}
		}
	}

	// System and tools are byte-identical on all five requests.
	var first wire
	if err := reqs[0].JSON(&first); err != nil {
		t.Fatal(err)
	}
	for i, r := range reqs {
		var w wire
		if err := r.JSON(&w); err != nil {
			t.Fatal(err)
		}
		if r.Key != "sk-ant-e2e" {
			t.Fatalf("request %d key %q", i, r.Key)
		}
		if !bytes.Equal(w.System, first.System) || !bytes.Equal(w.Tools, first.Tools) {
			t.Fatalf("request %d: system or tools changed\n%s\n%s", i, w.System, first.System)
		}
	}
	if !strings.Contains(string(first.System), "You plan work.") {
		t.Fatalf("the agent's system prompt was not sent: %s", first.System)
	}
	var names []struct{ Name string }
	_ = json.Unmarshal(first.Tools, &names)
	var got []string
	for _, n := range names {
		got = append(got, n.Name)
	}
	for _, want := range []string{"list_files", "write_file", "memory_save", "memory_search", "claim_task"} {
		if !strings.Contains(","+strings.Join(got, ",")+",", ","+want+",") {
			t.Fatalf("tool %s not offered: %v", want, got)
		}
	}

	// The task is in review with the plan in its diff.
	if res.Task == nil || res.Task.Status != board.InReview || !res.UsedWorktree {
		t.Fatalf("task after the run %+v (worktree %v)", res.Task, res.UsedWorktree)
	}
	var diff struct {
		Changed bool   `json:"changed"`
		Files   int    `json:"files"`
		Diff    string `json:"diff"`
	}
	if code := e2eDo(t, h, "GET", "/api/board/"+parent.ID+"/diff", nil, &diff); code != http.StatusOK ||
		!diff.Changed || diff.Files != 1 || !strings.Contains(diff.Diff, "notes/plan.md") || !strings.Contains(diff.Diff, "+2. Write this plan.") {
		t.Fatalf("diff %d %+v", code, diff)
	}

	// The run's cost is the pinned price of the five turns' usage.
	want, _ := llm.PriceTurn("anthropic", "claude-haiku-4-5", llm.Usage{InputTokens: 15000, OutputTokens: 1500})
	if res.CostUSD == nil || res.CostKind == nil || *res.CostKind != "reported" ||
		fmt.Sprintf("%.9f", *res.CostUSD) != fmt.Sprintf("%.9f", *want) {
		t.Fatalf("cost %v kind %v, want %v reported", deref(res.CostUSD), deref(res.CostKind), *want)
	}
	if *want != 0.0225 {
		t.Fatalf("pinned haiku price moved: %v", *want)
	}

	// The fact is findable by the agent that saved it.
	s, err := b.MCP.Session(ctx, mcp.Memory, mcp.Binding{TeamID: "team-e2e", AgentID: agent.ID})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	found, err := s.CallTool(ctx, "memory_search", map[string]any{"query": "zebra plan", "mode": "fts"})
	if err != nil || found.IsError {
		t.Fatalf("memory_search: %v %+v", err, found)
	}
	if b, _ := json.Marshal(found.Content); !strings.Contains(string(b), "notes/plan.md") {
		t.Fatalf("memory_search found %s", b)
	}

	// The subtask is claimed by the agent.
	var gotChild struct{ Task board.Task }
	if code := e2eDo(t, h, "GET", "/api/board/"+child.ID, nil, &gotChild); code != http.StatusOK {
		t.Fatalf("get child %d", code)
	}
	c := gotChild.Task
	if c.Status != board.InProgress || c.AssigneeAgentID == nil || *c.AssigneeAgentID != agent.ID {
		t.Fatalf("child after the run %+v", c)
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
