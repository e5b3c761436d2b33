package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"

	"github.com/mark3labs/mcp-go/mcp"
)

// fakeBoard is a small in-memory TaskBoard for the server's own logic
// (scoping, identity, validation, the root cap); the real board's rules are
// tested through the composition root's adapter.
type fakeBoard struct {
	mu       sync.Mutex
	tasks    map[string]*TaskRecord
	comments []TaskComment
	claims   []TaskClaim
	releases []string // agent ids
	next     int
	failNext error
}

func newFakeBoard(tasks ...TaskRecord) *fakeBoard {
	f := &fakeBoard{tasks: map[string]*TaskRecord{}}
	for _, t := range tasks {
		f.put(t)
	}
	return f
}

func (f *fakeBoard) put(t TaskRecord) {
	if t.Status == "" {
		t.Status = "todo"
	}
	t.View = map[string]string{"id": t.ID, "teamId": t.TeamID, "status": t.Status, "assignee": t.AssigneeAgentID}
	f.tasks[t.ID] = &t
}

func (f *fakeBoard) get(id string) (TaskRecord, error) {
	t, ok := f.tasks[id]
	if !ok {
		return TaskRecord{}, &BoardError{Code: CodeNotFound, Msg: "task '" + id + "': not found"}
	}
	return *t, nil
}

func (f *fakeBoard) List(_ context.Context, flt TaskFilter) ([]TaskRecord, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []TaskRecord
	for _, t := range f.tasks {
		if (flt.TeamID == "" || t.TeamID == flt.TeamID) && (len(flt.Statuses) == 0 || slices.Contains(flt.Statuses, t.Status)) {
			out = append(out, *t)
		}
	}
	slices.SortFunc(out, func(a, b TaskRecord) int { return strings.Compare(a.ID, b.ID) })
	return out, "", nil
}

func (f *fakeBoard) Get(_ context.Context, id string) (TaskRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.get(id)
}

func (f *fakeBoard) Comments(context.Context, string) (any, error) { return []any{}, nil }

func (f *fakeBoard) Create(_ context.Context, n NewTask) (TaskRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failNext; err != nil {
		f.failNext = nil
		return TaskRecord{}, err
	}
	f.next++
	f.put(TaskRecord{ID: fmt.Sprint("new-", f.next), TeamID: n.TeamID, ParentID: n.ParentID, Status: n.Status})
	return f.get(fmt.Sprint("new-", f.next))
}

func (f *fakeBoard) Claim(_ context.Context, id string, c TaskClaim) (TaskRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, err := f.get(id)
	if err != nil {
		return t, err
	}
	if t.Status != "todo" {
		return t, &BoardError{Code: CodeConflict, Msg: "conflict"}
	}
	f.claims = append(f.claims, c)
	t.Status, t.AssigneeAgentID = "in_progress", c.AgentID
	f.put(t)
	return f.get(id)
}

func (f *fakeBoard) Release(_ context.Context, id, agentID, _ string) (TaskRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.releases = append(f.releases, agentID)
	return f.get(id)
}

func (f *fakeBoard) SetStatus(_ context.Context, id, status string) (TaskRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, err := f.get(id)
	if err != nil {
		return t, err
	}
	t.Status = status
	f.put(t)
	return f.get(id)
}

func (f *fakeBoard) AddComment(_ context.Context, id string, c TaskComment) (any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.get(id); err != nil {
		return nil, err
	}
	f.comments = append(f.comments, c)
	return c, nil
}

func (f *fakeBoard) Link(_ context.Context, id, dep string) (TaskRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id == dep {
		return TaskRecord{}, &BoardError{Code: CodeCycle, Msg: "task dependency cycle"}
	}
	return f.get(id)
}

