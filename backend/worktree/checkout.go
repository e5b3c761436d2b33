package worktree

import (
	"context"
	"strings"
	"time"
)

// Checkout resolves repo to its checkout's top level (symlinks resolved),
// the folder a work-in-place task works in instead of a worktree. It
// checks the repository as Provision does and changes nothing.
func (m *Manager) Checkout(ctx context.Context, repo string) (string, error) {
	return m.resolveRepo(ctx, repo)
}

// CheckoutVerifyCommand is the first non-comment line of .clawboo/verify as
// the checkout's HEAD commit has it (so an edit the agent left in the
// working copy does not change the gate), or "".
func (m *Manager) CheckoutVerifyCommand(ctx context.Context, repo string) string {
	top, err := m.resolveRepo(ctx, repo)
	if err != nil {
		return ""
	}
	out, err := m.run(ctx, top, "show", "HEAD:.clawboo/verify")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(out, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			return line
		}
	}
	return ""
}

// VerifyCheckout runs a work-in-place task's verify command in the
// repository's own checkout, as Verify does in a worktree (its own process
// group, the allowlisted environment with the task's variables, the time
// limit).
func (m *Manager) VerifyCheckout(ctx context.Context, repo, taskID, command string, timeout time.Duration) Verification {
	v := Verification{Command: command, ExitCode: -1, StartedAt: time.Now().UnixMilli()}
	if strings.TrimSpace(command) == "" {
		v.OutputTail = "no verify command configured: set one on the task or its repository"
		return v
	}
	top, err := m.resolveRepo(ctx, repo)
	if err != nil {
		v.OutputTail = err.Error()
		return v
	}
	return m.runVerify(ctx, Worktree{TaskID: taskID, RepoPath: top, Path: top}, v, timeout)
}
