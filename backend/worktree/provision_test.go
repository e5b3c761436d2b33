package worktree

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNeedsWorktree(t *testing.T) {
	t.Parallel()
	for kind, want := range map[string]bool{"code": true, "": true, "refactor": true, "research": false, "review": false} {
		if got := NeedsWorktree(kind); got != want {
			t.Errorf("NeedsWorktree(%q) = %v", kind, got)
		}
	}
}

func TestNewWithoutGit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, err := New(Options{Home: e.home, Git: "/nonexistent/git", Environ: func() []string { return e.vars }})
	if !errors.Is(err, ErrGitMissing) {
		t.Fatalf("missing binary: %v", err)
	}
	_, err = New(Options{Home: e.home, Environ: func() []string { return []string{"PATH=" + t.TempDir()} }})
	if !errors.Is(err, ErrGitMissing) || !strings.Contains(err.Error(), "git is not installed") {
		t.Fatalf("git not on PATH: %v", err)
	}
}

func TestProvisionFromHead(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	// Through a symlink and a subfolder: the top level, resolved, is what counts.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(repo, link); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, "sub", "x.txt"), "x")
	w, err := m.Provision(ctxT(t), ProvisionSpec{TaskID: "T1", RepoPath: filepath.Join(link, "sub")})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha1.Sum([]byte(repo))
	want := Worktree{
		TaskID: "T1", RepoPath: repo, RepoHash: hex.EncodeToString(sum[:])[:12],
		Path: filepath.Join(m.root, hex.EncodeToString(sum[:])[:12], "T1"), Branch: "clawboo/task-T1",
		BaseCommit: git(t, repo, "rev-parse", "HEAD"),
	}
	if w != want {
		t.Fatalf("got %+v\nwant %+v", w, want)
	}
	if read(t, filepath.Join(w.Path, "README.md")) != "hello\n" {
		t.Fatal("worktree lacks the committed file")
	}
	if got := git(t, w.Path, "symbolic-ref", "HEAD"); got != "refs/heads/clawboo/task-T1" {
		t.Fatalf("worktree HEAD %s", got)
	}
	if got := git(t, repo, "symbolic-ref", "HEAD"); got != "refs/heads/main" {
		t.Fatalf("the user's branch moved: %s", got)
	}
	if got := git(t, repo, "rev-parse", "refs/clawboo/base/T1"); got != want.BaseCommit {
		t.Fatalf("base ref %s", got)
	}
	if m.locks.size() != 0 {
		t.Fatal("lock entries left behind")
	}
}

func TestProvisionFromBase(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	first := git(t, repo, "rev-parse", "HEAD")
	git(t, repo, "tag", "v1")
	git(t, repo, "branch", "feature")
	write(t, filepath.Join(repo, "README.md"), "second\n")
	git(t, repo, "commit", "-qam", "second")
	for i, ref := range []string{"v1", first, first[:10], "feature", "main~1"} {
		w, err := m.Provision(ctxT(t), ProvisionSpec{TaskID: "b" + string(rune('0'+i)), RepoPath: repo, BaseRef: ref})
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if w.BaseCommit != first || read(t, filepath.Join(w.Path, "README.md")) != "hello\n" {
			t.Errorf("%s: base %s, want %s", ref, w.BaseCommit, first)
		}
	}
	for _, ref := range []string{"nope", "-x", "v1 v2"} {
		_, err := m.Provision(ctxT(t), ProvisionSpec{TaskID: "bad", RepoPath: repo, BaseRef: ref})
		if !errors.Is(err, ErrUnknownBase) {
			t.Errorf("%q: %v", ref, err)
		}
	}
}

func TestProvisionReusesAsIs(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := provision(t, m, repo, "T1")
	write(t, filepath.Join(w.Path, "README.md"), "edited\n")
	again := provision(t, m, repo, "T1")
	if again != w {
		t.Fatalf("reuse changed the worktree: %+v vs %+v", again, w)
	}
	if read(t, filepath.Join(w.Path, "README.md")) != "edited\n" {
		t.Fatal("reuse reset the work")
	}
}

func TestConcurrentProvision(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	var wg sync.WaitGroup
	got := make([]Worktree, 16)
	errs := make([]error, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = m.Provision(ctxT(t), ProvisionSpec{TaskID: "same", RepoPath: repo})
		}()
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil || got[i] != got[0] {
			t.Fatalf("%d: %+v %v", i, got[i], errs[i])
		}
	}
	if n := strings.Count(git(t, repo, "worktree", "list", "--porcelain"), "clawboo/task-same"); n != 1 {
		t.Fatalf("%d registrations", n)
	}
	// Different tasks of one repository, in parallel.
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = m.Provision(ctxT(t), ProvisionSpec{TaskID: "p" + string(rune('a'+i)), RepoPath: repo})
		}()
	}
	wg.Wait()
	for i := range 8 {
		if errs[i] != nil {
			t.Fatalf("parallel task %d: %v", i, errs[i])
		}
	}
	if m.locks.size() != 0 {
		t.Fatal("lock entries left behind")
	}
}

func TestProvisionLeavesUncommittedWorkAlone(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	write(t, filepath.Join(repo, "README.md"), "user's edit\n")
	write(t, filepath.Join(repo, "draft.txt"), "user's draft\n")
	git(t, repo, "add", "README.md")
	before := git(t, repo, "status", "--porcelain")
	w := provision(t, m, repo, "T1")
	if read(t, filepath.Join(w.Path, "README.md")) != "hello\n" {
		t.Fatal("the worktree has the user's uncommitted edit")
	}
	if _, err := os.Stat(filepath.Join(w.Path, "draft.txt")); !os.IsNotExist(err) {
		t.Fatal("the worktree has the user's untracked file")
	}
	if read(t, filepath.Join(repo, "draft.txt")) != "user's draft\n" || read(t, filepath.Join(repo, "README.md")) != "user's edit\n" {
		t.Fatal("the user's files changed")
	}
	if after := git(t, repo, "status", "--porcelain"); after != before {
		t.Fatalf("status changed:\n%s\n---\n%s", before, after)
	}
}