// session opens an in-process Tasks session on a hub over fb.
func session(t *testing.T, h *Hub, b Binding) *Session {
	t.Helper()
	s, err := h.Session(context.Background(), Tasks, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// result calls a tool and returns its text, whether it is a tool error,
// and its _meta.denied code; a protocol error fails the test.
func result(t *testing.T, s *Session, name string, args map[string]any) (text string, isErr bool, code string) {
	t.Helper()
	res, err := s.CallTool(context.Background(), name, args)
	text = callText(t, res, err)
	if res.Meta != nil {
		code, _ = res.Meta.AdditionalFields["denied"].(string)
	}
	return text, res.IsError, code
}

func fakeTeams() *fakeBoard {
	return newFakeBoard(TaskRecord{ID: "a1", TeamID: "team-a"}, TaskRecord{ID: "a2", TeamID: "team-a", ParentID: "a1"},
		TaskRecord{ID: "b1", TeamID: "team-b"}, TaskRecord{ID: "none"})
}

func TestTasksReadOnlySessionSeesTwoTools(t *testing.T) {
	h := newTestHub(t, Options{Board: fakeTeams()})
	ro := session(t, h, Binding{TeamID: "team-a", ReadOnly: true})
	tools, err := ro.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"get_task", "list_tasks"}) {
		t.Fatalf("a read-only session sees %v", names)
	}
	if text, isErr, _ := result(t, ro, "get_task", map[string]any{"taskId": "a1"}); isErr {
		t.Fatal(text)
	}
	// A hidden tool cannot be called either (mcp-go's filter refuses it)…
	if _, err := ro.CallTool(context.Background(), "claim_task", map[string]any{"taskId": "a1", "assigneeAgentId": "x"}); err == nil {
		t.Fatal("a read-only session called claim_task")
	}
	// …and the handler itself refuses, should the filter ever let it by.
	rw := session(t, h, Binding{})
	tools, _ = rw.ListTools(context.Background())
	if len(tools) != 13 { // 12 tools and the test hub's whoami
		t.Fatalf("a read-write session sees %d tools", len(tools))
	}
	ctx := toolcall.WithCaller(context.Background(), Caller{Binding: Binding{ReadOnly: true}})
	for _, st := range (&tasksServer{h: h, board: fakeTeams(), roots: newRateWindow(rootCap, rootWindow)}).tools() {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = st.Tool.Name, map[string]any{"taskId": "a1"}
		res, err := st.Handler(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		refused := res.IsError && res.Meta != nil && res.Meta.AdditionalFields["denied"] == "read_only"
		if refused == readTools[st.Tool.Name] {
			t.Errorf("%s: read-only refusal %v", st.Tool.Name, refused)
		}
	}
}

func TestTasksWithoutABoard(t *testing.T) {
	h := newTestHub(t, Options{})
	s := session(t, h, Binding{})
	tools, _ := s.ListTools(context.Background())
	for _, tl := range tools {
		if tl.Name == "whoami" {
			continue
		}
		text, isErr, _ := result(t, s, tl.Name, nil)
		if !isErr || text != "the board is not available" {
			t.Errorf("%s: %q", tl.Name, text)
		}
	}
}

func TestTasksRefuseBadArguments(t *testing.T) {
	h := newTestHub(t, Options{Board: fakeTeams()})
	s := session(t, h, Binding{})
	long := strings.Repeat("x", 129)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"get_task", nil, "taskId is required"},
		{"get_task", map[string]any{"taskId": "a b"}, "taskId must be an id"},
		{"get_task", map[string]any{"taskId": long}, "taskId must be an id"},
		{"get_task", map[string]any{"taskId": 7}, "cannot unmarshal number"},
		{"get_task", map[string]any{"taskId": "a1", "agentId": "x"}, `unknown field "agentId"`},
		{"list_tasks", map[string]any{"status": "todo,finished"}, `unknown status "finished"`},
		{"list_tasks", map[string]any{"ready": "yes"}, "cannot unmarshal string"},
		{"list_tasks", map[string]any{"teamId": "t\x00"}, "teamId must be an id"},
		{"create_task", map[string]any{"title": "  "}, "title is required"},
		{"create_task", map[string]any{"title": strings.Repeat("é", 501)}, "title is longer than 500"},
		{"create_task", map[string]any{"title": "t", "description": strings.Repeat("x", 20001)}, "description is longer"},
		{"create_task", map[string]any{"title": "t", "status": "done"}, `starts in todo or backlog, not "done"`},
		{"create_task", map[string]any{"title": "t", "priority": 1001}, "priority must be between"},
		{"create_task", map[string]any{"title": "t", "priority": 1.5}, "cannot unmarshal number 1.5"},
		{"create_task", map[string]any{"title": "t", "parentTaskId": "../x"}, "parentTaskId must be an id"},
		{"create_subtask", map[string]any{"title": "t"}, "parentTaskId is required"},
		{"claim_task", map[string]any{"taskId": "a1"}, "assigneeAgentId is required"},
		{"claim_task", map[string]any{"taskId": "a1", "assigneeAgentId": "a/b"}, "assigneeAgentId must be an id"},
		{"update_task_status", map[string]any{"taskId": "a1", "status": "finished"}, `unknown status "finished"`},
		{"add_comment", map[string]any{"taskId": "a1", "body": " "}, "body is required"},
		{"add_comment", map[string]any{"taskId": "a1", "body": "x", "authorType": "robot"}, "authorType must be"},
		{"add_comment", map[string]any{"taskId": "a1", "body": strings.Repeat("x", 20001)}, "body is longer"},
		{"link_task", map[string]any{"taskId": "a1"}, "dependsOnTaskId is required"},
	} {
		t.Run(tc.tool+"/"+tc.want, func(t *testing.T) {
			text, isErr, code := result(t, s, tc.tool, tc.args)
			if !isErr || code != "invalid_args" || !strings.HasPrefix(text, "invalid args: ") || !strings.Contains(text, tc.want) {
				t.Fatalf("%v %q %q", isErr, code, text)
			}
		})
	}
}

