package worktree

import (
	"strings"
	"testing"
	"time"
)

func TestVerify(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	w := provision(t, m, repo, "T1")
	cases := []struct {
		name, cmd  string
		passed     bool
		code       int
		has, hasnt []string
	}{
		{"pass", "echo hello; test -f README.md", true, 0, []string{"hello"}, nil},
		{"fail", "echo out; echo err >&2; exit 3", false, 3, []string{"out\n", "err\n"}, nil},
		{
			"env", "env", true, 0,
			[]string{"CI=1", "CLAWBOO_TASK_ID=T1", "npm_config_registry="},
			[]string{"sentinel", "GIT_DIR", "GIT_INDEX_FILE", "ANTHROPIC", "OPENAI"},
		},
		{
			"scrubbed", "echo key sk-ant-abcdefghijklmnopqrstuvwxyz012; echo GITHUB_TOKEN=hunter2hunter2; echo https://bob:pw1234@example.com/x",
			true, 0,
			[]string{"key [REDACTED]", "GITHUB_TOKEN=[REDACTED]", "https://bob:[REDACTED]@example.com/x"},
			[]string{"sk-ant", "hunter2", "pw1234"},
		},
		{"git sees the worktree", "git rev-parse --abbrev-ref HEAD", true, 0, []string{"clawboo/task-T1"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := m.Verify(ctxT(t), w, c.cmd, 30*time.Second)
			if v.Passed != c.passed || v.ExitCode != c.code || v.TimedOut || v.Command != c.cmd {
				t.Fatalf("%+v", v)
			}
			for _, s := range c.has {
				if !strings.Contains(v.OutputTail, s) {
					t.Errorf("tail lacks %q:\n%s", s, v.OutputTail)
				}
			}
			for _, s := range c.hasnt {
				if strings.Contains(v.OutputTail, s) {
					t.Errorf("tail has %q:\n%s", s, v.OutputTail)
				}
			}
			if v.StartedAt == 0 || v.DurationMs < 0 {
				t.Errorf("timing %+v", v)
			}
		})
	}
}

func TestVerifyTimeoutKillsTheGroup(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	w := provision(t, m, newRepo(t, nil), "T1")
	start := time.Now()
	v := m.Verify(ctxT(t), w, "trap '' TERM; echo started; sleep 60; echo never", 300*time.Millisecond)
	took := time.Since(start)
	if v.Passed || !v.TimedOut || v.ExitCode != -1 {
		t.Fatalf("%+v", v)
	}
	if took > 300*time.Millisecond+verifyGrace+2*time.Second {
		t.Fatalf("took %v", took)
	}
	if !strings.Contains(v.OutputTail, "started") || !strings.Contains(v.OutputTail, "timed out after 300ms") || strings.Contains(v.OutputTail, "never") {
		t.Fatalf("tail %q", v.OutputTail)
	}
}

func TestVerifyOutputIsBounded(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	w := provision(t, m, newRepo(t, nil), "T1")
	v := m.Verify(ctxT(t), w, "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); echo line $i; done", time.Minute)
	if !v.Passed || len(v.OutputTail) > tailChars || !strings.HasSuffix(v.OutputTail, "line 20000\n") {
		t.Fatalf("%d chars, ends %q", len(v.OutputTail), tail(v.OutputTail, 40))
	}
	if strings.Contains(v.OutputTail, "line 1\n") {
		t.Fatal("kept the head, not the tail")
	}
}

func TestVerifyRefuses(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	w := provision(t, m, newRepo(t, nil), "T1")
	for _, cmd := range []string{"", "  \n"} {
		v := m.Verify(ctxT(t), w, cmd, time.Second)
		if v.Passed || v.ExitCode != -1 || !strings.Contains(v.OutputTail, "no verify command") {
			t.Errorf("%q: %+v", cmd, v)
		}
	}
	bad := w
	bad.Path = t.TempDir()
	if v := m.Verify(ctxT(t), bad, "true", time.Second); v.Passed {
		t.Error("ran outside our worktrees")
	}
	if err := m.Pause(ctxT(t), w); err != nil {
		t.Fatal(err)
	}
	if v := m.Verify(ctxT(t), w, "true", time.Second); v.Passed || !strings.Contains(v.OutputTail, "not there") {
		t.Errorf("paused: %+v", v)
	}
}

func TestGitChildEnvironment(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, nil)
	// An alias runs a shell with the environment git was given.
	out, err := m.run(ctxT(t), repo, "-c", "alias.envdump=!env", "envdump")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"sentinel", "/nonexistent"} {
		if strings.Contains(out, s) {
			t.Errorf("git's environment has %q:\n%s", s, out)
		}
	}
	if !strings.Contains(out, "GIT_TERMINAL_PROMPT=0") {
		t.Errorf("git's environment:\n%s", out)
	}
}
