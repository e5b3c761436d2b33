package worktree

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// mergeFixture is a repository with main checked out in the user's
// checkout and a task whose branch changes a.txt and adds new/added.txt.
func mergeFixture(t *testing.T, base map[string]string, change map[string]string) (*Manager, env, string, Worktree) {
	t.Helper()
	m, e := newManager(t)
	repo := newRepo(t, base)
	w := provision(t, m, repo, "T1")
	agentCommit(t, w, change)
	return m, e, repo, w
}

// unchanged fails unless main, the checkout's files and its status are as
// they were.
func unchanged(t *testing.T, repo, main, status string, files map[string]string) {
	t.Helper()
	if got := git(t, repo, "rev-parse", "main"); got != main {
		t.Fatalf("main moved to %s", got)
	}
	for name, body := range files {
		if got := read(t, filepath.Join(repo, name)); got != body {
			t.Fatalf("%s is %q, want %q", name, got, body)
		}
	}
	if got := git(t, repo, "status", "--porcelain", "--ignored", "-uall"); got != status {
		t.Fatalf("status %q, want %q", got, status)
	}
}

func TestMergeBesideUnrelatedDirtyAndUntrackedFiles(t *testing.T) {
	t.Parallel()
	m, _, repo, w := mergeFixture(t, map[string]string{"a.txt": "a\n", "notes.txt": "n\n", "staged.txt": "s\n"},
		map[string]string{"a.txt": "agent\n", "new/added.txt": "added\n"})
	dirty := "my edit\r\nnot committed \x00 bytes\n"
	write(t, filepath.Join(repo, "notes.txt"), dirty)
	write(t, filepath.Join(repo, "staged.txt"), "staged\n")
	git(t, repo, "add", "staged.txt")
	write(t, filepath.Join(repo, "staged.txt"), "staged and more\n") // staged and unstaged
	write(t, filepath.Join(repo, "scratch.txt"), "untracked\n")
	before := git(t, repo, "diff", "--cached")

	res, err := m.Merge(ctxT(t), w, MergeSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if res.How != "ff" || res.Checkout != repo || git(t, repo, "rev-parse", "main") != git(t, repo, "rev-parse", w.Branch) {
		t.Fatalf("result %+v", res)
	}
	// The changed paths came along; the person's work is byte for byte as
	// it was, with its index state.
	if read(t, filepath.Join(repo, "a.txt")) != "agent\n" || read(t, filepath.Join(repo, "new/added.txt")) != "added\n" {
		t.Fatal("the change's files were not brought along")
	}
	if read(t, filepath.Join(repo, "notes.txt")) != dirty || read(t, filepath.Join(repo, "staged.txt")) != "staged and more\n" ||
		read(t, filepath.Join(repo, "scratch.txt")) != "untracked\n" {
		t.Fatal("uncommitted work changed")
	}
	if got := git(t, repo, "diff", "--cached"); got != before {
		t.Fatalf("staged change lost:\n%s\nwant\n%s", got, before)
	}
	if st := git(t, repo, "status", "--porcelain"); st != "M notes.txt\nMM staged.txt\n?? scratch.txt" {
		t.Fatalf("status %q", st)
	}
}

func TestMergeRefusedBesideOverlappingWork(t *testing.T) {
	t.Parallel()
	base := map[string]string{"a.txt": "a\n", ".gitignore": "secret/\n", "old/dir.txt": "d\n", "keep.txt": "k\n"}
	change := map[string]string{"a.txt": "agent\n", "new/added.txt": "added\n"}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, repo string)
		files []string
		// change overrides the task's change
		change map[string]string
		rm     []string
	}{
		{
			name: "dirty tracked file", files: []string{"a.txt"},
			setup: func(t *testing.T, repo string) { write(t, filepath.Join(repo, "a.txt"), "mine\n") },
		},
		{
			name: "staged tracked file", files: []string{"a.txt"},
			setup: func(t *testing.T, repo string) {
				write(t, filepath.Join(repo, "a.txt"), "mine\n")
				git(t, repo, "add", "a.txt")
			},
		},
		{
			name: "untracked file", files: []string{"new/added.txt"},
			setup: func(t *testing.T, repo string) { write(t, filepath.Join(repo, "new/added.txt"), "mine\n") },
		},
		{
			name: "untracked file where a folder goes", files: []string{"new"},
			setup: func(t *testing.T, repo string) { write(t, filepath.Join(repo, "new"), "mine\n") },
		},
		// issue 26 §2.2: the agent rewrites .gitignore so that secret/ is
		// tracked and commits its own secret/key.pem over the user's.
		{
			name: "ignored file", files: []string{"secret/key.pem"},
			change: map[string]string{".gitignore": "\n", "secret/key.pem": "agent's\n"},
			setup:  func(t *testing.T, repo string) { write(t, filepath.Join(repo, "secret/key.pem"), "users-own-key\n") },
		},
		{
			name: "untracked file in a folder the change makes a file", files: []string{"old/mine.txt"},
			change: map[string]string{"old": "now a file\n"}, rm: []string{"old/dir.txt"},
			setup: func(t *testing.T, repo string) { write(t, filepath.Join(repo, "old/mine.txt"), "mine\n") },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, _ := newManager(t)
			repo := newRepo(t, base)
			w := provision(t, m, repo, "T1")
			for _, f := range tc.rm {
				git(t, w.Path, "rm", "-q", f)
			}
			ch := change
			if tc.change != nil {
				ch = tc.change
			}
			agentCommit(t, w, ch)
			tc.setup(t, repo)
			main := git(t, repo, "rev-parse", "main")
			status := git(t, repo, "status", "--porcelain", "--ignored", "-uall")
			snap := snapshot(t, repo)
			for _, s := range []MergeStrategy{MergeAuto, MergeCommit, MergeSquash} {
				_, err := m.Merge(ctxT(t), w, MergeSpec{Strategy: s})
				r := wantRefusal(t, err, "checkout_overlap")
				if !reflect.DeepEqual(r.Files, tc.files) {
					t.Fatalf("%s: files %q, want %q", s, r.Files, tc.files)
				}
				unchanged(t, repo, main, status, snap)
			}
		})
	}
}

