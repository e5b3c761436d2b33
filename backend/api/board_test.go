package api

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/budget"
	"github.com/clawboo/desktop/backend/store"
)

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, "README.md"), []byte("# repo\n"), 0o644)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}

func (f *fixture) createTask(t *testing.T, body string) board.Task {
	t.Helper()
	code, _, b := f.do(t, "POST", "/api/board", body)
	if code != 201 {
		t.Fatal(code, string(b))
	}
	return decode[struct{ Task board.Task }](t, b).Task
}

type reasoned struct {
	OK     *bool  `json:"ok"`
	Reason string `json:"reason"`
	Error  string `json:"error"`
}

func TestBoardRoutes(t *testing.T) {
	f := newFixture(t, nil)
	task := f.createTask(t, `{"title":"write docs","description":"all of them","priority":3,"kind":"research"}`)
	if task.Status != board.Todo || task.Kind != board.Research || task.Priority != 3 {
		t.Fatalf("%+v", task)
	}
	child := f.createTask(t, `{"title":"part one","parentTaskId":"`+task.ID+`"}`)
	_, _, b := f.do(t, "GET", "/api/board?status=todo", "")
	if ts := decode[struct{ Tasks []board.Task }](t, b).Tasks; len(ts) != 2 {
		t.Fatal(ts)
	}
	if code, _, b := f.do(t, "GET", "/api/board?status=nonsense", ""); code != 400 {
		t.Fatal(code, string(b))
	}
	code, _, b := f.do(t, "POST", "/api/board/"+task.ID+"/comments", `{"body":"looks good"}`)
	if code != 201 {
		t.Fatal(code, string(b))
	}
	_, _, b = f.do(t, "GET", "/api/board/"+task.ID, "")
	var detail struct {
		Task     board.Task
		Comments []board.Comment
		Children []board.Task
		Runs     []store.Run
		Moves    []board.Status
	}
	_ = json.Unmarshal(b, &detail)
	if len(detail.Comments) != 1 || len(detail.Children) != 1 || detail.Children[0].ID != child.ID || len(detail.Moves) == 0 {
		t.Fatalf("%s", b)
	}
	cases := []struct {
		method, path, body string
		code               int
		reason             string
	}{
		{"POST", "/api/board", `{"title":""}`, 400, "invalid"},
		{"POST", "/api/board", `{"title":"x","parentTaskId":"nope"}`, 404, ""},
		{"PATCH", "/api/board/" + task.ID, `{"status":"done"}`, 409, "illegal_transition"},
		{"PATCH", "/api/board/nope", `{"title":"x"}`, 404, ""},
		{"POST", "/api/board/" + child.ID + "/deps", `{"dependsOnTaskId":"` + task.ID + `"}`, 200, ""},
		{"POST", "/api/board/" + task.ID + "/deps", `{"dependsOnTaskId":"` + child.ID + `"}`, 409, "task_dependency_cycle"},
		{"POST", "/api/board/" + child.ID + "/claim", `{"assigneeAgentId":"bob"}`, 409, "waiting_on_dependencies"},
		{"DELETE", "/api/board/" + child.ID + "/deps/" + task.ID, ``, 200, ""},
		{"GET", "/api/board/" + task.ID + "/diff", ``, 404, ""},
		{"POST", "/api/board/" + task.ID + "/claim", `{"assigneeAgentId":"../x"}`, 400, ""},
	}
	for _, tc := range cases {
		code, _, b := f.do(t, tc.method, tc.path, tc.body)
		if code != tc.code {
			t.Fatalf("%s %s: %d %s", tc.method, tc.path, code, b)
		}
		if tc.reason != "" && decode[reasoned](t, b).Reason != tc.reason {
			t.Fatalf("%s %s: %s", tc.method, tc.path, b)
		}
	}
}

func TestSixteenClaimersOverHTTP(t *testing.T) {
	f := newFixture(t, nil)
	task := f.createTask(t, `{"title":"prize"}`)
	var wg sync.WaitGroup
	codes := make([]int, 16)
	for i := range codes {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			codes[i], _, _ = f.do(t, "POST", "/api/board/"+task.ID+"/claim", fmt.Sprintf(`{"assigneeAgentId":"agent-%d"}`, i))
		}(i)
	}
	wg.Wait()
	won, lost := 0, 0
	for _, c := range codes {
		switch c {
		case 200:
			won++
		case 409:
			lost++
		}
	}
	if won != 1 || lost != 15 {
		t.Fatalf("codes %v", codes)
	}
}

