package worktree

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPauseThenProvision(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := provision(t, m, repo, "T1")
	write(t, filepath.Join(w.Path, "README.md"), "edited\n")
	write(t, filepath.Join(w.Path, "new.txt"), "new\n")
	if err := m.Pause(ctxT(t), w); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Path); !os.IsNotExist(err) {
		t.Fatal("worktree directory kept")
	}
	if strings.Contains(git(t, repo, "worktree", "list"), w.Path) {
		t.Fatal("registration kept")
	}
	if got := git(t, repo, "log", "-1", "--format=%s|%an", w.Branch); got != "clawboo: pause task T1|Clawboo" {
		t.Fatalf("pause commit: %q", got)
	}
	if err := m.Pause(ctxT(t), w); err != nil {
		t.Fatalf("pausing twice: %v", err)
	}
	// Meanwhile the user's main moves on; asking for it must not reset the task.
	write(t, filepath.Join(repo, "README.md"), "main moved\n")
	git(t, repo, "commit", "-qam", "moved")
	again, err := m.Provision(ctxT(t), ProvisionSpec{TaskID: "T1", RepoPath: repo, BaseRef: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if again != w {
		t.Fatalf("after pause: %+v, want %+v", again, w)
	}
	if read(t, filepath.Join(w.Path, "README.md")) != "edited\n" || read(t, filepath.Join(w.Path, "new.txt")) != "new\n" {
		t.Fatal("paused work lost")
	}
}

func TestCompleteWithoutChanges(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := provision(t, m, repo, "T1")
	o, err := m.Complete(ctxT(t), w)
	if err != nil {
		t.Fatal(err)
	}
	if o.Changed || o.Files != 0 || o.Diff != "" {
		t.Fatalf("outcome %+v", o)
	}
	if _, err := os.Stat(w.Path); !os.IsNotExist(err) {
		t.Fatal("worktree kept")
	}
	if branchExists(t, repo, w.Branch) {
		t.Fatal("branch kept")
	}
	if strings.Contains(git(t, repo, "for-each-ref"), "refs/clawboo/") {
		t.Fatal("base ref kept")
	}
}

func TestCompleteWithChanges(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, map[string]string{"a.txt": "1\n2\n3\n", "b.txt": "keep\n"})
	w := provision(t, m, repo, "T1")
	write(t, filepath.Join(w.Path, "a.txt"), "1\ntwo\n3\n4\n") // +2 -1, committed by the agent
	git(t, w.Path, "commit", "-qam", "agent work")
	// +3 untracked, -1 deleted, neither committed.
	write(t, filepath.Join(w.Path, "c.txt"), "x\ny\nz\n")
	if err := os.Remove(filepath.Join(w.Path, "b.txt")); err != nil {
		t.Fatal(err)
	}
	o, err := m.Complete(ctxT(t), w)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Changed || o.Files != 3 || o.Insertions != 5 || o.Deletions != 2 {
		t.Fatalf("outcome %+v", o)
	}
	for _, s := range []string{"+two", "-2", "+++ b/c.txt", "--- a/b.txt"} {
		if !strings.Contains(o.Diff, s) {
			t.Errorf("diff lacks %q:\n%s", s, o.Diff)
		}
	}
	if !present(w) || !branchExists(t, repo, w.Branch) {
		t.Fatal("a changed task lost its worktree or branch")
	}
	if got := git(t, w.Path, "status", "--porcelain"); got != "" {
		t.Fatalf("not all committed: %s", got)
	}
	if got := git(t, repo, "log", "-1", "--format=%s", w.Branch); got != "clawboo: task T1" {
		t.Fatalf("commit %q", got)
	}
	// Diff on the result agrees, and so does it on a paused task.
	d, err := m.Diff(ctxT(t), w)
	if err != nil || d != o {
		t.Fatalf("diff after complete: %+v %v", d, err)
	}
	if err := m.Pause(ctxT(t), w); err != nil {
		t.Fatal(err)
	}
	if d, err = m.Diff(ctxT(t), w); err != nil || d != o {
		t.Fatalf("diff of a paused task: %+v %v", d, err)
	}
}

