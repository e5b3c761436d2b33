package worktree

import (
	"path/filepath"
	"testing"
)

// The commits Clawboo makes of a task's work carry the message the caller
// derives from the task (its title and trailers), so a fast-forward puts a
// commit a person can read on the base; a pause marks its commit as work in
// progress; no message keeps the old "clawboo: task <id>".
func TestWorkCommitsCarryTheTasksMessage(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	msg := CommitMessage("Add NOTES.md", "", "Clawboo-Agent: Coder (clawboo-native)", "Clawboo-Task: T1")

	w := provision(t, m, repo, "T1")
	w.Message = msg
	write(t, filepath.Join(w.Path, "NOTES.md"), "half\n")
	if err := m.Pause(ctxT(t), w); err != nil {
		t.Fatal(err)
	}
	if got := git(t, repo, "log", "-1", "--format=%s%n%b", w.Branch); got != "Add NOTES.md (work in progress)\nClawboo-Agent: Coder (clawboo-native)\nClawboo-Task: T1" {
		t.Fatalf("pause commit: %q", got)
	}
	again, err := m.Provision(ctxT(t), ProvisionSpec{TaskID: "T1", RepoPath: repo, BaseRef: "main"})
	if err != nil {
		t.Fatal(err)
	}
	again.Message = msg
	write(t, filepath.Join(again.Path, "NOTES.md"), "notes\n")
	if _, err := m.Complete(ctxT(t), again); err != nil {
		t.Fatal(err)
	}
	if got := git(t, repo, "log", "-1", "--format=%s%n%b", w.Branch); got != "Add NOTES.md\nClawboo-Agent: Coder (clawboo-native)\nClawboo-Task: T1" {
		t.Fatalf("work commit: %q", got)
	}

	plain := provision(t, m, repo, "T2")
	write(t, filepath.Join(plain.Path, "other.txt"), "x\n")
	if _, err := m.Complete(ctxT(t), plain); err != nil {
		t.Fatal(err)
	}
	if got := git(t, repo, "log", "-1", "--format=%s", plain.Branch); got != "clawboo: task T2" {
		t.Fatalf("a worktree without a message: %q", got)
	}
}