// snapshot reads every file of the checkout outside .git.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.IsDir() && fi.Name() == ".git" {
			return filepath.SkipDir
		}
		if fi.Mode().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out[rel] = read(t, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMergeIgnoredFileNotOverwrittenEvenByGitsOwnCheck(t *testing.T) {
	t.Parallel()
	// The backstop: git's fast-forward itself refuses an ignored file.
	m, _ := newManager(t)
	repo := newRepo(t, map[string]string{".gitignore": "secret/\n"})
	write(t, filepath.Join(repo, "secret/key.pem"), "users-own-key\n")
	next := git(t, repo, "commit-tree", "-p", "HEAD", "-m", "x", strings.TrimSpace(func() string {
		git(t, repo, "rm", "-q", "--cached", ".gitignore")
		git(t, repo, "add", "-f", "secret/key.pem")
		tree := git(t, repo, "write-tree")
		git(t, repo, "reset", "-q")
		return tree
	}()))
	write(t, filepath.Join(repo, "secret/key.pem"), "users-own-key\n")
	err := m.fastForwardCheckout(ctxT(t), repo, "refs/heads/main", "main", next)
	r := wantRefusal(t, err, "checkout_overlap")
	if !reflect.DeepEqual(r.Files, []string{"secret/key.pem"}) || read(t, filepath.Join(repo, "secret/key.pem")) != "users-own-key\n" {
		t.Fatalf("files %q; key %q", r.Files, read(t, filepath.Join(repo, "secret/key.pem")))
	}
}

func TestMergeCommitIdentitySubjectAndTrailer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, global, local string
		want                string
	}{
		{name: "no identity", want: "Clawboo <clawboo@localhost>"},
		{name: "global identity", global: "[user]\n\tname = Grace Hopper\n\temail = grace@example.com\n", want: "Grace Hopper <grace@example.com>"},
		{name: "repository identity", global: "[user]\n\tname = Grace Hopper\n\temail = grace@example.com\n", local: "Ada Lovelace", want: "Ada Lovelace <ada@example.com>"},
	} {
		for _, s := range []MergeStrategy{MergeCommit, MergeSquash} {
			t.Run(tc.name+"/"+string(s), func(t *testing.T) {
				t.Parallel()
				m, e := newManager(t)
				repo := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
				if tc.global != "" {
					write(t, filepath.Join(e.gitHome, ".gitconfig"), tc.global)
				}
				if tc.local != "" {
					git(t, repo, "config", "user.name", tc.local)
					git(t, repo, "config", "user.email", "ada@example.com")
				}
				w := provision(t, m, repo, "T1")
				agentCommit(t, w, map[string]string{"a.txt": "agent\n"})
				write(t, filepath.Join(w.Path, "late.txt"), "left uncommitted by the agent\n")
				msg := CommitMessage("Fix the\nlogin page", "What changed.", "Clawboo-Agent: Coder (claude-code)")
				if _, err := m.Merge(ctxT(t), w, MergeSpec{Strategy: s, Message: msg}); err != nil {
					t.Fatal(err)
				}
				got := git(t, repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s|%(trailers:key=Clawboo-Agent,valueonly)", "main")
				want := tc.want + "|" + tc.want + "|Fix the login page|Coder (claude-code)"
				if got != want {
					t.Fatalf("commit %q, want %q", got, want)
				}
				// What the agent left uncommitted is committed as Clawboo's.
				if a := git(t, repo, "log", "-1", "--format=%an", w.Branch); a != "Clawboo" {
					t.Fatalf("task commit by %q", a)
				}
			})
		}
	}
}

func TestMergeRefusedWhileTheCheckoutIsMidMerge(t *testing.T) {
	t.Parallel()
	m, _, repo, w := mergeFixture(t, map[string]string{"a.txt": "a\n", "notes.txt": "n\n"}, map[string]string{"a.txt": "agent\n"})
	// The person is halfway through a merge of their own, in notes.txt.
	git(t, repo, "switch", "-q", "-c", "side")
	write(t, filepath.Join(repo, "notes.txt"), "side\n")
	git(t, repo, "commit", "-qam", "side")
	git(t, repo, "switch", "-q", "main")
	write(t, filepath.Join(repo, "notes.txt"), "main\n")
	git(t, repo, "commit", "-qam", "main")
	cmd := exec.Command("git", "merge", "-q", "side")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("the fixture's merge did not conflict: %s", out)
	}
	main := git(t, repo, "rev-parse", "main")
	conflicted := read(t, filepath.Join(repo, "notes.txt"))
	_, err := m.Merge(ctxT(t), w, MergeSpec{})
	wantRefusal(t, err, "checkout_busy")
	if git(t, repo, "rev-parse", "main") != main || read(t, filepath.Join(repo, "notes.txt")) != conflicted || read(t, filepath.Join(repo, "a.txt")) != "a\n" {
		t.Fatal("a refused merge changed the checkout")
	}
}