func TestDiffSeesUntrackedAndChangesNothing(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := provision(t, m, repo, "T1")
	write(t, filepath.Join(w.Path, "README.md"), "hello\nmore\n")
	write(t, filepath.Join(w.Path, "dir", "new file.txt"), "fresh\n")
	status := git(t, w.Path, "status", "--porcelain")
	head := git(t, w.Path, "rev-parse", "HEAD")
	o, err := m.Diff(ctxT(t), w)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Changed || o.Files != 2 || o.Insertions != 2 || o.Deletions != 0 {
		t.Fatalf("outcome %+v", o)
	}
	if !strings.Contains(o.Diff, "+fresh") || !strings.Contains(o.Diff, "+more") {
		t.Fatalf("diff:\n%s", o.Diff)
	}
	if git(t, w.Path, "status", "--porcelain") != status || git(t, w.Path, "rev-parse", "HEAD") != head {
		t.Fatal("Diff changed the worktree")
	}
}

func TestDiffIsCapped(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := provision(t, m, repo, "T1")
	write(t, filepath.Join(w.Path, "big.txt"), strings.Repeat("a line of generated text\n", 100_000))
	write(t, filepath.Join(w.Path, "small.txt"), "s\n")
	o, err := m.Diff(ctxT(t), w)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Diff) > maxDiff+500 || !strings.Contains(o.Diff, "[diff cut at 1024 KiB; 2 files changed") {
		t.Fatalf("diff of %d bytes, tail %q", len(o.Diff), tail(o.Diff, 200))
	}
	if o.Insertions != 100_001 {
		t.Fatalf("counts %+v", o.Insertions)
	}
}

func TestRemove(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := provision(t, m, repo, "T1")
	if err := m.Remove(ctxT(t), w, false); err != nil {
		t.Fatal(err)
	}
	if present(w) || !branchExists(t, repo, w.Branch) {
		t.Fatal("remove without deleteBranch")
	}
	if err := m.Remove(ctxT(t), w, true); err != nil {
		t.Fatal(err)
	}
	if branchExists(t, repo, w.Branch) {
		t.Fatal("branch kept")
	}
	if err := m.Remove(ctxT(t), w, true); err != nil {
		t.Fatalf("removing twice: %v", err)
	}
}

func TestForeignWorktreeIsRefused(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := provision(t, m, repo, "T1")
	victim := t.TempDir()
	write(t, filepath.Join(victim, "precious"), "x")
	bad := []Worktree{w, w, w, w, w}
	bad[0].Path = victim
	bad[1].RepoHash = "000000000000"
	bad[2].Branch = "main"
	bad[3].TaskID = "../T1"
	bad[4].BaseCommit = "HEAD"
	for i, b := range bad {
		if err := m.Remove(ctxT(t), b, true); err == nil {
			t.Errorf("%d: Remove accepted %+v", i, b)
		}
		if _, err := m.Complete(ctxT(t), b); err == nil {
			t.Errorf("%d: Complete accepted %+v", i, b)
		}
	}
	if _, err := os.Stat(filepath.Join(victim, "precious")); err != nil || !present(w) {
		t.Fatal("a refused call deleted something")
	}
	if err := m.Remove(ctxT(t), bad[0], true); !errors.Is(err, ErrBadWorktree) {
		t.Fatalf("error %v", err)
	}
}

// TestContextNotesAreNotWork: the notes runtimes keep in .clawboo/context
// (executor.WriteContextFile) never count as a change, in the diff or in
// the task's commits; anything else under .clawboo does.
func TestContextNotesAreNotWork(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := provision(t, m, repo, "T9")
	if err := os.MkdirAll(filepath.Join(w.Path, ".clawboo", "context"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Path, ".clawboo", "context", "handoff.md"), []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := m.Diff(ctxT(t), w); err != nil || d.Changed {
		t.Fatalf("context notes show as a change: %+v %v", d, err)
	}
	if err := os.WriteFile(filepath.Join(w.Path, ".clawboo", "verify"), []byte("true\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	o, err := m.Complete(ctxT(t), w)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Changed || o.Files != 1 || !strings.Contains(o.Diff, ".clawboo/verify") || strings.Contains(o.Diff, "handoff") {
		t.Fatalf("outcome %+v", o)
	}
	if files := git(t, repo, "show", "--name-only", "--format=", w.Branch); strings.Contains(files, "context") {
		t.Fatalf("the branch commit has the notes: %s", files)
	}
}
