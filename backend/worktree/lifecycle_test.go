package worktree

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A repository with an ignored .env in its checkout, and include, setup
// and teardown files committed.
func lifecycleRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	base := map[string]string{".gitignore": ".env\n.env.*\nlocal/\n"}
	for k, v := range files {
		base[k] = v
	}
	repo := newRepo(t, base)
	write(t, filepath.Join(repo, ".env"), "SECRET=sentinel-env\n")
	return repo
}

func portManager(t *testing.T) (*Manager, env) {
	t.Helper()
	e := newEnv(t)
	m, err := New(Options{
		Home: e.home, Environ: func() []string { return e.vars },
		TaskEnv: func(string) map[string]string {
			return map[string]string{"CLAWBOO_PORT": "41000", "CLAWBOO_PORTS": "41000,41001", "OPENAI_API_KEY": "leak"}
		},
		Log: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	return m, e
}

func TestSetupRunsOnceWithPortsFromTheBaseCommit(t *testing.T) {
	m, _ := portManager(t)
	repo := lifecycleRepo(t, map[string]string{".clawboo/setup": "echo port=$CLAWBOO_PORT ports=$CLAWBOO_PORTS key=${OPENAI_API_KEY:-none}\necho ran >> setup.log\n"})
	w := provision(t, m, repo, "t1")
	// The agent rewrites the script in its worktree: the base commit's runs.
	write(t, filepath.Join(w.Path, ".clawboo/setup"), "echo hijacked; exit 7\n")
	var lines []string
	res := m.Setup(ctxT(t), w, time.Minute, func(l string) { lines = append(lines, l) })
	if !res.Passed || !res.Ran || res.ExitCode != 0 {
		t.Fatalf("setup: %+v", res)
	}
	if len(lines) != 1 || lines[0] != "port=41000 ports=41000,41001 key=none" {
		t.Fatalf("lines %q", lines)
	}
	if got := read(t, filepath.Join(w.Path, "setup.log")); got != "ran\n" {
		t.Fatalf("setup.log %q", got)
	}
	// Once per worktree.
	if again := m.Setup(ctxT(t), w, time.Minute, nil); !again.Passed || again.Ran {
		t.Fatalf("second setup: %+v", again)
	}
}

func TestSetupFailureAndTimeout(t *testing.T) {
	m, _ := newManager(t)
	repo := lifecycleRepo(t, map[string]string{".clawboo/setup": "echo installing\necho broken >&2\nexit 3\n"})
	w := provision(t, m, repo, "t1")
	res := m.Setup(ctxT(t), w, time.Minute, nil)
	if res.Passed || res.ExitCode != 3 || !strings.Contains(res.Output, "installing") || !strings.Contains(res.Output, "broken") {
		t.Fatalf("failing setup: %+v", res)
	}
	repo2 := lifecycleRepo(t, map[string]string{".clawboo/setup": "sleep 30\n"})
	w2 := provision(t, m, repo2, "t2")
	res = m.Setup(ctxT(t), w2, 300*time.Millisecond, nil)
	if res.Passed || !res.TimedOut {
		t.Fatalf("slow setup: %+v", res)
	}
	// No script: a pass that did not run.
	w3 := provision(t, m, newRepo(t, nil), "t3")
	if res := m.Setup(ctxT(t), w3, time.Minute, nil); !res.Passed || res.Ran {
		t.Fatalf("no setup: %+v", res)
	}
}

func TestTeardownRunsBeforeRemovalAndPause(t *testing.T) {
	m, _ := portManager(t)
	out := filepath.Join(t.TempDir(), "teardown.log")
	// Teardown proves it ran in the worktree while it still existed.
	repo := lifecycleRepo(t, map[string]string{".clawboo/teardown": "test -f .gitignore && echo \"$CLAWBOO_TASK_ID $CLAWBOO_PORT $(pwd)\" >> '" + out + "'\n"})
	w := provision(t, m, repo, "t1")
	write(t, filepath.Join(w.Path, ".clawboo/teardown"), "echo hijacked >> '"+out+"'\n")
	if err := m.Remove(ctxT(t), w, true); err != nil {
		t.Fatal(err)
	}
	if got := read(t, out); got != "t1 41000 "+w.Path+"\n" {
		t.Fatalf("teardown log %q", got)
	}
	if exists(w.Path) {
		t.Fatal("worktree not removed")
	}
	w2 := provision(t, m, repo, "t2")
	if err := m.Pause(ctxT(t), w2); err != nil {
		t.Fatal(err)
	}
	if got := read(t, out); !strings.HasSuffix(got, "t2 41000 "+w2.Path+"\n") {
		t.Fatalf("teardown on pause %q", got)
	}
	// GC reaps through pause: teardown too.
	w3 := provision(t, m, repo, "t3")
	age(t, w3, 48*time.Hour)
	if _, err := m.GC(ctxT(t), GCPolicy{MaxAge: time.Hour, Keep: func(string) bool { return false }}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, out); !strings.HasSuffix(got, "t3 41000 "+w3.Path+"\n") {
		t.Fatalf("teardown on gc %q", got)
	}
}

func TestIncludeCopiesIgnoredFilesThatNeverEnterADiffOrCommit(t *testing.T) {
	m, _ := newManager(t)
	repo := lifecycleRepo(t, map[string]string{".clawboo/include": "# local files\n.env\nlocal/\n"})
	write(t, filepath.Join(repo, "local/db.sqlite"), "db")
	w := provision(t, m, repo, "t1")
	rep, err := m.CopyIncludes(ctxT(t), w)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Copied, ",") != ".env,local/db.sqlite" || len(rep.Skipped)+len(rep.Refused) != 0 {
		t.Fatalf("report %+v", rep)
	}
	if got := read(t, filepath.Join(w.Path, ".env")); got != "SECRET=sentinel-env\n" {
		t.Fatalf(".env %q", got)
	}
	// The agent un-ignores .env in its worktree and stages it itself.
	write(t, filepath.Join(w.Path, ".gitignore"), "!.env\n")
	write(t, filepath.Join(w.Path, "main.go"), "package main\n")
	git(t, w.Path, "add", ".env")
	d, err := m.Diff(ctxT(t), w)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(d.Diff, "sentinel-env") || strings.Contains(d.Diff, "db.sqlite") || !strings.Contains(d.Diff, "main.go") {
		t.Fatalf("diff shows an included file:\n%s", d.Diff)
	}
	o, err := m.Complete(ctxT(t), w)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(o.Diff, "sentinel-env") {
		t.Fatalf("complete diff shows .env:\n%s", o.Diff)
	}
	files := git(t, repo, "ls-tree", "-r", "--name-only", "refs/heads/"+w.Branch)
	if strings.Contains(files, ".env") || strings.Contains(files, "db.sqlite") || !strings.Contains(files, "main.go") {
		t.Fatalf("the branch holds %q", files)
	}
	// A second copy never replaces what the worktree has.
	write(t, filepath.Join(w.Path, ".env"), "mine\n")
	rep, err = m.CopyIncludes(ctxT(t), w)
	if err != nil || len(rep.Copied) != 0 || read(t, filepath.Join(w.Path, ".env")) != "mine\n" {
		t.Fatalf("recopy %+v %v", rep, err)
	}
}

func TestIncludeKeepsTrackedFilesThatMatch(t *testing.T) {
	m, _ := newManager(t)
	repo := newRepo(t, map[string]string{".clawboo/include": "config/*.json\n", "config/app.json": "{}\n"})
	w := provision(t, m, repo, "t1")
	write(t, filepath.Join(w.Path, "config/app.json"), "{\"changed\":true}\n")
	d, err := m.Diff(ctxT(t), w)
	if err != nil || !strings.Contains(d.Diff, "changed") {
		t.Fatalf("a tracked file's change was hidden: %v\n%s", err, d.Diff)
	}
}

func TestIncludeRefusesEscapesAndSymlinks(t *testing.T) {
	m, _ := newManager(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	write(t, outside, "outside")
	repo := lifecycleRepo(t, map[string]string{
		".clawboo/include": "../x\n/etc/passwd\n" + outside + "\nsub/../../y\n~/.ssh/id_rsa\n.git/config\n.env.link\n.env.dir/\n",
		".gitignore":       ".env*\n",
	})
	if err := os.Symlink(outside, filepath.Join(repo, ".env.link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(repo, ".env.dir")); err != nil {
		t.Fatal(err)
	}
	w := provision(t, m, repo, "t1")
	rep, err := m.CopyIncludes(ctxT(t), w)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refused) != 6 {
		t.Fatalf("refused %q", rep.Refused)
	}
	for _, r := range rep.Refused {
		if strings.HasPrefix(r, ".env") {
			t.Fatalf("a plain glob was refused: %q", r)
		}
	}
	if len(rep.Copied) != 0 {
		t.Fatalf("copied %q (skipped %q)", rep.Copied, rep.Skipped)
	}
	if exists(filepath.Join(w.Path, ".env.link")) || exists(filepath.Join(w.Path, ".env.dir")) {
		t.Fatal("a symlink was copied")
	}
	// A committed symlink in the worktree cannot aim a copy outside it.
	repo2 := lifecycleRepo(t, map[string]string{".clawboo/include": "conf/.env\n", ".gitignore": "conf/.env\n"})
	target := t.TempDir()
	if err := os.Symlink(target, filepath.Join(repo2, "conf")); err != nil {
		t.Fatal(err)
	}
	git(t, repo2, "add", "conf")
	git(t, repo2, "commit", "-q", "-m", "link")
	if err := os.Remove(filepath.Join(repo2, "conf")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo2, "conf/.env"), "x")
	w2 := provision(t, m, repo2, "t2")
	rep, _ = m.CopyIncludes(ctxT(t), w2)
	if exists(filepath.Join(target, ".env")) || len(rep.Copied) != 0 {
		t.Fatalf("copied through a symlink: %+v", rep)
	}
}

func TestParseInclude(t *testing.T) {
	globs, refused := parseInclude(".env\n  .env.local  \n# c\n\n!.env.example\nsecrets/**/*.pem\n..\na/../b\nC:\\x\n")
	if strings.Join(globs, "|") != ".env|.env.local|!.env.example|secrets/**/*.pem" || len(refused) != 3 {
		t.Fatalf("globs %q refused %q", globs, refused)
	}
}
