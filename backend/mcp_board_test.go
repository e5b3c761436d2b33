package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/store"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// The Tasks server over the real board on a real SQLite store.

const tasksTestToken = "tasks-test-attach-token-0123456789"

type tasksFixture struct {
	board *board.Board
	hub   *mcp.Hub
	url   string // the tasks endpoint of a real HTTP server around the hub
}

func newTasksFixture(t *testing.T, now func() time.Time) *tasksFixture {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	b := board.New(board.Options{Store: st})
	h, err := mcp.New(mcp.Options{
		Token: tasksTestToken, BindingKey: []byte("tasks-test-binding-key-0123456789"),
		Store: st, Board: newMCPBoard(b), Now: now,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		h.Close()
		b.Close()
		st.Close()
	})
	return &tasksFixture{board: b, hub: h, url: srv.URL + "/mcp/tasks"}
}

// answer is one tool result, read the way an agent reads it.
type answer struct {
	text  string
	isErr bool
	code  string // _meta.denied
}

func readAnswer(t *testing.T, res *mcpgo.CallToolResult, err error) answer {
	t.Helper()
	if err != nil {
		t.Fatalf("protocol error: %v", err)
	}
	var a answer
	for _, c := range res.Content {
		if tc, ok := c.(mcpgo.TextContent); ok {
			a.text += tc.Text
		}
	}
	a.isErr = res.IsError
	if res.Meta != nil {
		a.code, _ = res.Meta.AdditionalFields["denied"].(string)
	}
	return a
}

// caller is an in-process session or an HTTP client.
type caller func(name string, args map[string]any) (*mcpgo.CallToolResult, error)

func (f *tasksFixture) session(t *testing.T, b mcp.Binding) caller {
	t.Helper()
	s, err := f.hub.Session(context.Background(), mcp.Tasks, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return func(name string, args map[string]any) (*mcpgo.CallToolResult, error) {
		return s.CallTool(context.Background(), name, args)
	}
}

// dialTasks connects an mcp-go client over HTTP with the attach token and a
// binding query.
func dialTasks(t *testing.T, url, token, query string) (caller, error) {
	t.Helper()
	if query != "" {
		url += "?" + query
	}
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "tasks-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		_ = c.Close()
		return nil, err
	}
	t.Cleanup(func() { _ = c.Close() })
	return func(name string, args map[string]any) (*mcpgo.CallToolResult, error) {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		return c.CallTool(ctx, req)
	}, nil
}

func (c caller) do(t *testing.T, name string, args map[string]any) answer {
	t.Helper()
	res, err := c(name, args)
	return readAnswer(t, res, err)
}

