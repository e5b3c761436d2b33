package worktree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReviewCheckoutIsDetachedAtTheBranchTip(t *testing.T) {
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := provision(t, m, repo, "T-rev")
	write(t, filepath.Join(w.Path, "new.txt"), "change\n")
	if _, err := m.Complete(ctxT(t), w); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "wip.txt"), "uncommitted\n") // the task's worktree is left alone
	tip := git(t, repo, "rev-parse", "refs/heads/"+w.Branch)

	r, err := m.OpenReview(ctxT(t), w)
	if err != nil {
		t.Fatal(err)
	}
	if r.Commit != tip || strings.HasPrefix(r.Path, m.root+string(filepath.Separator)) {
		t.Fatalf("review %+v: want commit %s outside %s", r, tip, m.root)
	}
	if got := read(t, filepath.Join(r.Path, "new.txt")); got != "change\n" {
		t.Fatalf("review checkout has %q", got)
	}
	if exists(filepath.Join(r.Path, "wip.txt")) {
		t.Fatal("review checkout has the worktree's uncommitted file")
	}
	if head := git(t, r.Path, "rev-parse", "HEAD"); head != tip {
		t.Fatalf("HEAD %s, want %s", head, tip)
	}
	if out := git(t, r.Path, "status", "--porcelain", "--branch"); !strings.Contains(out, "HEAD (no branch)") {
		t.Fatalf("review checkout is not detached: %s", out)
	}
	// A critic that writes leaves nothing behind; a second review replaces
	// the first.
	write(t, filepath.Join(r.Path, "scribble.txt"), "x\n")
	r2, err := m.OpenReview(ctxT(t), w)
	if err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(r2.Path, "scribble.txt")) {
		t.Fatal("a stale review checkout was reused")
	}
	if err := m.CloseReview(ctxT(t), r2); err != nil {
		t.Fatal(err)
	}
	if exists(r2.Path) || strings.Contains(git(t, repo, "worktree", "list"), "reviews") {
		t.Fatal("review checkout not removed")
	}
	if err := m.CloseReview(ctxT(t), r2); err != nil {
		t.Fatalf("closing twice: %v", err)
	}
	if read(t, filepath.Join(w.Path, "wip.txt")) != "uncommitted\n" || git(t, w.Path, "rev-parse", "--abbrev-ref", "HEAD") != w.Branch {
		t.Fatal("the task's own worktree was disturbed")
	}
	// The janitor's scan sees only the task's worktree.
	es, err := m.scan()
	if err != nil || len(es) != 1 || es[0].taskID != w.TaskID {
		t.Fatalf("scan = %+v, %v", es, err)
	}
}

func TestCloseReviewRefusesAPathNotOurs(t *testing.T) {
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	other := t.TempDir()
	err := m.CloseReview(ctxT(t), ReviewCheckout{TaskID: "T1", RepoPath: repo, Path: other})
	if err == nil || !exists(other) {
		t.Fatalf("CloseReview of a foreign folder: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatal(err)
	}
}

func TestOpenReviewNeedsTheBranch(t *testing.T) {
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := m.worktreeFor(repo, "T-none", git(t, repo, "rev-parse", "HEAD"))
	if _, err := m.OpenReview(ctxT(t), w); err == nil {
		t.Fatal("reviewed a branch that does not exist")
	}
}
