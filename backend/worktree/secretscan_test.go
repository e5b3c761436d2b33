package worktree

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestASecretValueInTheChangeIsNotCommitted (issue 26 §2.5b): a setup
// script wrote a task secret's value into a tracked file; Clawboo's commit
// refuses, naming the file and the secret (never the value), and leaves
// the file in the worktree, unstaged: nothing is lost, nothing committed.
func TestASecretValueInTheChangeIsNotCommitted(t *testing.T) {
	t.Parallel()
	const value = "rk_live_SCANNED_sentinel_77aa"
	e := newEnv(t)
	m, err := New(Options{
		Home: e.home, Environ: func() []string { return e.vars },
		TaskEnv: func(string) map[string]string {
			return map[string]string{"STRIPE_TEST_KEY": value, "SHORT_ONE": "abc", "CLAWBOO_PORT": "4100"}
		},
		Log: slog.New(slog.NewTextHandler(testWriter{t}, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	repo := newRepo(t, map[string]string{"config.env": "KEY=\n", "README.md": "hi\n"})
	w := provision(t, m, repo, "T1")
	write(t, filepath.Join(w.Path, "config.env"), "KEY="+value+"\n")
	write(t, filepath.Join(w.Path, "notes.md"), "abc is fine, 4100 too\n")
	_, err = m.Complete(ctxT(t), w)
	if !errors.Is(err, ErrSecretInCommit) || !strings.Contains(err.Error(), "config.env holds the value of the task secret STRIPE_TEST_KEY") {
		t.Fatalf("complete: %v", err)
	}
	if strings.Contains(err.Error(), value) {
		t.Fatal("the refusal names the value")
	}
	if log := git(t, repo, "log", "--all", "-p"); strings.Contains(log, value) {
		t.Fatal("the value reached a commit")
	}
	if got := git(t, w.Path, "diff", "--cached", "--name-only"); got != "" {
		t.Fatalf("left staged: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(w.Path, "config.env")); string(got) != "KEY="+value+"\n" {
		t.Fatalf("the file was changed: %q", got)
	}
	// Once the value is gone, the same task commits.
	write(t, filepath.Join(w.Path, "config.env"), "KEY=${STRIPE_TEST_KEY}\n")
	if o, err := m.Complete(ctxT(t), w); err != nil || !o.Changed {
		t.Fatalf("complete after the fix: %+v %v", o, err)
	}
}
