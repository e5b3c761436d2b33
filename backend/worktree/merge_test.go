package worktree

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// agentCommit writes files in the task's worktree and commits them there,
// as an agent would.
func agentCommit(t *testing.T, w Worktree, files map[string]string) {
	t.Helper()
	for name, body := range files {
		write(t, filepath.Join(w.Path, name), body)
	}
	git(t, w.Path, "add", "-A")
	git(t, w.Path, "commit", "-qm", "agent work")
}

func wantRefusal(t *testing.T, err error, reason string) *Refusal {
	t.Helper()
	r, ok := IsRefusal(err)
	if !ok || r.Reason != reason {
		t.Fatalf("want a %s refusal, got %v", reason, err)
	}
	return r
}

func TestMergeFastForwardBringsCleanCheckoutAlong(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := provision(t, m, repo, "T1")
	agentCommit(t, w, map[string]string{"feature.txt": "new\n"})
	write(t, filepath.Join(w.Path, "late.txt"), "uncommitted\n") // committed by Merge
	before := git(t, repo, "rev-parse", "main")
	res, err := m.Merge(ctxT(t), w, MergeSpec{})
	if err != nil {
		t.Fatal(err)
	}
	tip := git(t, repo, "rev-parse", w.Branch)
	if res.How != "ff" || res.Base != "main" || res.Previous != before || res.Commit != tip || res.Checkout != repo {
		t.Fatalf("result %+v (tip %s)", res, tip)
	}
	if got := git(t, repo, "rev-parse", "main"); got != tip {
		t.Fatalf("main at %s, want the branch tip %s", got, tip)
	}
	// main is checked out in the user's clean checkout: its files came along.
	if read(t, filepath.Join(repo, "feature.txt")) != "new\n" || read(t, filepath.Join(repo, "late.txt")) != "uncommitted\n" {
		t.Fatal("checkout not brought along")
	}
	if st := git(t, repo, "status", "--porcelain"); st != "" {
		t.Fatalf("checkout left dirty:\n%s", st)
	}
	// Merging again is a no-op.
	if res, err := m.Merge(ctxT(t), w, MergeSpec{}); err != nil || res.How != "none" {
		t.Fatalf("second merge: %+v, %v", res, err)
	}
}

func TestMergeBaseMoved(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		strategy MergeStrategy
		parents  int
	}{{MergeAuto, 2}, {MergeCommit, 2}, {MergeSquash, 1}} {
		t.Run("strategy="+string(tc.strategy), func(t *testing.T) {
			t.Parallel()
			m, _ := newManager(t)
			repo := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
			w := provision(t, m, repo, "T1")
			agentCommit(t, w, map[string]string{"a.txt": "agent\n"})
			write(t, filepath.Join(repo, "b.txt"), "user\n")
			git(t, repo, "commit", "-qam", "user moved main")
			moved := git(t, repo, "rev-parse", "main")

			_, err := m.Merge(ctxT(t), w, MergeSpec{Strategy: MergeFF})
			wantRefusal(t, err, "not_fast_forward")

			res, err := m.Merge(ctxT(t), w, MergeSpec{Strategy: tc.strategy, Message: "Task T1: the title"})
			if err != nil {
				t.Fatal(err)
			}
			if res.How != map[MergeStrategy]string{MergeAuto: "merge", MergeCommit: "merge", MergeSquash: "squash"}[tc.strategy] {
				t.Fatalf("how %q", res.How)
			}
			head := git(t, repo, "rev-parse", "main")
			parents := strings.Fields(git(t, repo, "log", "-1", "--format=%P", "main"))
			if head != res.Commit || len(parents) != tc.parents || parents[0] != moved {
				t.Fatalf("main %s parents %v (moved %s), result %+v", head, parents, moved, res)
			}
			if tc.parents == 2 && parents[1] != git(t, repo, "rev-parse", w.Branch) {
				t.Fatal("second parent is not the task branch")
			}
			if got := git(t, repo, "log", "-1", "--format=%s", "main"); got != "Task T1: the title" {
				t.Fatalf("message %q", got)
			}
			if git(t, repo, "show", "main:a.txt") != "agent" || git(t, repo, "show", "main:b.txt") != "user" {
				t.Fatal("merged tree lacks one side")
			}
			if read(t, filepath.Join(repo, "a.txt")) != "agent\n" {
				t.Fatal("clean checkout of main not brought along")
			}
		})
	}
}

