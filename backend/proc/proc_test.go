package proc

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The test binary doubles as the child program: PROC_CHILD picks a role.
func TestMain(m *testing.M) {
	if role := os.Getenv("PROC_CHILD"); role != "" {
		child(role)
		return
	}
	goleak.VerifyTestMain(m)
}

func child(role string) {
	switch role {
	case "lines":
		fmt.Println("out one")
		fmt.Fprintln(os.Stderr, "err one")
		fmt.Print("crlf\r\n")
		fmt.Print(strings.Repeat("x", 200) + "\n")
		fmt.Print("no newline at end")
	case "exit":
		n, _ := strconv.Atoi(os.Getenv("PROC_CODE"))
		os.Exit(n)
	case "env":
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
	case "stubborn": // ignores SIGTERM, as a hung CLI might
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		time.Sleep(time.Hour)
	case "parent": // starts a grandchild in the same group, then waits
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), "PROC_CHILD=sleeper")
		gc.Stdout = os.Stdout
		_ = gc.Start()
		fmt.Println(gc.Process.Pid)
		time.Sleep(time.Hour)
	case "orphaner": // leaves a grandchild holding stdout, then exits
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), "PROC_CHILD=sleeper")
		gc.Stdout = os.Stdout
		_ = gc.Start()
		fmt.Println(gc.Process.Pid)
	case "sleeper":
		time.Sleep(time.Hour)
	case "echo": // echoes stdin lines back until end-of-file
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			fmt.Println("got " + sc.Text())
		}
	}
	os.Exit(0)
}