func TestTasksTeamBindingHidesOtherTeams(t *testing.T) {
	fb := fakeTeams()
	h := newTestHub(t, Options{Board: fb})
	s := session(t, h, Binding{TeamID: "team-a", AgentID: "alice"})
	for _, tc := range []struct {
		tool string
		args map[string]any
		code string
	}{
		{"get_task", map[string]any{"taskId": "b1"}, "not_found"},
		{"get_task", map[string]any{"taskId": "none"}, "not_found"},
		{"get_task", map[string]any{"taskId": "missing"}, "not_found"},
		{"claim_task", map[string]any{"taskId": "b1"}, "not_found"},
		{"assign_task", map[string]any{"taskId": "b1"}, "not_found"},
		{"release_task", map[string]any{"taskId": "b1"}, "not_found"},
		{"update_task_status", map[string]any{"taskId": "b1", "status": "blocked"}, "not_found"},
		{"block_task", map[string]any{"taskId": "b1"}, "not_found"},
		{"unblock_task", map[string]any{"taskId": "b1"}, "not_found"},
		{"add_comment", map[string]any{"taskId": "b1", "body": "hi"}, "not_found"},
		{"link_task", map[string]any{"taskId": "a1", "dependsOnTaskId": "b1"}, "not_found"},
		{"link_task", map[string]any{"taskId": "b1", "dependsOnTaskId": "a1"}, "not_found"},
		{"create_subtask", map[string]any{"parentTaskId": "b1", "title": "sneak"}, "parent_not_found"},
		{"create_task", map[string]any{"parentTaskId": "b1", "title": "sneak"}, "parent_not_found"},
		{"create_task", map[string]any{"title": "elsewhere", "teamId": "team-b"}, "foreign_team"},
		{"list_tasks", map[string]any{"teamId": "team-b"}, "foreign_team"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			text, isErr, code := result(t, s, tc.tool, tc.args)
			if !isErr || code != tc.code {
				t.Fatalf("%v %q %q", isErr, code, text)
			}
			if tc.code == "not_found" && !strings.HasPrefix(text, "task not found: ") {
				t.Fatalf("a foreign task must read as a missing one: %q", text)
			}
		})
	}
	// A missing task and a foreign one answer alike.
	missing, _, _ := result(t, s, "get_task", map[string]any{"taskId": "zz"})
	foreign, _, _ := result(t, s, "get_task", map[string]any{"taskId": "b1"})
	if strings.ReplaceAll(missing, "zz", "b1") != foreign {
		t.Fatalf("%q vs %q", missing, foreign)
	}
	if len(fb.claims)+len(fb.releases)+len(fb.comments) != 0 || fb.next != 0 {
		t.Fatal("a refused call reached the board")
	}
	// list_tasks is forced to the team; create_task goes into it.
	text, _, _ := result(t, s, "list_tasks", nil)
	if !strings.Contains(text, `"a1"`) || strings.Contains(text, `"b1"`) || strings.Contains(text, `"none"`) {
		t.Fatal(text)
	}
	for _, args := range []map[string]any{{"title": "mine"}, {"title": "mine too", "teamId": "team-a"}} {
		if text, isErr, _ := result(t, s, "create_task", args); isErr || !strings.Contains(text, `"teamId":"team-a"`) {
			t.Fatal(text)
		}
	}
	// Own team's subtasks are fine, and get_task climbs to the root.
	if text, isErr, _ := result(t, s, "create_subtask", map[string]any{"parentTaskId": "a1", "title": "ok"}); isErr {
		t.Fatal(text)
	}
	text, _, _ = result(t, s, "get_task", map[string]any{"taskId": "a2"})
	var got struct{ Ancestors []map[string]string }
	if err := json.Unmarshal([]byte(text), &got); err != nil || len(got.Ancestors) != 1 || got.Ancestors[0]["id"] != "a1" {
		t.Fatalf("%s %v", text, err)
	}
}