func TestMergeConflictRefusedWithFiles(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, map[string]string{"a.txt": "a\n", "sub dir/é.txt": "x\n", "c.txt": "c\n"})
	w := provision(t, m, repo, "T1")
	agentCommit(t, w, map[string]string{"a.txt": "agent\n", "sub dir/é.txt": "agent\n", "c.txt": "fine\n"})
	write(t, filepath.Join(repo, "a.txt"), "user\n")
	write(t, filepath.Join(repo, "sub dir/é.txt"), "user\n")
	git(t, repo, "commit", "-qam", "user")
	main := git(t, repo, "rev-parse", "main")
	tip := git(t, repo, "rev-parse", w.Branch)
	for _, s := range []MergeStrategy{MergeAuto, MergeSquash} {
		_, err := m.Merge(ctxT(t), w, MergeSpec{Strategy: s})
		r := wantRefusal(t, err, "merge_conflict")
		if !reflect.DeepEqual(r.Files, []string{"a.txt", "sub dir/é.txt"}) {
			t.Fatalf("files %q", r.Files)
		}
	}
	if git(t, repo, "rev-parse", "main") != main || git(t, repo, "rev-parse", w.Branch) != tip {
		t.Fatal("a refused merge moved a branch")
	}
	if st := git(t, repo, "status", "--porcelain"); st != "" || read(t, filepath.Join(repo, "a.txt")) != "user\n" {
		t.Fatalf("checkout touched:\n%s", st)
	}
}

func TestMergeIntoBaseNotCheckedOutLeavesCheckoutAlone(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, map[string]string{"a.txt": "a\n", "notes.txt": "n\n"})
	w := provision(t, m, repo, "T1")
	agentCommit(t, w, map[string]string{"a.txt": "agent\n"})
	dirty := "my edit\r\nnot committed \x00 bytes\n"

	// The user switches to another branch, edit in hand: main is no longer
	// checked out, so only its ref moves; the checkout stays as it was.
	git(t, repo, "switch", "-q", "-c", "mine")
	write(t, filepath.Join(repo, "notes.txt"), dirty)
	if _, err := m.Merge(ctxT(t), w, MergeSpec{Base: "main"}); err != nil {
		t.Fatal(err)
	}
	if git(t, repo, "rev-parse", "main") != git(t, repo, "rev-parse", w.Branch) {
		t.Fatal("main did not move")
	}
	if read(t, filepath.Join(repo, "notes.txt")) != dirty || read(t, filepath.Join(repo, "a.txt")) != "a\n" {
		t.Fatal("the user's uncommitted edit or files changed")
	}
	if head := git(t, repo, "symbolic-ref", "HEAD"); head != "refs/heads/mine" {
		t.Fatalf("checkout switched to %s", head)
	}
	if st := git(t, repo, "status", "--porcelain"); st != "M notes.txt" {
		t.Fatalf("status %q", st)
	}
}

func TestMergeBaseBranchChoice(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	git(t, repo, "branch", "release")
	w := provision(t, m, repo, "T1")
	agentCommit(t, w, map[string]string{"f.txt": "f\n"})
	ctx := ctxT(t)
	if b, err := m.BaseBranch(ctx, w, "", "release"); err != nil || b != "release" {
		t.Fatalf("hint: %q %v", b, err)
	}
	if b, err := m.BaseBranch(ctx, w, "", w.BaseCommit); err != nil || b != "main" {
		t.Fatalf("a commit hint falls back to the checked-out branch: %q %v", b, err)
	}
	for _, bad := range []string{"nope", w.Branch, "--force"} {
		_, err := m.BaseBranch(ctx, w, bad, "")
		wantRefusal(t, err, "no_base_branch")
	}
	// An agent that checks the base out in its own worktree blocks the merge.
	other := provision(t, m, repo, "T2")
	git(t, other.Path, "switch", "-q", "release")
	_, err := m.Merge(ctx, w, MergeSpec{Base: "release"})
	wantRefusal(t, err, "base_checked_out_in_task")
}

