package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/redact"
)

// The repository's lifecycle scripts, read from the task's base commit
// (never from the worktree, which is the agent's): setup runs once in a new
// worktree before the agent starts, teardown before a worktree is removed.
// Each is a shell script run with sh in the worktree.
const (
	setupFile    = ".clawboo/setup"
	teardownFile = ".clawboo/teardown"
	// setupDone, in the worktree's private git dir, says setup passed for
	// this checkout; it goes with the worktree, so a new one runs it again.
	setupDone = "clawboo-setup-done"
	// maxScript bounds a script read from the base commit.
	maxScript = 64 << 10
	// DefaultSetupTimeout bounds a setup script, TeardownTimeout a teardown
	// (it runs on the way to removing the folder, under its lock).
	DefaultSetupTimeout = 10 * time.Minute
	TeardownTimeout     = 2 * time.Minute
)

// ScriptResult is the evidence of one setup or teardown run.
type ScriptResult struct {
	Script   string // the script's path in the repository
	Ran      bool   // false: there was none (or it already passed here)
	ExitCode int    // -1 when it never ran or was killed
	Passed   bool
	TimedOut bool
	// Output is the last ~4000 characters of stdout and stderr, secrets
	// redacted.
	Output     string
	DurationMs int64
}

// Setup runs the base commit's .clawboo/setup in the worktree, once per
// worktree: after it passes, later runs in the same folder skip it. Each
// output line is handed to onLine (redacted) as it arrives. No script is a
// pass that did not run.
func (m *Manager) Setup(ctx context.Context, w Worktree, timeout time.Duration, onLine func(string)) ScriptResult {
	res := ScriptResult{Script: setupFile, ExitCode: -1}
	if err := m.check(w, true); err != nil {
		res.Output = err.Error()
		return res
	}
	if !present(w) {
		res.Output = fmt.Sprintf("the worktree of task %s is not there", w.TaskID)
		return res
	}
	gitDir, err := m.linkedGitDir(ctx, w.Path, w.RepoPath)
	if err != nil {
		res.Output = err.Error()
		return res
	}
	marker := filepath.Join(gitDir, setupDone)
	if exists(marker) {
		res.Passed = true
		return res
	}
	script, err := m.BaseFile(ctx, w, setupFile, maxScript)
	if errors.Is(err, fs.ErrNotExist) || err == nil && strings.TrimSpace(string(script)) == "" {
		res.Passed = true
		return res
	}
	if err != nil {
		res.Output = "could not read " + setupFile + " from the base commit: " + err.Error()
		return res
	}
	if timeout <= 0 {
		timeout = DefaultSetupTimeout
	}
	res = m.script(ctx, w, setupFile, string(script), timeout, onLine)
	if res.Passed {
		if err := os.WriteFile(marker, []byte(w.BaseCommit+"\n"), 0o600); err != nil {
			m.log.Warn("setup marker not written", "task", w.TaskID, "err", err)
		}
	}
	return res
}

// teardown runs the base commit's .clawboo/teardown in a worktree about to
// be removed. It never stops the removal: a failure is logged. A worktree
// whose .git link was tampered with gets no teardown (the script's own git
// calls would read the agent's config).
func (m *Manager) teardown(ctx context.Context, w Worktree) {
	if !present(w) {
		return
	}
	base, err := m.baseOf(ctx, w)
	if err != nil || base == "" {
		return
	}
	w.BaseCommit = base
	script, err := m.BaseFile(ctx, w, teardownFile, maxScript)
	if err != nil || strings.TrimSpace(string(script)) == "" {
		return
	}
	if _, err := m.linkedGitDir(ctx, w.Path, w.RepoPath); err != nil {
		m.log.Warn("teardown skipped", "task", w.TaskID, "err", err)
		return
	}
	res := m.script(ctx, w, teardownFile, string(script), TeardownTimeout, nil)
	if !res.Passed {
		m.log.Warn("teardown failed", "task", w.TaskID, "exit", res.ExitCode, "timedOut", res.TimedOut, "output", tail(res.Output, 500))
	}
}

// script runs `sh -c body` in the worktree: its own process group, the
// verify allowlist of the environment plus the task's (its ports), bounded
// output, SIGTERM then SIGKILL at the deadline.
func (m *Manager) script(ctx context.Context, w Worktree, name, body string, timeout time.Duration, onLine func(string)) ScriptResult {
	res := ScriptResult{Script: name, Ran: true, ExitCode: -1}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	extra, hide := m.childEnv(w)
	child, err := proc.Start(runCtx, proc.Spec{
		Path: m.sh, Args: []string{"-c", body, name}, Dir: w.Path,
		Env: proc.AllowEnv(m.environ(), verifyEnvNames(), proc.InstallerPrefixes(), extra), Grace: verifyGrace,
	})
	if err != nil {
		res.Output = "could not start " + name + ": " + err.Error()
		return res
	}
	var buf strings.Builder
	for l := range child.Lines() {
		text := hide.Hide(l.Text)
		if l.Truncated {
			text += " [line cut]"
		}
		if onLine != nil {
			onLine(redact.Secrets(text))
		}
		buf.WriteString(text)
		buf.WriteByte('\n')
		if buf.Len() > 8*tailChars {
			rest := tail(buf.String(), 2*tailChars)
			buf.Reset()
			buf.WriteString(rest)
		}
	}
	exit := child.Wait()
	res.DurationMs = time.Since(start).Milliseconds()
	res.ExitCode = exit.Code
	res.TimedOut = errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	out := tail(redact.Secrets(tail(buf.String(), 2*tailChars)), tailChars)
	switch {
	case res.TimedOut:
		out += fmt.Sprintf("\n[timed out after %s; the script's process group was stopped]", timeout)
	case ctx.Err() != nil:
		out += "\n[cancelled]"
	case exit.Signal != "":
		out += "\n[killed by " + exit.Signal + "]"
	}
	res.Output = out
	res.Passed = exit.Code == 0 && exit.Err == nil && !res.TimedOut && ctx.Err() == nil
	return res
}

// childEnv is what the host adds to a verify, setup or teardown child's
// environment: the task's own variables from Options.TaskEnv (its ports,
// CLAWBOO_*, and its vault secrets, which may not take a name the host
// owns), then CI=1, the task id and a git ceiling above the worktree. The
// Hider hides the secrets' values in what the child prints.
func (m *Manager) childEnv(w Worktree) (map[string]string, *redact.Hider) {
	extra, secrets := map[string]string{}, map[string]string{}
	if m.taskEnv != nil {
		for k, v := range m.taskEnv(w.TaskID) {
			switch {
			case strings.HasPrefix(k, "CLAWBOO_"):
				extra[k] = v
			case !proc.HostOwned(k):
				extra[k], secrets[k] = v, v
			}
		}
	}
	extra["CI"] = "1"
	extra["CLAWBOO_TASK_ID"] = w.TaskID
	extra["GIT_CEILING_DIRECTORIES"] = filepath.Dir(w.Path)
	return extra, redact.Values(secrets)
}