func TestProvisionErrors(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	plain := t.TempDir()
	file := filepath.Join(plain, "file")
	write(t, file, "x")
	bare := filepath.Join(t.TempDir(), "bare.git")
	git(t, filepath.Dir(bare), "init", "-q", "--bare", bare)
	cases := []struct {
		name, id, repo string
		want           error
		text           string
	}{
		{"missing repo", "T1", filepath.Join(plain, "gone"), ErrNoRepo, "does not exist"},
		{"not a repo", "T1", plain, ErrNotRepo, "is not a git repository"},
		{"a file", "T1", file, ErrNotRepo, "is not a git repository"},
		{"bare", "T1", bare, ErrNotRepo, "bare"},
		{"empty path", "T1", "", nil, "no repository path"},
	}
	for _, id := range []string{"", "../x", "a..b", ".hidden", "-x", "a/b", "x.lock", "x.", "a b", "é", strings.Repeat("a", 129)} {
		cases = append(cases, struct {
			name, id, repo string
			want           error
			text           string
		}{"id " + id, id, repo, ErrBadTaskID, "invalid task id"})
	}
	for _, c := range cases {
		_, err := m.Provision(ctxT(t), ProvisionSpec{TaskID: c.id, RepoPath: c.repo})
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if _, err := m.Provision(ctxT(t), ProvisionSpec{TaskID: strings.Repeat("a", 128), RepoPath: repo}); err != nil {
		t.Errorf("a 128-character id: %v", err)
	}
	w := provision(t, m, repo, "T1")
	if _, err := m.Provision(ctxT(t), ProvisionSpec{TaskID: "T2", RepoPath: w.Path}); err == nil {
		t.Error("a worktree was accepted as a repository")
	}
}

func TestProvisionReplacesStaleLeftovers(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	// A directory git does not know about.
	w := m.worktreeFor(repo, "T1", "")
	write(t, filepath.Join(w.Path, "junk"), "x")
	got := provision(t, m, repo, "T1")
	if _, err := os.Stat(filepath.Join(got.Path, "junk")); !os.IsNotExist(err) {
		t.Fatal("stale directory survived")
	}
	// A registration whose directory was deleted by hand: the branch and
	// its commits come back.
	write(t, filepath.Join(got.Path, "work.txt"), "work\n")
	git(t, got.Path, "add", "-A")
	git(t, got.Path, "commit", "-qm", "work")
	if err := os.RemoveAll(got.Path); err != nil {
		t.Fatal(err)
	}
	again := provision(t, m, repo, "T1")
	if again != got || read(t, filepath.Join(again.Path, "work.txt")) != "work\n" {
		t.Fatalf("re-provision lost the branch: %+v", again)
	}
}

func TestProvisionRefusesAWorktreeOnAnotherBranch(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := provision(t, m, repo, "T1")
	git(t, w.Path, "checkout", "-q", "-b", "elsewhere")
	write(t, filepath.Join(w.Path, "precious"), "x")
	if _, err := m.Provision(ctxT(t), ProvisionSpec{TaskID: "T1", RepoPath: repo}); !errors.Is(err, errRefused) {
		t.Fatalf("got %v", err)
	}
	if err := m.Pause(ctxT(t), w); !errors.Is(err, errRefused) {
		t.Fatalf("pause: %v", err)
	}
	if read(t, filepath.Join(w.Path, "precious")) != "x" {
		t.Fatal("work lost")
	}
}

func TestKeyedMutex(t *testing.T) {
	t.Parallel()
	var k keyedMutex
	unlock, err := k.lock(ctxT(t), "a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := k.lock(ctx, "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lock: %v", err)
	}
	other, err := k.lock(ctxT(t), "b")
	if err != nil {
		t.Fatal(err)
	}
	other()
	unlock()
	if k.size() != 0 {
		t.Fatalf("%d entries left", k.size())
	}
}

func TestProvisionReplacesAHalfAddedWorktree(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := provision(t, m, repo, "T1")
	// As if git worktree add had been killed during its checkout.
	gitdir := strings.TrimPrefix(read(t, filepath.Join(w.Path, ".git")), "gitdir: ")
	write(t, filepath.Join(strings.TrimSpace(gitdir), "locked"), "initializing")
	if err := os.Remove(filepath.Join(w.Path, "README.md")); err != nil {
		t.Fatal(err)
	}
	again := provision(t, m, repo, "T1")
	if again != w || read(t, filepath.Join(w.Path, "README.md")) != "hello\n" {
		t.Fatal("the half-added worktree was reused")
	}
}

// A git that is there but does not run is found by the check New starts in
// the background (off the start path): Usable and every git call report it.
func TestGitThatDoesNotRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	broken := filepath.Join(t.TempDir(), "git")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Home: e.home, Git: broken, Environ: func() []string { return e.vars }})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Usable(context.Background()); !errors.Is(err, ErrGitMissing) || !strings.Contains(err.Error(), "does not run") {
		t.Fatalf("Usable: %v", err)
	}
	if _, err := m.Provision(context.Background(), ProvisionSpec{TaskID: "t1", RepoPath: newRepo(t, nil)}); !errors.Is(err, ErrGitMissing) {
		t.Fatalf("Provision: %v", err)
	}
}
