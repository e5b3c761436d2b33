package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/board"
)

// runTask runs a task on the mock and returns it as its run left it.
func (f *fixture) runTask(t *testing.T, id string) board.Task {
	t.Helper()
	code, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"taskId":"`+id+`"}`)
	if code != 200 {
		t.Fatal(code, string(b))
	}
	res := decode[runResult](t, b)
	if res.Task == nil {
		t.Fatalf("no task in %s", b)
	}
	return *res.Task
}

func (f *fixture) comments(t *testing.T, id string) string {
	t.Helper()
	cs, err := f.board.Comments(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, c := range cs {
		all = append(all, c.Body)
	}
	return strings.Join(all, "\n---\n")
}

// Issue 25 §2: a task cut from main merges into main although the person
// switched the checkout to another branch meanwhile; the checkout is never
// switched and its branch and files stay as they were.
func TestMergeGoesIntoTheRecordedBaseBranch(t *testing.T) {
	f := newFixture(t, nil)
	repo := gitRepo(t)
	task := reviewedTask(t, f, repo, `!write hello.txt hi`)
	if got, _ := f.board.Get(t.Context(), task.ID); got.BaseBranch == nil || *got.BaseBranch != "main" {
		t.Fatalf("base branch not recorded: %v", got.BaseBranch)
	}
	gitIn(t, repo, "switch", "-q", "-c", "my-feature")
	if err := os.WriteFile(filepath.Join(repo, "feature.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "add", "feature.txt")
	gitIn(t, repo, "commit", "-qm", "my feature")
	feature := gitIn(t, repo, "rev-parse", "my-feature")

	code, _, b := f.do(t, "GET", "/api/board/"+task.ID+"/branches", "")
	br := decode[struct {
		Base     *string
		Branches []string
	}](t, b)
	if code != 200 || br.Base == nil || *br.Base != "main" || !reflect.DeepEqual(br.Branches, []string{"main", "my-feature"}) {
		t.Fatal(code, string(b))
	}
	code, _, b = f.do(t, "POST", "/api/board/"+task.ID+"/merge", `{}`)
	res := decode[struct {
		Task  board.Task
		Merge struct{ Base, How, Commit, Checkout string }
	}](t, b)
	if code != 200 || res.Merge.Base != "main" || res.Merge.Checkout != "" || res.Task.Merged == nil || res.Task.Merged.Base != "main" {
		t.Fatal(code, string(b))
	}
	if gitIn(t, repo, "show", "main:hello.txt") != "hi" {
		t.Fatal("main lacks the change")
	}
	if head := gitIn(t, repo, "symbolic-ref", "HEAD"); head != "refs/heads/my-feature" {
		t.Fatalf("checkout switched to %s", head)
	}
	if gitIn(t, repo, "rev-parse", "my-feature") != feature || gitIn(t, repo, "status", "--porcelain") != "" {
		t.Fatal("my-feature or its checkout changed")
	}
	if _, err := os.Stat(filepath.Join(repo, "hello.txt")); !os.IsNotExist(err) {
		t.Fatal("the change was written into a checkout of another branch")
	}
}

func TestBaseBranchChosenAndOverridden(t *testing.T) {
	f := newFixture(t, nil)
	repo := gitRepo(t)
	gitIn(t, repo, "branch", "release")
	gitIn(t, repo, "branch", "clawboo/not-a-base")
	// New Task's choice is checked against the repository.
	for _, bad := range []string{"nope", "clawboo/not-a-base", "--force"} {
		code, _, b := f.do(t, "POST", "/api/board", `{"title":"t","repoPath":"`+repo+`","baseBranch":"`+bad+`"}`)
		if code != 400 {
			t.Fatal(bad, code, string(b))
		}
	}
	task := f.createTask(t, `{"title":"add hello","description":"!ok done\n!write hello.txt hi","repoPath":"`+repo+`","baseBranch":"release"}`)
	if task.BaseBranch == nil || *task.BaseBranch != "release" {
		t.Fatalf("created %+v", task.BaseBranch)
	}
	code, _, b := f.do(t, "PATCH", "/api/board/"+task.ID, `{"baseBranch":"nope"}`)
	if code != 400 {
		t.Fatal(code, string(b))
	}
	if got := f.runTask(t, task.ID); got.Status != board.InReview || *got.BaseBranch != "release" {
		t.Fatalf("run left %s on %v", got.Status, got.BaseBranch)
	}
	// The person's choice stays; the merge body overrides it once.
	code, _, b = f.do(t, "GET", "/api/board/"+task.ID+"/branches", "")
	if code != 200 || !strings.Contains(string(b), `"base":"release"`) {
		t.Fatal(code, string(b))
	}
	code, _, b = f.do(t, "POST", "/api/board/"+task.ID+"/merge", `{"base":"main"}`)
	if code != 200 || !strings.Contains(string(b), `"base":"main"`) {
		t.Fatal(code, string(b))
	}
	if gitIn(t, repo, "rev-parse", "release") == gitIn(t, repo, "rev-parse", "main") {
		t.Fatal("release moved")
	}
}

// Issue 25 §1: a verified change waits in review, ready to merge; a task
// that says merge when green is merged by Clawboo and done; a conflict
// leaves it in review, naming the files.
func TestVerifiedChangeLandsOnlyWhenAsked(t *testing.T) {
	f := newFixture(t, nil)
	repo := gitRepo(t)
	green := f.createTask(t, `{"title":"green","description":"!ok done\n!write a.txt a","repoPath":"`+repo+`","verifyCommand":"true"}`)
	got := f.runTask(t, green.ID)
	if got.Status != board.InReview || got.Verification == nil || !got.Verification.Passed || got.Merged != nil {
		t.Fatalf("verified change: %s %+v", got.Status, got.Merged)
	}
	if _, err := os.Stat(filepath.Join(repo, "a.txt")); !os.IsNotExist(err) {
		t.Fatal("merged without being asked")
	}

	auto := f.createTask(t, `{"title":"Add b","description":"!ok done\n!write b.txt b","repoPath":"`+repo+`","verifyCommand":"true","mergeWhenGreen":true}`)
	got = f.runTask(t, auto.ID)
	if got.Status != board.Done || got.Merged == nil || got.Merged.Base != "main" {
		t.Fatalf("merge when green: %s %+v\n%s", got.Status, got.Merged, f.comments(t, auto.ID))
	}
	if gitIn(t, repo, "show", "main:b.txt") != "b" || gitIn(t, repo, "rev-parse", "main") != got.Merged.Commit {
		t.Fatal("main lacks the change")
	}
	if all := f.comments(t, auto.ID); !strings.Contains(all, "Merged into main") || !strings.Contains(all, "merge when green") {
		t.Fatalf("comments:\n%s", all)
	}

	// Main moves under the task with a conflicting edit (the verify
	// command makes it, between the run and the merge).
	userEdit := `printf 'user\n' > '` + repo + `/README.md' && git -C '` + repo + `' -c user.name=u -c user.email=u@u commit -qam user`
	conflict := f.createTask(t, `{"title":"conflict","description":"!ok done\n!write README.md agent","repoPath":"`+repo+`","mergeWhenGreen":true,"verifyCommand":`+jsonString(userEdit)+`}`)
	got = f.runTask(t, conflict.ID)
	all := f.comments(t, conflict.ID)
	if got.Status != board.InReview || got.Merged != nil || !strings.Contains(all, "did not merge it") || !strings.Contains(all, "Files: README.md") {
		t.Fatalf("conflict: %s\n%s", got.Status, all)
	}
}

// Tasks an earlier build left done and unmerged, their branch still
// there, can be merged: they stay done and record the merge.
func TestDoneUnmergedTaskCanBeMerged(t *testing.T) {
	f := newFixture(t, nil)
	repo := gitRepo(t)
	task := reviewedTask(t, f, repo, `!write hello.txt hi`)
	// What the old build did after a green verify: done, branch kept.
	if _, err := f.st.Write().ExecContext(t.Context(), `UPDATE tasks SET status = 'done', base_branch = NULL, completed_at = 1 WHERE id = ?`, task.ID); err != nil {
		t.Fatal(err)
	}
	code, _, b := f.do(t, "PATCH", "/api/board/"+task.ID, `{"status":"in_review"}`)
	if code != 409 {
		t.Fatal("done is final for moves:", code, string(b))
	}
	code, _, b = f.do(t, "POST", "/api/board/"+task.ID+"/merge", `{}`)
	res := decode[struct{ Task board.Task }](t, b)
	if code != 200 || res.Task.Status != board.Done || res.Task.Merged == nil || res.Task.Merged.Base != "main" {
		t.Fatal(code, string(b))
	}
	if gitIn(t, repo, "show", "main:hello.txt") != "hi" {
		t.Fatal("main lacks the change")
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestBranchesBeforeAWorktreeAndWithoutARepository(t *testing.T) {
	f := newFixture(t, nil)
	repo := gitRepo(t)
	gitIn(t, repo, "switch", "-q", "-c", "topic")
	task := f.createTask(t, `{"title":"later","repoPath":"`+repo+`"}`)
	code, _, b := f.do(t, "GET", "/api/board/"+task.ID+"/branches", "")
	if code != 200 || !strings.Contains(string(b), `"base":"topic"`) || !strings.Contains(string(b), `"branches":["main","topic"]`) {
		t.Fatal(code, string(b))
	}
	none := f.createTask(t, `{"title":"no repo","kind":"research"}`)
	code, _, b = f.do(t, "GET", "/api/board/"+none.ID+"/branches", "")
	if code != 409 || decode[reasoned](t, b).Reason != "no_repository" {
		t.Fatal(code, string(b))
	}
}
