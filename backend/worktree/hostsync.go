package worktree

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clawboo/desktop/backend/redact"
)

// Transport is how git reaches another machine's clone of a repository:
// its URL (ssh://…) and the person's own ssh with Clawboo's options, as
// git runs it (GIT_SSH_COMMAND). Nothing else is in the child's
// environment but what gitEnvNames and the ssh agent's socket allow.
type Transport struct {
	URL        string
	SSHCommand string
}

func (t Transport) env(m *Manager) map[string]string {
	env := m.pickEnv(credentialEnvNames)
	env["GIT_SSH_COMMAND"] = t.SSHCommand
	return env
}

// ErrNoHostBranch is a host with no branch of the task: its run changed
// nothing (the host's Clawboo removes an unchanged task's branch).
var ErrNoHostBranch = errors.New("the host has no branch of this task: its run changed nothing")

// hostRef is where a task's branch, fetched back from a host, is kept.
func hostRef(taskID string) string { return "refs/clawboo/host/" + taskID }

// transfer checks a transfer of w's branch to or from ref on a host and
// takes the worktree's lock for it.
func (m *Manager) transfer(ctx context.Context, w Worktree, verb, ref string) (func(), error) {
	if err := m.check(w, false); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(ref, "refs/heads/") || strings.ContainsAny(ref, " :~^?*[\\") {
		return nil, fmt.Errorf("%s task %s: %q is not a branch", verb, w.TaskID, ref)
	}
	return m.locks.lock(ctx, w.Path)
}

// SendTo commits the task's work in its worktree and pushes its branch to
// ref in the host's clone (replacing what a previous run left there). It
// answers the commit sent.
func (m *Manager) SendTo(ctx context.Context, w Worktree, t Transport, ref string) (string, error) {
	unlock, err := m.transfer(ctx, w, "send", ref)
	if err != nil {
		return "", err
	}
	defer unlock()
	if present(w) {
		if err := m.commitAll(ctx, w, w.workMessage(false)); err != nil {
			return "", fmt.Errorf("send task %s: %w", w.TaskID, err)
		}
	}
	tip, err := m.refCommit(ctx, w.RepoPath, "refs/heads/"+w.Branch)
	if err != nil || tip == "" {
		return "", fmt.Errorf("send task %s: its branch %s is gone (%v)", w.TaskID, w.Branch, err)
	}
	_, err = m.repoLocked(ctx, w.RepoPath, call{
		dir: w.RepoPath, noRetry: true, env: t.env(m),
		args: []string{"-c", "protocol.ext.allow=never", "push", "--no-verify", "--quiet", "--force", t.URL, tip + ":" + ref},
	})
	if err != nil {
		return "", fmt.Errorf("sending the task's branch to the host failed: %s", redact.Secrets(err.Error()))
	}
	return tip, nil
}

// TakeFrom fetches ref from the host's clone and moves the task's branch,
// in its worktree, forward to it: the host's commits follow the ones sent
// (a branch that moved here meanwhile is refused, and nothing is lost).
// It answers the commit taken.
func (m *Manager) TakeFrom(ctx context.Context, w Worktree, t Transport, ref string) (string, error) {
	unlock, err := m.transfer(ctx, w, "take", ref)
	if err != nil {
		return "", err
	}
	defer unlock()
	_, err = m.repoLocked(ctx, w.RepoPath, call{
		dir: w.RepoPath, noRetry: true, env: t.env(m),
		args: []string{"-c", "protocol.ext.allow=never", "fetch", "--no-tags", "--quiet", "--no-write-fetch-head", t.URL, "+" + ref + ":" + hostRef(w.TaskID)},
	})
	if err != nil && strings.Contains(err.Error(), "couldn't find remote ref") {
		return "", ErrNoHostBranch
	}
	if err != nil {
		return "", fmt.Errorf("fetching the task's branch from the host failed: %s", redact.Secrets(err.Error()))
	}
	tip, err := m.refCommit(ctx, w.RepoPath, hostRef(w.TaskID))
	if err != nil || tip == "" {
		return "", fmt.Errorf("the host's branch of task %s did not arrive (%v)", w.TaskID, err)
	}
	if present(w) {
		if _, err := m.runIn(ctx, w, "merge", "--ff-only", "--quiet", tip); err != nil {
			return "", fmt.Errorf("the host's work does not follow this branch's: %w", err)
		}
		return tip, nil
	}
	if ok, err := m.isAncestor(ctx, w.RepoPath, "refs/heads/"+w.Branch, tip); err != nil || !ok {
		return "", fmt.Errorf("the host's work does not follow branch %s (%v)", w.Branch, err)
	}
	if _, err := m.run(ctx, w.RepoPath, "update-ref", "refs/heads/"+w.Branch, tip); err != nil {
		return "", err
	}
	return tip, nil
}

// repoLocked runs c while no worktree of repo is being added or removed:
// a fetch's connectivity check reads every worktree's HEAD, and one that
// `git worktree add` has only begun to write is a "bad object" to it
// (60 tasks at once on three hosts failed so).
func (m *Manager) repoLocked(ctx context.Context, repo string, c call) (result, error) {
	unlock, err := m.locks.lock(ctx, "repo\x00"+repo)
	if err != nil {
		return result{}, err
	}
	defer unlock()
	return m.gitCall(ctx, c)
}