// ok calls a tool that must succeed and decodes its JSON answer.
func (c caller) ok(t *testing.T, name string, args map[string]any) map[string]json.RawMessage {
	t.Helper()
	a := c.do(t, name, args)
	if a.isErr {
		t.Fatalf("%s %v: %s", name, args, a.text)
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal([]byte(a.text), &out); err != nil {
		t.Fatalf("%s: %v in %s", name, err, a.text)
	}
	return out
}

func (c caller) refused(t *testing.T, name string, args map[string]any, code, text string) answer {
	t.Helper()
	a := c.do(t, name, args)
	if !a.isErr || a.code != code || !strings.Contains(a.text, text) {
		t.Fatalf("%s %v: want %s %q, got %v %q %q", name, args, code, text, a.isErr, a.code, a.text)
	}
	return a
}

func taskOf(t *testing.T, raw json.RawMessage) board.Task {
	t.Helper()
	var task board.Task
	if err := json.Unmarshal(raw, &task); err != nil {
		t.Fatal(err)
	}
	return task
}

func TestMCPTaskStatusesAreTheBoards(t *testing.T) {
	var want []string
	for _, s := range board.Statuses {
		want = append(want, string(s))
	}
	if !slices.Equal(mcp.TaskStatuses, want) {
		t.Fatalf("mcp %v, board %v", mcp.TaskStatuses, want)
	}
}

func TestMCPTasksEveryTool(t *testing.T) {
	f := newTasksFixture(t, nil)
	alice := f.session(t, mcp.Binding{TeamID: "team-a", AgentID: "alice"})
	root := taskOf(t, alice.ok(t, "create_task", map[string]any{
		"title": "Mission", "description": "the goal",
		"priority": 5, "assigneeRuntime": "codex",
	})["task"])
	if *root.TeamID != "team-a" || root.Priority != 5 || *root.AssigneeRuntime != "codex" || root.Status != board.Todo {
		t.Fatalf("%+v", root)
	}
	step1 := taskOf(t, alice.ok(t, "create_subtask", map[string]any{"parentTaskId": root.ID, "title": "Step 1"})["task"])
	step2 := taskOf(t, alice.ok(t, "create_task", map[string]any{"parentTaskId": root.ID, "title": "Step 2", "status": "backlog"})["task"])
	if *step1.ParentID != root.ID || *step2.TeamID != "team-a" || step2.Status != board.Backlog || step2.Depth != 1 {
		t.Fatalf("%+v %+v", step1, step2)
	}
	alice.ok(t, "update_task_status", map[string]any{"taskId": step2.ID, "status": "todo"})
	linked := taskOf(t, alice.ok(t, "link_task", map[string]any{"taskId": step2.ID, "dependsOnTaskId": step1.ID})["task"])
	if !slices.Equal(linked.DependsOn, []string{step1.ID}) {
		t.Fatal(linked.DependsOn)
	}
	ids := func(raw json.RawMessage) []string {
		var ts []board.Task
		_ = json.Unmarshal(raw, &ts)
		var out []string
		for _, x := range ts {
			out = append(out, x.ID)
		}
		return out
	}
	if got := ids(alice.ok(t, "list_tasks", nil)["tasks"]); len(got) != 3 || got[0] != root.ID {
		t.Fatalf("list %v", got)
	}
	if got := ids(alice.ok(t, "list_tasks", map[string]any{"ready": true})["tasks"]); !slices.Equal(got, []string{root.ID, step1.ID}) {
		t.Fatalf("ready %v", got)
	}
	// Claim, comment and finish step 1; step 2 becomes ready.
	claimed := taskOf(t, alice.ok(t, "claim_task", map[string]any{"taskId": step1.ID, "assigneeRuntime": "claude-code"})["task"])
	if claimed.Status != board.InProgress || *claimed.AssigneeAgentID != "alice" || claimed.RunID != nil {
		t.Fatalf("%+v", claimed)
	}
	var cm board.Comment
	_ = json.Unmarshal(alice.ok(t, "add_comment", map[string]any{"taskId": step1.ID, "body": "halfway"})["comment"], &cm)
	if cm.AuthorType != "agent" || *cm.AuthorID != "alice" || cm.Body != "halfway" {
		t.Fatalf("%+v", cm)
	}
	alice.ok(t, "update_task_status", map[string]any{"taskId": step1.ID, "status": "in_review"})
	alice.ok(t, "update_task_status", map[string]any{"taskId": step1.ID, "status": "done"})
	got := alice.ok(t, "get_task", map[string]any{"taskId": step1.ID})
	var comments []board.Comment
	var ancestors []board.Task
	_ = json.Unmarshal(got["comments"], &comments)
	_ = json.Unmarshal(got["ancestors"], &ancestors)
	if taskOf(t, got["task"]).Status != board.Done || len(comments) != 1 || len(ancestors) != 1 || ancestors[0].ID != root.ID {
		t.Fatalf("%s", got)
	}
	// Assign, release, block and unblock step 2.
	if a := taskOf(t, alice.ok(t, "assign_task", map[string]any{"taskId": step2.ID})["task"]); *a.AssigneeAgentID != "alice" {
		t.Fatalf("%+v", a)
	}
	if r := taskOf(t, alice.ok(t, "release_task", map[string]any{"taskId": step2.ID})["task"]); r.Status != board.Todo || r.AssigneeAgentID != nil {
		t.Fatalf("%+v", r)
	}
	if b := taskOf(t, alice.ok(t, "block_task", map[string]any{"taskId": step2.ID})["task"]); b.Status != board.Blocked {
		t.Fatalf("%+v", b)
	}
	if u := taskOf(t, alice.ok(t, "unblock_task", map[string]any{"taskId": step2.ID})["task"]); u.Status != board.Todo {
		t.Fatalf("%+v", u)
	}
	// Refusals the board makes come back as tool errors with hints.
	a := alice.refused(t, "update_task_status", map[string]any{"taskId": step1.ID, "status": "todo"}, "illegal_transition",
		"status change failed: a task cannot move from done to todo")
	if !strings.Contains(a.text, "a done task is final") {
		t.Fatal(a.text)
	}
	a = alice.refused(t, "update_task_status", map[string]any{"taskId": step2.ID, "status": "in_review"}, "illegal_transition", "status change failed")
	if !strings.Contains(a.text, "from todo a task can move to: in_progress, blocked, backlog, cancelled") {
		t.Fatal(a.text)
	}
	alice.refused(t, "link_task", map[string]any{"taskId": step1.ID, "dependsOnTaskId": step2.ID}, "cycle", "link failed: that dependency would make a cycle")
	alice.refused(t, "release_task", map[string]any{"taskId": step2.ID}, "illegal_transition", "only an in-progress task can be released")
	alice.refused(t, "claim_task", map[string]any{"taskId": step1.ID}, "not_claimable", "task '"+step1.ID+"' is done")
	// Another agent of the team cannot release alice's claim.
	alice.ok(t, "claim_task", map[string]any{"taskId": step2.ID})
	bob := f.session(t, mcp.Binding{TeamID: "team-a", AgentID: "bob"})
	bob.refused(t, "release_task", map[string]any{"taskId": step2.ID}, "not_holder", "claimed by another agent")
	bob.refused(t, "claim_task", map[string]any{"taskId": step2.ID}, "conflict", "do not retry")
}

func TestMCPTasksCaps(t *testing.T) {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	f := newTasksFixture(t, func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	s := f.session(t, mcp.Binding{TeamID: "team-a", AgentID: "alice"})
	root := taskOf(t, s.ok(t, "create_task", map[string]any{"title": "root"})["task"])
	// Children: 24 open subtasks per parent, by either tool.
	var first board.Task
	for i := range board.MaxChildren {
		tool, args := "create_subtask", map[string]any{"parentTaskId": root.ID, "title": fmt.Sprint("child ", i)}
		if i%2 == 1 {
			tool = "create_task"
		}
		c := taskOf(t, s.ok(t, tool, args)["task"])
		if i == 0 {
			first = c
		}
	}
	for _, tool := range []string{"create_subtask", "create_task"} {
		a := s.refused(t, tool, map[string]any{"parentTaskId": root.ID, "title": "25th"}, "child_cap", "24 open subtasks")
		if !strings.Contains(a.text, "cancel some of the parent's subtasks") {
			t.Fatal(a.text)
		}
	}
	// Depth: root 0, child 1, grandchild 2, and no further.
	grand := taskOf(t, s.ok(t, "create_subtask", map[string]any{"parentTaskId": first.ID, "title": "grandchild"})["task"])
	if grand.Depth != 2 || grand.RootID != root.ID {
		t.Fatalf("%+v", grand)
	}
	for _, tool := range []string{"create_subtask", "create_task"} {
		a := s.refused(t, tool, map[string]any{"parentTaskId": grand.ID, "title": "too deep"}, "depth_cap", "at most 2 levels")
		if !strings.Contains(a.text, "parent's parent") {
			t.Fatal(a.text)
		}
		s.refused(t, tool, map[string]any{"parentTaskId": "01NOPE", "title": "orphan"}, "parent_not_found", "parent task not found: 01NOPE")
	}
	// Root creates: 30 per rolling 5 minutes per team (the root above is one).
	for i := 1; i < 30; i++ {
		s.ok(t, "create_task", map[string]any{"title": fmt.Sprint("root ", i)})
	}
	a := s.refused(t, "create_task", map[string]any{"title": "31st"}, "root_rate_cap", "30 root tasks in the last 5m0s")
	if !strings.Contains(a.text, "wait 5m0s") {
		t.Fatal(a.text)
	}
	mu.Lock()
	now = now.Add(5 * time.Minute)
	mu.Unlock()
	s.ok(t, "create_task", map[string]any{"title": "next window"})
}

func TestMCPTasksTeamBinding(t *testing.T) {
	f := newTasksFixture(t, nil)
	ctx := context.Background()
	theirs, err := f.board.Create(ctx, board.NewTask{Title: "theirs", TeamID: "team-b"})
	if err != nil {
		t.Fatal(err)
	}
	loose, _ := f.board.Create(ctx, board.NewTask{Title: "no team"})
	s := f.session(t, mcp.Binding{TeamID: "team-a", AgentID: "alice"})
	for _, id := range []string{theirs.ID, loose.ID} {
		s.refused(t, "get_task", map[string]any{"taskId": id}, "not_found", "task not found: "+id)
		s.refused(t, "claim_task", map[string]any{"taskId": id}, "not_found", "task not found")
		s.refused(t, "create_subtask", map[string]any{"parentTaskId": id, "title": "sneak in"}, "parent_not_found", "parent task not found")
	}
	if kids, _ := f.board.List(ctx, board.Filter{ParentID: theirs.ID}); len(kids) != 0 {
		t.Fatal("a subtask was created under another team's task")
	}
	if got, _ := f.board.Get(ctx, theirs.ID); got.Status != board.Todo {
		t.Fatal("another team's task was claimed")
	}
	s.refused(t, "create_task", map[string]any{"title": "x", "teamId": "team-b"}, "foreign_team", "bound to team 'team-a'")
	if raw := s.ok(t, "list_tasks", nil)["tasks"]; string(raw) != "[]" {
		t.Fatalf("list shows other teams: %s", raw)
	}
	// Unbound, a subtask still joins its parent's team.
	u := f.session(t, mcp.Binding{})
	u.refused(t, "create_task", map[string]any{"title": "x", "parentTaskId": theirs.ID, "teamId": "team-a"}, "invalid_args", "joins its parent's team")
	if c := taskOf(t, u.ok(t, "create_subtask", map[string]any{"parentTaskId": theirs.ID, "title": "ok"})["task"]); *c.TeamID != "team-b" {
		t.Fatalf("%+v", c)
	}
}
