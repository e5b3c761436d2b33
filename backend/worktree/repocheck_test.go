package worktree

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckRepo through links: a symlink to a system folder is refused by what
// it points at; a person's own linked checkout (git worktree add) is a
// repository; a Clawboo worktree is not; nothing checked is changed.
func TestCheckRepoThroughLinksAndWorktrees(t *testing.T) {
	m, _ := newManager(t)
	ctx := ctxT(t)
	repo := newRepo(t, map[string]string{"a.txt": "a\n"})
	if got, err := m.CheckRepo(ctx, repo+"/"); err != nil || got != repo {
		t.Fatalf("a repository: %q %v", got, err)
	}

	link := filepath.Join(t.TempDir(), "etc-link")
	if err := os.Symlink("/etc", link); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CheckRepo(ctx, link); !errors.Is(err, ErrBadRepo) || !strings.Contains(Reason(err), link+" is a system folder (/etc)") {
		t.Fatalf("a link to /etc: %v", err)
	}

	mine := filepath.Join(t.TempDir(), "second-checkout")
	git(t, repo, "worktree", "add", "-q", "-b", "side", mine)
	if _, err := m.CheckRepo(ctx, mine); err != nil {
		t.Fatalf("a person's linked checkout: %v", err)
	}

	w := provision(t, m, repo, "task-1")
	if _, err := m.CheckRepo(ctx, w.Path); !errors.Is(err, ErrBadRepo) || !strings.Contains(Reason(err), "is a Clawboo worktree") {
		t.Fatalf("a Clawboo worktree: %v", err)
	}
	if st := git(t, repo, "status", "--porcelain"); st != "" {
		t.Fatalf("checking changed the repository: %q", st)
	}
}
