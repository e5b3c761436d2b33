package worktree

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// forge does what a hostile agent with only file writes did: it writes a
// git dir of its own inside the worktree (HEAD, objects, refs and a config
// whose clean filter runs a command), points the worktree's .git at it,
// and asks for the filter in .gitattributes. It returns the file the
// filter would create if git ever ran it.
func forge(t *testing.T, w Worktree, how string) string {
	t.Helper()
	pwned := filepath.Join(t.TempDir(), "pwned")
	fake := filepath.Join(w.Path, "evil")
	for _, d := range []string{"objects", "refs/heads"} {
		if err := os.MkdirAll(filepath.Join(fake, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(fake, "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(fake, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[filter \"x\"]\n\tclean = touch "+pwned+"; cat\n\tsmudge = cat\n")
	write(t, filepath.Join(w.Path, ".gitattributes"), "* filter=x\n")
	link := filepath.Join(w.Path, ".git")
	switch how {
	case "file":
		write(t, link, "gitdir: "+fake+"\n")
	case "relative":
		write(t, link, "gitdir: evil\n")
	case "folder": // .git replaced by the forged folder itself
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(fake, link); err != nil {
			t.Fatal(err)
		}
	case "symlink":
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(fake, link); err != nil {
			t.Fatal(err)
		}
	}
	return pwned
}

// Every git command the server runs in a worktree, and its verify step,
// refuses a forged .git link: the forger's filter never runs.
func TestForgedGitLinkIsNeverUsed(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"file", "relative", "folder", "symlink"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			m, _ := newManager(t)
			repo := newRepo(t, nil)
			w := provision(t, m, repo, "T1")
			write(t, filepath.Join(w.Path, "work.txt"), "the agent's work\n")
			pwned := forge(t, w, how)
			ctx := ctxT(t)
			if _, err := m.Diff(ctx, w); !errors.Is(err, ErrForgedLink) {
				t.Errorf("Diff: %v, want ErrForgedLink", err)
			}
			if _, err := m.Complete(ctx, w); !errors.Is(err, ErrForgedLink) {
				t.Errorf("Complete: %v, want ErrForgedLink", err)
			}
			if err := m.Pause(ctx, w); !errors.Is(err, ErrForgedLink) {
				t.Errorf("Pause: %v, want ErrForgedLink", err)
			}
			if v := m.Verify(ctx, w, "git status --porcelain; git add -A", time.Minute); v.Passed || !strings.Contains(v.OutputTail, ".git link") {
				t.Errorf("Verify passed or did not say why: %+v", v)
			}
			if _, err := m.Provision(ctx, ProvisionSpec{TaskID: "T1", RepoPath: repo}); !errors.Is(err, ErrForgedLink) {
				t.Errorf("Provision again: %v, want ErrForgedLink", err)
			}
			if _, err := os.Stat(pwned); err == nil {
				t.Fatal("the forged git dir's filter ran")
			}
			if read(t, filepath.Join(w.Path, "work.txt")) != "the agent's work\n" {
				t.Fatal("the work was lost")
			}
		})
	}
}

// A .git link that names another task's real git dir is refused too: our
// commands would otherwise commit into that task's index and branch.
func TestLinkToAnotherWorktreeIsRefused(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	a := provision(t, m, repo, "A1")
	b := provision(t, m, repo, "B1")
	write(t, filepath.Join(b.Path, ".git"), read(t, filepath.Join(a.Path, ".git")))
	if _, err := m.Diff(ctxT(t), b); !errors.Is(err, ErrForgedLink) {
		t.Fatalf("Diff through A's git dir: %v", err)
	}
	if _, err := m.Diff(ctxT(t), a); err != nil {
		t.Fatalf("A itself: %v", err)
	}
}
