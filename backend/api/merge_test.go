package api

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/board"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// reviewedTask is a code task whose mock run wrote files and ended in review.
func reviewedTask(t *testing.T, f *fixture, repo, writes string) board.Task {
	t.Helper()
	task := f.createTask(t, `{"title":"add hello","description":"!ok done\n`+writes+`","repoPath":"`+repo+`"}`)
	code, _, b := f.do(t, "POST", "/api/runtimes/clawboo-mock/run", `{"taskId":"`+task.ID+`"}`)
	if code != 200 {
		t.Fatal(code, string(b))
	}
	if res := decode[runResult](t, b); res.Task == nil || res.Task.Status != board.InReview {
		t.Fatalf("not in review: %s", b)
	}
	return task
}

func TestMergeOverHTTP(t *testing.T) {
	f := newFixture(t, nil)
	repo := gitRepo(t)
	task := reviewedTask(t, f, repo, `!write hello.txt hi`)
	rec, err := f.board.Worktree(t.Context(), task.ID)
	if err != nil {
		t.Fatal(err)
	}
	code, _, b := f.do(t, "POST", "/api/board/"+task.ID+"/merge", `{"strategy":"rebase"}`)
	if code != 400 {
		t.Fatal(code, string(b))
	}
	code, _, b = f.do(t, "POST", "/api/board/"+task.ID+"/merge", `{}`)
	if code != 200 {
		t.Fatal(code, string(b))
	}
	res := decode[struct {
		Task  board.Task
		Merge struct{ Base, How, Commit, Checkout string }
	}](t, b)
	if res.Task.Status != board.Done || res.Merge.Base != "main" || res.Merge.How != "ff" {
		t.Fatalf("%s", b)
	}
	if got, err := os.ReadFile(filepath.Join(repo, "hello.txt")); err != nil || strings.TrimSpace(string(got)) != "hi" {
		t.Fatalf("the clean checkout of main was not brought along: %q %v", got, err)
	}
	if _, err := os.Stat(rec.Path); !os.IsNotExist(err) {
		t.Fatal("worktree kept")
	}
	if out := gitIn(t, repo, "branch", "--list", rec.Branch); out != "" {
		t.Fatalf("branch kept: %q", out)
	}
	if gitIn(t, repo, "rev-parse", "main") != res.Merge.Commit {
		t.Fatal("main is not at the merged commit")
	}
	cs, _ := f.board.Comments(t.Context(), task.ID)
	if len(cs) == 0 || !strings.Contains(cs[len(cs)-1].Body, "Merged into main (fast-forward)") {
		t.Fatalf("comments %+v", cs)
	}
	if res.Task.Merged == nil || res.Task.Merged.Base != "main" || res.Task.Merged.Commit != res.Merge.Commit || res.Task.Merged.How != "ff" {
		t.Fatalf("merged record %+v", res.Task.Merged)
	}
	// Merged once: a second merge is refused.
	code, _, b = f.do(t, "POST", "/api/board/"+task.ID+"/merge", `{}`)
	if code != 409 || decode[reasoned](t, b).Reason != "already_merged" {
		t.Fatal(code, string(b))
	}
	code, _, b = f.do(t, "POST", "/api/board/nope/merge", `{}`)
	if code != 404 {
		t.Fatal(code, string(b))
	}
}

func TestMergeConflictOverHTTP(t *testing.T) {
	f := newFixture(t, nil)
	repo := gitRepo(t)
	task := reviewedTask(t, f, repo, `!write README.md agent`)
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("user\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "commit", "-qam", "user")
	code, _, b := f.do(t, "POST", "/api/board/"+task.ID+"/merge", `{"strategy":"squash"}`)
	body := decode[struct {
		Reason, Base string
		Files        []string
	}](t, b)
	if code != 409 || body.Reason != "merge_conflict" || body.Base != "main" || !reflect.DeepEqual(body.Files, []string{"README.md"}) {
		t.Fatal(code, string(b))
	}
	if got, _ := f.board.Get(t.Context(), task.ID); got.Status != board.InReview {
		t.Fatalf("status %s after a refused merge", got.Status)
	}
	// Uncommitted work in a file the change touches is refused in words,
	// naming the file, and left as it is.
	gitIn(t, repo, "reset", "-q", "--hard", "HEAD~1")
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("dirty\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, b = f.do(t, "POST", "/api/board/"+task.ID+"/merge", `{}`)
	body = decode[struct {
		Reason, Base string
		Files        []string
	}](t, b)
	if code != 409 || body.Reason != "checkout_overlap" || !reflect.DeepEqual(body.Files, []string{"README.md"}) {
		t.Fatal(code, string(b))
	}
	if got, _ := os.ReadFile(filepath.Join(repo, "README.md")); string(got) != "dirty\n" {
		t.Fatalf("checkout touched: %q", got)
	}
}

func TestPullRequestOverHTTP(t *testing.T) {
	if _, err := exec.LookPath("gh"); err == nil {
		t.Skip("gh is installed here; the worktree tests cover it with a fake")
	}
	f := newFixture(t, nil)
	repo := gitRepo(t)
	task := reviewedTask(t, f, repo, `!write hello.txt hi`)
	code, _, b := f.do(t, "POST", "/api/board/"+task.ID+"/pr", `{}`)
	if code != 409 || decode[reasoned](t, b).Reason != "no_remote" {
		t.Fatal(code, string(b))
	}
	bare := filepath.Join(t.TempDir(), "remote.git")
	gitIn(t, t.TempDir(), "init", "-q", "--bare", bare)
	gitIn(t, repo, "remote", "add", "origin", bare)
	code, _, b = f.do(t, "POST", "/api/board/"+task.ID+"/pr", `{}`)
	res := decode[struct {
		Pushed               bool
		Remote, Branch, Hint string
		PR                   *struct{ URL string } `json:"pr"`
	}](t, b)
	if code != 200 || !res.Pushed || res.PR != nil || res.Remote != "origin" || !strings.Contains(res.Hint, "gh auth login") || !strings.Contains(res.Hint, res.Branch) {
		t.Fatal(code, string(b))
	}
	if gitIn(t, bare, "rev-parse", "refs/heads/"+res.Branch) != gitIn(t, repo, "rev-parse", res.Branch) {
		t.Fatal("branch did not arrive")
	}
	if got, _ := f.board.Get(t.Context(), task.ID); got.Status != board.InReview {
		t.Fatalf("a push moved the task to %s", got.Status)
	}
}
