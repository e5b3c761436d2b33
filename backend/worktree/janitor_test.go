package worktree

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestJanitorPrunesIgnoredDepFoldersOfFinishedWorktreesOnly(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, map[string]string{
		"README.md":         "hi\n",
		".gitignore":        "node_modules/\nbuild/\n__pycache__/\n",
		"src/app/readme.md": "x\n",
	})
	write(t, filepath.Join(repo, "build", "keep.txt"), "tracked, though build/ is ignored\n")
	git(t, repo, "add", "-f", "build/keep.txt")
	git(t, repo, "commit", "-q", "-m", "a tracked build folder")
	done := provision(t, m, repo, "done")
	live := provision(t, m, repo, "live")
	for _, w := range []Worktree{done, live} {
		write(t, filepath.Join(w.Path, "node_modules", "left-pad", "index.js"), strings.Repeat("x", 5000))
		write(t, filepath.Join(w.Path, "src", "app", "__pycache__", "m.pyc"), strings.Repeat("y", 300))
		write(t, filepath.Join(w.Path, "build", "out.o"), "ignored output in a tracked folder\n")
	}
	rep, err := m.Janitor(ctxT(t), JanitorPolicy{Finished: func(id string) bool { return id == "done" }})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Reclaimed) != 1 || rep.Reclaimed[0].TaskID != "done" || rep.Reclaimed[0].Removed {
		t.Fatalf("%+v", rep)
	}
	c := rep.Reclaimed[0]
	slices.Sort(c.Folders)
	if !slices.Equal(c.Folders, []string{"node_modules", "src/app/__pycache__"}) || c.Bytes != 5300 || rep.TotalBytes != 5300 {
		t.Fatalf("%+v", c)
	}
	if exists(filepath.Join(done.Path, "node_modules")) || exists(filepath.Join(done.Path, "src", "app", "__pycache__")) {
		t.Fatal("dependency folders left in the finished worktree")
	}
	// The tracked build/ stays, with everything in it.
	if !exists(filepath.Join(done.Path, "build", "keep.txt")) || !exists(filepath.Join(done.Path, "build", "out.o")) {
		t.Fatal("a tracked build/ folder was pruned")
	}
	// The worktree a run works in is untouched.
	if !exists(filepath.Join(live.Path, "node_modules", "left-pad", "index.js")) || !exists(filepath.Join(live.Path, "src", "app", "__pycache__")) {
		t.Fatal("an active worktree was pruned")
	}
	if !present(done) || !present(live) {
		t.Fatal("a worktree was removed without a budget")
	}
}

func TestJanitorBudgetRemovesTheOldestFinishedFirst(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	ids := []string{"old", "mid", "new", "running"}
	for i, id := range ids {
		w := provision(t, m, repo, id)
		write(t, filepath.Join(w.Path, "work.txt"), strings.Repeat("w", 10000))
		age(t, w, time.Duration(len(ids)-i)*time.Hour) // old is the oldest
	}
	age(t, m.worktreeFor(repo, "running", ""), 10*time.Hour) // the oldest of all, but live
	finished := func(id string) bool { return id != "running" }
	sizeOf := func(id string) int64 {
		n, _ := dirSize(ctxT(t), m.worktreeFor(repo, id, "").Path)
		return n
	}
	budget := sizeOf("new") + sizeOf("mid") + 1 // room for two
	rep, err := m.Janitor(ctxT(t), JanitorPolicy{Finished: finished, BudgetPerRepo: budget})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Removed(); !slices.Equal(got, []string{"old"}) {
		t.Fatalf("removed %v (%+v)", got, rep)
	}
	if rep.TotalBytes <= 10000 {
		t.Fatalf("reclaimed %d", rep.TotalBytes)
	}
	for id, want := range map[string]bool{"old": false, "mid": true, "new": true, "running": true} {
		if present(m.worktreeFor(repo, id, "")) != want {
			t.Errorf("%s present = %v", id, !want)
		}
	}
	// The removed worktree's work is on its branch.
	if got := git(t, repo, "show", "clawboo/task-old:work.txt"); len(got) != 10000 {
		t.Fatalf("work lost: %d bytes", len(got))
	}
}
