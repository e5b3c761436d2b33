package worktree

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/redact"
)

// Verification is the evidence of one verify run, stored on the task.
type Verification struct {
	Command  string
	ExitCode int // -1 when it never ran or was killed
	Passed   bool
	TimedOut bool
	// OutputTail is the last ~4000 characters of stdout and stderr in
	// arrival order, with secret-looking tokens replaced by [REDACTED].
	OutputTail string
	DurationMs int64
	StartedAt  int64 // Unix milliseconds
}

const (
	// DefaultVerifyTimeout applies when Verify is given none.
	DefaultVerifyTimeout = 10 * time.Minute
	// verifyGrace is how long a verify command has between SIGTERM and
	// SIGKILL after its deadline.
	verifyGrace = 3 * time.Second
	tailChars   = 4000
)

// verifyEnvNames is what a verify command sees of the server's environment:
// the base set, the package managers' configuration and the usual toolchain
// locations, so `go test`, `npm test` or `cargo test` behave as in the
// user's shell. Names only: provider keys never pass.
func verifyEnvNames() []string {
	names := append(proc.BaseEnv(), proc.InstallerEnv()...)
	return append(names,
		"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOPRIVATE",
		"GONOSUMDB", "GOTOOLCHAIN", "CGO_ENABLED", "CC", "CXX", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN",
		"JAVA_HOME", "GRADLE_USER_HOME", "NVM_DIR", "NODE_PATH", "PYENV_ROOT", "CONDA_PREFIX", "GEM_HOME",
		"GEM_PATH", "DOTNET_ROOT", "PKG_CONFIG_PATH")
}

// Verify runs `sh -c command` in the worktree, in its own process group,
// and reports whether it passed (exit 0 within timeout). On timeout the
// group gets SIGTERM, then SIGKILL after a grace period. CI=1 is set so test
// runners do not wait for a keyboard. An empty command is refused: a gate
// with nothing to run must not pass. Verify does not take the worktree's
// lock (it may run for minutes); the caller runs it between a run's end and
// Complete.
func (m *Manager) Verify(ctx context.Context, w Worktree, command string, timeout time.Duration) Verification {
	v := Verification{Command: command, ExitCode: -1, StartedAt: time.Now().UnixMilli()}
	if strings.TrimSpace(command) == "" {
		v.OutputTail = "no verify command configured: set one on the task or its repository"
		return v
	}
	if err := m.check(w, false); err != nil {
		v.OutputTail = err.Error()
		return v
	}
	if !present(w) {
		v.OutputTail = fmt.Sprintf("the worktree of task %s is not there (paused or removed)", w.TaskID)
		return v
	}
	// The verify command is the repository's, but the worktree is the
	// agent's: a forged .git link would hand the command's own git calls
	// a config the agent wrote. Such a worktree fails verification.
	if _, err := m.linkedGitDir(ctx, w.Path, w.RepoPath); err != nil {
		v.OutputTail = err.Error()
		return v
	}
	return m.runVerify(ctx, w, v, timeout)
}

// runVerify runs v.Command in w.Path, once the caller has checked the folder.
func (m *Manager) runVerify(ctx context.Context, w Worktree, v Verification, timeout time.Duration) Verification {
	command := v.Command
	if timeout <= 0 {
		timeout = DefaultVerifyTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	extra, hide := m.childEnv(w)
	start := time.Now()
	child, err := proc.Start(runCtx, proc.Spec{
		Path: m.sh, Args: []string{"-c", command}, Dir: w.Path,
		Env: proc.AllowEnv(m.environ(), verifyEnvNames(), proc.InstallerPrefixes(), extra), Grace: verifyGrace,
	})
	if err != nil {
		v.OutputTail = "could not start the verify command: " + err.Error()
		return v
	}
	var buf strings.Builder
	for l := range child.Lines() {
		buf.WriteString(hide.Hide(l.Text))
		if l.Truncated {
			buf.WriteString(" [line cut]")
		}
		buf.WriteByte('\n')
		if buf.Len() > 8*tailChars { // keep memory bounded, with room to scrub
			rest := tail(buf.String(), 2*tailChars)
			buf.Reset()
			buf.WriteString(rest)
		}
	}
	exit := child.Wait()
	v.DurationMs = time.Since(start).Milliseconds()
	v.ExitCode = exit.Code
	v.TimedOut = errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	out := tail(redact.Secrets(tail(buf.String(), 2*tailChars)), tailChars)
	switch {
	case v.TimedOut:
		out += fmt.Sprintf("\n[timed out after %s; the command's process group was stopped]", timeout)
	case ctx.Err() != nil:
		out += "\n[verification cancelled]"
	case exit.Signal != "":
		out += "\n[killed by " + exit.Signal + "]"
	}
	v.OutputTail = out
	v.Passed = exit.Code == 0 && exit.Err == nil && !v.TimedOut && ctx.Err() == nil
	return v
}