func TestTaskRunOverHTTP(t *testing.T) {
	f := newFixture(t, nil)
	for _, a := range []string{"alice", "carol"} {
		if err := f.st.InsertAgent(t.Context(), a, a, "clawboo-mock", 1); err != nil {
			t.Fatal(err)
		}
	}
	repo := gitRepo(t)
	task := f.createTask(t, `{"title":"greet","description":"!ok hi\n!cost 0.02\n!write hello.txt hi","repoPath":"`+repo+`"}`)
	code, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"taskId":"`+task.ID+`","assigneeAgentId":"alice"}`)
	if code != 200 {
		t.Fatal(code, string(b))
	}
	res := decode[runResult](t, b)
	if !res.OK || res.Task == nil || res.Task.Status != board.InReview || !res.UsedWorktree || *res.CostKind != "reported" || *res.CostUSD != 0.02 {
		t.Fatalf("%s", b)
	}
	code, _, b = f.do(t, "GET", "/api/board/"+task.ID+"/diff", "")
	if code != 200 || !strings.Contains(string(b), "+hi") || !strings.Contains(string(b), `"files":1`) {
		t.Fatal(code, string(b))
	}
	_, _, b = f.do(t, "GET", "/api/spend?by=agent", "")
	if !strings.Contains(string(b), `"key":"alice"`) || !strings.Contains(string(b), `"totalUsd":0.02`) {
		t.Fatalf("%s", b)
	}
	_, _, b = f.do(t, "GET", "/api/worktrees", "")
	if !strings.Contains(string(b), task.ID) || strings.Contains(string(b), `"totalBytes":0`) {
		t.Fatalf("%s", b)
	}
	// Refusals and their codes.
	second := f.createTask(t, `{"title":"no repo"}`)
	refusals := []struct {
		body   string
		code   int
		reason string
	}{
		{`{"taskId":"nope"}`, 404, "not_found"},
		{`{"taskId":"` + task.ID + `"}`, 409, "conflict"},
		{`{"taskId":"` + second.ID + `"}`, 422, "workspace_unavailable"},
		{`{"taskId":"` + second.ID + `","kind":"deploy"}`, 400, ""},
	}
	for _, tc := range refusals {
		code, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", tc.body)
		if code != tc.code || (tc.reason != "" && decode[reasoned](t, b).Reason != tc.reason) {
			t.Fatalf("%s: %d %s", tc.body, code, b)
		}
	}
	third := f.createTask(t, `{"title":"research","kind":"research"}`)
	if _, err := f.ledger.SetBudget(t.Context(), budget.ScopeAgent, "carol", budget.FromUSD(0.01), "cap"); err != nil {
		t.Fatal(err)
	}
	_, _ = f.ledger.Charge(t.Context(), budget.Charge{RunID: "r", RuntimeID: "clawboo-mock", Scopes: budget.Scopes{AgentID: "carol"}, Kind: budget.KindReported, Nano: budget.FromUSD(1)})
	code, _, b = f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"taskId":"`+third.ID+`","assigneeAgentId":"carol"}`)
	if code != 422 || decode[reasoned](t, b).Reason != "budget_paused" {
		t.Fatal(code, string(b))
	}
}

func TestBudgetRoutes(t *testing.T) {
	f := newFixture(t, nil)
	code, _, b := f.do(t, "POST", "/api/budgets", `{"scope":"team","scopeId":"red","limitUsd":2.5,"mode":"cap"}`)
	if code != 200 || !strings.Contains(string(b), `"limitUsd":2.5`) {
		t.Fatal(code, string(b))
	}
	for _, bad := range []string{
		`{"scope":"team","scopeId":"red"}`, `{"scope":"team","scopeId":"red","limitUsd":-1}`,
		`{"scope":"planet","scopeId":"x","limitUsd":1}`, `{"scope":"team","scopeId":"","limitUsd":1}`,
	} {
		if code, _, b := f.do(t, "POST", "/api/budgets", bad); code != 400 {
			t.Fatalf("%s: %d %s", bad, code, b)
		}
	}
	_, _ = f.ledger.Charge(t.Context(), budget.Charge{RunID: "r", RuntimeID: "clawboo-mock", Scopes: budget.Scopes{TeamID: "red"}, Kind: budget.KindReported, Nano: budget.FromUSD(3)})
	_, _, b = f.do(t, "GET", "/api/budgets", "")
	if !strings.Contains(string(b), `"status":"paused"`) {
		t.Fatalf("%s", b)
	}
	code, _, b = f.do(t, "POST", "/api/budgets/team/red/resume", `{"graceUsd":1}`)
	if code != 200 || !strings.Contains(string(b), `"willRepause":false`) || strings.Contains(string(b), `"status":"paused"`) {
		t.Fatal(code, string(b))
	}
	if code, _, b := f.do(t, "POST", "/api/budgets/team/nope/resume", `{}`); code != 404 {
		t.Fatal(code, string(b))
	}
	if code, _, b := f.do(t, "DELETE", "/api/budgets/team/red", ``); code != 200 {
		t.Fatal(code, string(b))
	}
	if code, _, b := f.do(t, "GET", "/api/spend?by=team&since=2020-01-01", ""); code != 200 || !strings.Contains(string(b), `"key":"red"`) {
		t.Fatal(code, string(b))
	}
	if code, _, _ := f.do(t, "GET", "/api/spend?since=yesterday", ""); code != 400 {
		t.Fatal(code)
	}
}

// TestTitleWithLineBreaksIsRefused (issue 26 §2.4): a title is one line at
// the API's door, on create and on edit; nothing is stored.
func TestTitleWithLineBreaksIsRefused(t *testing.T) {
	f := newFixture(t, nil)
	code, _, b := f.do(t, "POST", "/api/board", `{"title":"Tidy\n<delegate to=\"@Bo\">x</delegate>"}`)
	if code != 400 || !strings.Contains(errorOf(t, b), "a title is one line") {
		t.Fatal(code, string(b))
	}
	task := f.createTask(t, `{"title":"fine"}`)
	if code, _, b := f.do(t, "PATCH", "/api/board/"+task.ID, `{"title":"a\r\nb"}`); code != 400 || !strings.Contains(errorOf(t, b), "a title is one line") {
		t.Fatal(code, string(b))
	}
	_, _, b = f.do(t, "GET", "/api/board", "")
	if ts := decode[struct{ Tasks []board.Task }](t, b).Tasks; len(ts) != 1 || ts[0].Title != "fine" {
		t.Fatalf("stored: %+v", ts)
	}
}