func TestPushToBareRemote(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	ctx := ctxT(t)
	w := provision(t, m, repo, "T1")
	agentCommit(t, w, map[string]string{"f.txt": "f\n"})
	_, err := m.Push(ctx, w)
	wantRefusal(t, err, "no_remote")

	bare := filepath.Join(t.TempDir(), "remote.git")
	git(t, t.TempDir(), "init", "-q", "--bare", bare)
	git(t, repo, "remote", "add", "origin", bare)
	res, err := m.Push(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if res.Remote != "origin" || res.Branch != w.Branch {
		t.Fatalf("result %+v", res)
	}
	if got, want := git(t, bare, "rev-parse", "refs/heads/"+w.Branch), git(t, repo, "rev-parse", w.Branch); got != want {
		t.Fatalf("remote has %s, want %s", got, want)
	}
	// Pushing again after more work is a fast-forward there too.
	agentCommit(t, w, map[string]string{"g.txt": "g\n"})
	if _, err := m.Push(ctx, w); err != nil {
		t.Fatal(err)
	}
	if git(t, bare, "rev-parse", "refs/heads/"+w.Branch) != git(t, repo, "rev-parse", w.Branch) {
		t.Fatal("second push did not arrive")
	}
}

// managerWithPath is a manager whose server environment has PATH=path.
func managerWithPath(t *testing.T, path string) *Manager {
	t.Helper()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	vars := []string{"PATH=" + path, "HOME=" + e.gitHome, "ANTHROPIC_API_KEY=sentinel-anthropic", "GH_TOKEN=users-own-gh-token"}
	m, err := New(Options{Home: e.home, Git: gitBin, Environ: func() []string { return vars }})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGitHubCLIMissing(t *testing.T) {
	t.Parallel()
	m := managerWithPath(t, t.TempDir()) // a PATH with no gh on it
	p, why := m.GitHubCLI(ctxT(t))
	if p != "" || !strings.Contains(why, "not installed") {
		t.Fatalf("gh %q, why %q", p, why)
	}
}

func TestOpenPRWithGitHubCLI(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "gh.log")
	script := `#!/bin/sh
printf 'dir=%s\n' "$PWD" >> '` + log + `'
printf 'key=%s token=%s prompt=%s\n' "${ANTHROPIC_API_KEY:-none}" "${GH_TOKEN:-none}" "${GH_PROMPT_DISABLED:-}" >> '` + log + `'
for a in "$@"; do printf 'arg=%s\n' "$a" >> '` + log + `'; done
if [ "$1" = auth ]; then [ -e '` + log + `.loggedout' ] && exit 1; exit 0; fi
echo "https://github.com/o/r/pull/7"
`
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	m := managerWithPath(t, bin+":"+os.Getenv("PATH"))
	repo := newRepo(t, nil)
	ctx := ctxT(t)
	gh, why := m.GitHubCLI(ctx)
	if gh != filepath.Join(bin, "gh") || why != "" {
		t.Fatalf("gh %q, why %q", gh, why)
	}
	url, err := m.OpenPR(ctx, gh, PRSpec{Repo: repo, Branch: "clawboo/task-T1", Base: "main", Title: "--fix the thing", Body: "It works.\n\nDetails."})
	if err != nil || url != "https://github.com/o/r/pull/7" {
		t.Fatalf("url %q, err %v", url, err)
	}
	got := read(t, log)
	for _, want := range []string{"dir=" + repo + "\n", "key=none token=users-own-gh-token prompt=1", "arg=pr\narg=create\narg=--head=clawboo/task-T1\narg=--title=--fix the thing\narg=--body=It works.\n\nDetails.\narg=--base=main\n"} {
		if !strings.Contains(got, want) {
			t.Fatalf("gh log lacks %q:\n%s", want, got)
		}
	}
	// Logged out: GitHubCLI says so.
	write(t, log+".loggedout", "")
	if p, why := m.GitHubCLI(ctx); p != "" || !strings.Contains(why, "not logged in") {
		t.Fatalf("logged out: %q %q", p, why)
	}
}
