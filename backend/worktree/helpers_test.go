package worktree

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// env is what the tests hand the manager as the server's environment:
// provider keys and GIT_* redirections that must never reach a child.
type env struct {
	home    string // Options.Home
	gitHome string // $HOME for git: no user config, no identity
	vars    []string
}

func newEnv(t *testing.T) env {
	t.Helper()
	e := env{home: t.TempDir(), gitHome: t.TempDir()}
	e.vars = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + e.gitHome,
		"ANTHROPIC_API_KEY=sentinel-anthropic", "OPENAI_API_KEY=sentinel-openai",
		"GIT_DIR=/nonexistent-gitdir", "GIT_INDEX_FILE=/nonexistent-index",
		"npm_config__authToken=sentinel-npm", "npm_config_registry=https://registry.example",
	}
	return e
}

func newManager(t *testing.T) (*Manager, env) {
	t.Helper()
	e := newEnv(t)
	m, err := New(Options{
		Home: e.home, Environ: func() []string { return e.vars },
		Log: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	return m, e
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// git runs git for a test fixture, outside the package under test, with
// an isolated config and an identity.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=t@example.com",
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo makes a repository (at a path with a space and non-ASCII
// letters) with files committed on main.
func newRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "my répo ☃")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	if files == nil {
		files = map[string]string{"README.md": "hello\n"}
	}
	for name, body := range files {
		write(t, filepath.Join(dir, name), body)
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "first")
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func provision(t *testing.T, m *Manager, repo, id string) Worktree {
	t.Helper()
	w, err := m.Provision(ctxT(t), ProvisionSpec{TaskID: id, RepoPath: repo})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func branchExists(t *testing.T, repo, branch string) bool {
	t.Helper()
	cmd := exec.Command("git", "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	cmd.Dir = repo
	return cmd.Run() == nil
}

// age makes a worktree look created d ago (GC reads the .git link's mtime).
func age(t *testing.T, w Worktree, d time.Duration) {
	t.Helper()
	at := time.Now().Add(-d)
	if err := os.Chtimes(filepath.Join(w.Path, ".git"), at, at); err != nil {
		t.Fatal(err)
	}
}