func TestTasksIdentityComesFromTheBinding(t *testing.T) {
	fb := fakeTeams()
	h := newTestHub(t, Options{Board: fb})
	s := session(t, h, Binding{TeamID: "team-a", AgentID: "alice"})
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"claim_task", map[string]any{"taskId": "a1", "assigneeAgentId": "mallory"}},
		{"assign_task", map[string]any{"taskId": "a1", "assigneeAgentId": "mallory"}},
		{"add_comment", map[string]any{"taskId": "a1", "body": "hi", "authorAgentId": "mallory"}},
		{"add_comment", map[string]any{"taskId": "a1", "body": "hi", "authorType": "user"}},
		{"add_comment", map[string]any{"taskId": "a1", "body": "hi", "authorType": "system"}},
	} {
		text, isErr, code := result(t, s, tc.tool, tc.args)
		if !isErr || code != "identity_mismatch" || !strings.Contains(text, "alice") {
			t.Errorf("%s %v: %v %q %q", tc.tool, tc.args, isErr, code, text)
		}
	}
	if len(fb.claims)+len(fb.comments) != 0 {
		t.Fatal("a spoofed call reached the board")
	}
	// Naming oneself, or no one, acts as the bound agent.
	result(t, s, "add_comment", map[string]any{"taskId": "a1", "body": "hi"})
	result(t, s, "add_comment", map[string]any{"taskId": "a1", "body": "hi", "authorAgentId": "alice", "authorType": "agent"})
	result(t, s, "claim_task", map[string]any{"taskId": "a1"})
	result(t, s, "release_task", map[string]any{"taskId": "a1"})
	want := TaskComment{AuthorType: "agent", AuthorID: "alice", Body: "hi"}
	if len(fb.comments) != 2 || fb.comments[0] != want || fb.comments[1] != want {
		t.Fatalf("%+v", fb.comments)
	}
	if len(fb.claims) != 1 || fb.claims[0].AgentID != "alice" || !slices.Equal(fb.releases, []string{"alice"}) {
		t.Fatalf("%+v %v", fb.claims, fb.releases)
	}
	// Unbound, the arguments name the agent.
	u := session(t, h, Binding{})
	result(t, u, "claim_task", map[string]any{"taskId": "b1", "assigneeAgentId": "bob", "assigneeRuntime": "codex"})
	if fb.claims[1] != (TaskClaim{AgentID: "bob", Runtime: "codex"}) {
		t.Fatalf("%+v", fb.claims)
	}
	// A lost claim is the conflict agents must not retry.
	text, isErr, code := result(t, u, "claim_task", map[string]any{"taskId": "b1", "assigneeAgentId": "carol"})
	if !isErr || code != "conflict" || text != conflictText {
		t.Fatalf("%v %q %q", isErr, code, text)
	}
}