func spawn(t *testing.T, ctx context.Context, role string, extra ...string) *Child {
	t.Helper()
	env := append([]string{"PROC_CHILD=" + role}, extra...)
	c, err := Start(ctx, Spec{Path: os.Args[0], Env: env, Grace: 200 * time.Millisecond, MaxLine: 50})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func collect(c *Child) []Line {
	var out []Line
	for l := range c.Lines() {
		out = append(out, l)
	}
	return out
}

func TestLinesAreBoundedAndComplete(t *testing.T) {
	c := spawn(t, context.Background(), "lines")
	lines := collect(c)
	if ex := c.Wait(); ex.Code != 0 || ex.Err != nil {
		t.Fatalf("%+v", ex)
	}
	var out []string
	var errs []string
	for _, l := range lines {
		if l.Stderr {
			errs = append(errs, l.Text)
			continue
		}
		s := l.Text
		if l.Truncated {
			s += "…"
		}
		out = append(out, s)
	}
	want := []string{"out one", "crlf", strings.Repeat("x", 50) + "…", "no newline at end"}
	if strings.Join(out, "|") != strings.Join(want, "|") || len(errs) != 1 || errs[0] != "err one" {
		t.Fatalf("out %q err %q", out, errs)
	}
}

func TestExitCodes(t *testing.T) {
	c := spawn(t, context.Background(), "exit", "PROC_CODE=7")
	collect(c)
	if ex := c.Wait(); ex.Code != 7 || ex.Signal != "" {
		t.Fatalf("%+v", ex)
	}
	if _, err := Start(context.Background(), Spec{Path: "/nonexistent/program"}); err == nil {
		t.Fatal("start of a missing program must fail")
	}
}

func TestEnvIsOnlyWhatWasGiven(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-sentinel-never-pass-me")
	env := AllowEnv(append(os.Environ(), "npm_config__authToken=tok", "npm_config_prefix=/p"), BaseEnv(), InstallerPrefixes(), map[string]string{"PROC_CHILD": "env"})
	c, err := Start(context.Background(), Spec{Path: os.Args[0], Env: env})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for l := range c.Lines() {
		got = append(got, l.Text)
	}
	c.Wait()
	all := strings.Join(got, "\n")
	if strings.Contains(all, "sk-sentinel") || strings.Contains(all, "_authToken") {
		t.Fatalf("secret leaked into child env:\n%s", all)
	}
	if !strings.Contains(all, "npm_config_prefix=/p") || !strings.Contains(all, "PROC_CHILD=env") {
		t.Fatalf("allowed names missing:\n%s", all)
	}
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		// Reap if it is our child; otherwise just probe.
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if !alive(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d still alive", pid)
}

func TestCancelKillsTheWholeGroupEvenIfStubborn(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := spawn(t, ctx, "stubborn")
	if l := <-c.Lines(); l.Text != "ready" {
		t.Fatal(l)
	}
	start := time.Now()
	cancel()
	ex := c.Wait()
	collect(c)
	if ex.Signal != "killed" || time.Since(start) > 3*time.Second {
		t.Fatalf("%+v after %v", ex, time.Since(start))
	}
}

func TestStopReachesGrandchildren(t *testing.T) {
	c := spawn(t, context.Background(), "parent")
	l := <-c.Lines()
	gpid, err := strconv.Atoi(l.Text)
	if err != nil {
		t.Fatal(l)
	}
	c.Stop()
	c.Wait()
	collect(c)
	waitGone(t, gpid)
}

func TestOrphanedGrandchildDoesNotHangTheReader(t *testing.T) {
	c := spawn(t, context.Background(), "orphaner")
	l := <-c.Lines()
	gpid, _ := strconv.Atoi(l.Text)
	defer syscall.Kill(gpid, syscall.SIGKILL)
	c.Wait()
	done := make(chan struct{})
	go func() { collect(c); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("lines never closed while a grandchild held the pipe")
	}
}

func TestResolverFindsUserFoldersAndNoticesInstalls(t *testing.T) {
	home := t.TempDir()
	pathDir := t.TempDir()
	env := map[string]string{"HOME": home, "PATH": pathDir, "NPM_CONFIG_PREFIX": filepath.Join(home, "npm")}
	changed := make(chan struct{}, 8)
	r := NewResolver(ResolverOptions{Getenv: func(k string) string { return env[k] }, OnChange: func() { changed <- struct{}{} }})
	defer r.Close()
	dirs := strings.Join(r.Dirs(), ",")
	for _, want := range []string{pathDir, filepath.Join(home, ".local", "bin"), filepath.Join(home, "npm", "bin")} {
		if !strings.Contains(dirs, want) {
			t.Fatalf("%s not searched: %s", want, dirs)
		}
	}
	if _, ok := r.Find("hermes"); ok {
		t.Fatal("found a program that does not exist")
	}
	// pipx creates ~/.local/bin (missing until now) and drops the program.
	bin := filepath.Join(home, ".local", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "hermes"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(5 * time.Second)
	for {
		if p, ok := r.Find("hermes"); ok {
			if p != filepath.Join(bin, "hermes") {
				t.Fatal(p)
			}
			break
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("install not noticed")
		}
	}
	// Not executable, or a folder, is not a program.
	_ = os.WriteFile(filepath.Join(pathDir, "plain"), []byte("x"), 0o644)
	_ = os.Mkdir(filepath.Join(pathDir, "adir"), 0o755)
	r.Invalidate()
	if _, ok := r.Find("plain"); ok {
		t.Fatal("non-executable file found")
	}
	if _, ok := r.Find("adir"); ok {
		t.Fatal("folder found")
	}
	if _, ok := r.Find("../etc/passwd"); ok {
		t.Fatal("path accepted as a name")
	}
}

func TestNpmPrefixFromNpmrc(t *testing.T) {
	home := t.TempDir()
	_ = os.WriteFile(filepath.Join(home, ".npmrc"), []byte("registry=x\nprefix = ~/.npm-global\n"), 0o644)
	got := npmPrefix(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if got != filepath.Join(home, ".npm-global") {
		t.Fatal(got)
	}
}

func TestStdinIsAPipeTheCallerWrites(t *testing.T) {
	c, err := Start(context.Background(), Spec{Path: os.Args[0], Env: []string{"PROC_CHILD=echo"}, Stdin: true})
	if err != nil {
		t.Fatal(err)
	}
	in := c.Stdin()
	if _, err := io.WriteString(in, "one\ntwo\n"); err != nil {
		t.Fatal(err)
	}
	first := <-c.Lines()
	if first.Text != "got one" {
		t.Fatalf("%+v", first)
	}
	if err := in.Close(); err != nil { // end-of-file: the child finishes
		t.Fatal(err)
	}
	rest := collect(c)
	if ex := c.Wait(); ex.Code != 0 || len(rest) != 1 || rest[0].Text != "got two" {
		t.Fatalf("%+v %+v", ex, rest)
	}
	if _, err := io.WriteString(in, "late\n"); err == nil {
		t.Fatal("a write after the child is gone must fail")
	}
}

func TestNoStdinUnlessAsked(t *testing.T) {
	c := spawn(t, context.Background(), "echo")
	if c.Stdin() != nil {
		t.Fatal("stdin without Spec.Stdin")
	}
	// /dev/null: the echo child sees end-of-file at once and exits.
	if out := collect(c); len(out) != 0 || c.Wait().Code != 0 {
		t.Fatalf("%+v", out)
	}
}

func TestHostOwnedNames(t *testing.T) {
	for _, n := range []string{
		"PATH", "path", "HOME", "LD_PRELOAD", "DYLD_INSERT_LIBRARIES", "GIT_DIR", "git_config_global",
		"CLAWBOO_PORT", "NODE_OPTIONS", "BASH_ENV", "PYTHONPATH", "npm_config_prefix", "LC_ALL", "XDG_CONFIG_HOME", "CI", "IFS",
		"CODEX_HOME", "HERMES_HOME", "CLAUDE_CONFIG_DIR", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "PYTHONUNBUFFERED",
		"GCONV_PATH", "OPENSSL_CONF", "MAKEFLAGS", "PROMPT_COMMAND", "EDITOR", "PAGER", "CC", "CURL_HOME", "WGETRC",
		"VISUAL", "BROWSER", "LESSOPEN", "CFLAGS", "LDFLAGS", "GLIBC_TUNABLES", "MALLOC_ARENA_MAX", "SSH_ASKPASS",
	} {
		if !HostOwned(n) {
			t.Errorf("%s is the host's", n)
		}
	}
	for _, n := range []string{"STRIPE_TEST_KEY", "DATABASE_URL", "MY_TOKEN", "PATHFINDER_KEY", "GITHUB_TOKEN", "CCACHE_KEY", "EDITORIAL_API_URL"} {
		if HostOwned(n) {
			t.Errorf("%s is a user's name", n)
		}
	}
}
