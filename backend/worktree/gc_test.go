package worktree

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestGCByAgeNeverTouchesKept(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	old := provision(t, m, repo, "old")
	running := provision(t, m, repo, "running")
	fresh := provision(t, m, repo, "fresh")
	age(t, old, 100*time.Hour)
	age(t, running, 200*time.Hour)
	write(t, filepath.Join(old.Path, "wip.txt"), "unsaved\n")
	var asked []string
	removed, err := m.GC(ctxT(t), GCPolicy{MaxAge: 72 * time.Hour, Keep: func(id string) bool {
		asked = append(asked, id)
		return id == "running"
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(removed, []string{"old"}) || !slices.Equal(asked, []string{"running", "old"}) {
		t.Fatalf("removed %v, asked %v", removed, asked)
	}
	if present(old) || !present(running) || !present(fresh) {
		t.Fatal("wrong worktrees removed")
	}
	// The reaped task's work is on its branch, and it can resume.
	if got := git(t, repo, "show", old.Branch+":wip.txt"); got != "unsaved" {
		t.Fatalf("work not committed: %q", got)
	}
	if again := provision(t, m, repo, "old"); read(t, filepath.Join(again.Path, "wip.txt")) != "unsaved\n" {
		t.Fatal("cannot resume")
	}
}

func TestGCByCountOldestFirst(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	other := newRepo(t, nil)
	ids := []string{"a", "b", "c", "d"}
	for i, id := range ids {
		age(t, provision(t, m, repo, id), time.Duration(4-i)*time.Hour) // a is oldest
	}
	provision(t, m, other, "z") // another repository has its own count
	removed, err := m.GC(ctxT(t), GCPolicy{MaxPerRepo: 2, Keep: func(id string) bool { return id == "a" }})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(removed, []string{"b", "c"}) {
		t.Fatalf("removed %v", removed)
	}
	for _, id := range []string{"a", "d"} {
		if !present(m.worktreeFor(repo, id, "")) {
			t.Errorf("%s removed", id)
		}
	}
	if !present(m.worktreeFor(other, "z", "")) {
		t.Error("the other repository's worktree was removed")
	}
}

func TestGCWhenTheRepositoryVanished(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := provision(t, m, repo, "T1")
	kept := provision(t, m, repo, "T2")
	if err := os.RemoveAll(repo); err != nil {
		t.Fatal(err)
	}
	removed, err := m.GC(ctxT(t), GCPolicy{MaxAge: time.Nanosecond, Keep: func(id string) bool { return id == "T2" }})
	if err != nil || !slices.Equal(removed, []string{"T1"}) {
		t.Fatalf("removed %v, err %v", removed, err)
	}
	if _, err := os.Stat(w.Path); !os.IsNotExist(err) {
		t.Fatal("directory kept")
	}
	if !present(kept) {
		t.Fatal("a kept task was removed")
	}
	// Remove works too, and the empty hash folder goes with the last one.
	if err := m.Remove(ctxT(t), kept, true); err != nil {
		t.Fatal(err)
	}
	if _, err := m.GC(ctxT(t), GCPolicy{MaxAge: time.Nanosecond, Keep: func(string) bool { return false }}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(w.Path)); !os.IsNotExist(err) {
		t.Fatal("hash folder kept")
	}
}

func TestGCWithoutRepoFileAsksTheWorktree(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := provision(t, m, repo, "T1")
	write(t, filepath.Join(w.Path, "wip"), "x")
	if err := os.Remove(filepath.Join(filepath.Dir(w.Path), ".repo")); err != nil {
		t.Fatal(err)
	}
	removed, err := m.GC(ctxT(t), GCPolicy{MaxPerRepo: 0, MaxAge: time.Nanosecond, Keep: func(string) bool { return false }})
	if err != nil || len(removed) != 1 {
		t.Fatalf("%v %v", removed, err)
	}
	if git(t, repo, "show", w.Branch+":wip") != "x" {
		t.Fatal("work not saved")
	}
}

func TestGCNeedsKeep(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	if _, err := m.GC(ctxT(t), GCPolicy{MaxAge: time.Hour}); err == nil || !strings.Contains(err.Error(), "Keep") {
		t.Fatal(err)
	}
}

func TestDiskUsage(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	a := provision(t, m, repo, "a")
	b := provision(t, m, repo, "b")
	_, before, err := m.DiskUsage(ctxT(t))
	if err != nil || len(before) != 2 {
		t.Fatalf("%v %v", before, err)
	}
	write(t, filepath.Join(a.Path, "blob"), strings.Repeat("x", 100_000))
	big := filepath.Join(t.TempDir(), "outside")
	write(t, big, strings.Repeat("y", 1_000_000))
	if err := os.Symlink(big, filepath.Join(b.Path, "link")); err != nil {
		t.Fatal(err)
	}
	total, per, err := m.DiskUsage(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	got := map[string]Usage{}
	for _, u := range per {
		sum += u.Bytes
		got[u.TaskID] = u
	}
	if sum != total || len(per) != 2 {
		t.Fatalf("total %d, per %+v", total, per)
	}
	byID := map[string]int64{}
	for _, u := range before {
		byID[u.TaskID] = u.Bytes
	}
	if d := got["a"].Bytes - byID["a"]; d != 100_000 {
		t.Errorf("a grew by %d", d)
	}
	if d := got["b"].Bytes - byID["b"]; d != int64(len(big)) {
		t.Errorf("b grew by %d: the link was followed?", d)
	}
	if got["a"].RepoPath != repo || got["a"].Path != a.Path {
		t.Errorf("usage %+v", got["a"])
	}
}