func TestTasksRootCreateCap(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	fb := fakeTeams()
	h := newTestHub(t, Options{Board: fb, Now: clock})
	a := session(t, h, Binding{TeamID: "team-a", AgentID: "alice"})
	a2 := session(t, h, Binding{TeamID: "team-a", AgentID: "bob"}) // same team, same budget
	b := session(t, h, Binding{TeamID: "team-b"})
	create := func(s *Session, args map[string]any) (string, bool, string) {
		return result(t, s, "create_task", args)
	}
	// A create the board refuses spends nothing.
	fb.failNext = &BoardError{Code: "invalid", Msg: "nope"}
	if _, isErr, code := create(a, map[string]any{"title": "x"}); !isErr || code != "invalid_args" {
		t.Fatal(code)
	}
	for i := range rootCap {
		s := a
		if i%2 == 1 {
			s = a2
		}
		if text, isErr, _ := create(s, map[string]any{"title": fmt.Sprint("root ", i)}); isErr {
			t.Fatalf("create %d: %s", i, text)
		}
		advance(time.Second)
	}
	text, isErr, code := create(a, map[string]any{"title": "one too many"})
	if !isErr || code != "root_rate_cap" || !strings.Contains(text, "team 'team-a'") || !strings.Contains(text, "subtasks") {
		t.Fatalf("%v %q %q", isErr, code, text)
	}
	// Subtasks are not root creates; another team has its own budget.
	if text, isErr, _ := create(a, map[string]any{"title": "child", "parentTaskId": "a1"}); isErr {
		t.Fatal(text)
	}
	if text, isErr, _ := create(b, map[string]any{"title": "theirs"}); isErr {
		t.Fatal(text)
	}
	// The window rolls: once the first create is 5 minutes old, one more fits.
	advance(rootWindow - rootCap*time.Second - time.Millisecond)
	if _, isErr, _ := create(a, map[string]any{"title": "still capped"}); !isErr {
		t.Fatal("the window rolled early")
	}
	advance(time.Millisecond)
	if text, isErr, _ := create(a, map[string]any{"title": "fits again"}); isErr {
		t.Fatal(text)
	}
	if _, isErr, _ := create(a, map[string]any{"title": "but only one"}); !isErr {
		t.Fatal("the window let two in")
	}
}

func TestRateWindowKeysAndRetry(t *testing.T) {
	w := newRateWindow(2, time.Minute)
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		key  string
		at   time.Duration
		ok   bool
		wait time.Duration
	}{
		{"k", 0, true, 0},
		{"k", 10 * time.Second, true, 0},
		{"k", 20 * time.Second, false, 40 * time.Second},
		{"other", 20 * time.Second, true, 0},
		{"k", time.Minute, true, 0},
		{"k", time.Minute, false, 10 * time.Second},
	} {
		ok, wait := w.take(tc.key, t0.Add(tc.at))
		if ok != tc.ok || wait != tc.wait {
			t.Fatalf("%+v: %v %v", tc, ok, wait)
		}
	}
	w.undo("k", t0.Add(time.Minute))
	if ok, _ := w.take("k", t0.Add(time.Minute)); !ok {
		t.Fatal("undo did not give the place back")
	}
	if rootKey(Caller{}) != "unbound" || rootKey(Caller{Binding: Binding{AgentID: "a"}}) != "agent:a" ||
		rootKey(Caller{Binding: Binding{TeamID: "t", AgentID: "a"}}) != "team:t" {
		t.Fatal("root keys")
	}
}

func TestTasksBoardRefusalsAreToolErrors(t *testing.T) {
	fb := fakeTeams()
	h := newTestHub(t, Options{Board: fb})
	s := session(t, h, Binding{})
	if text, isErr, code := result(t, s, "link_task", map[string]any{"taskId": "a1", "dependsOnTaskId": "a1"}); !isErr || code != "cycle" {
		t.Fatalf("%q %q", code, text)
	}
	fb.failNext = errors.New("disk on fire")
	text, isErr, _ := result(t, s, "create_task", map[string]any{"title": "x"})
	if !isErr || !strings.Contains(text, "internal error: disk on fire") {
		t.Fatal(text)
	}
	// unblock moves only a blocked task.
	if text, isErr, code := result(t, s, "unblock_task", map[string]any{"taskId": "a1"}); !isErr || code != "illegal_transition" ||
		!strings.HasPrefix(text, "status change failed: ") {
		t.Fatalf("%q %q", code, text)
	}
}
