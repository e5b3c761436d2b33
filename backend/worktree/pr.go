package worktree

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/redact"
)

// credentialEnvNames reach a push (and gh) on top of git's own set: how
// the user's ssh agent, credential helpers (a keyring over D-Bus, a
// desktop askpass) and CA bundle are found. Their values stay in the
// environment; no token is ever put on a command line.
var credentialEnvNames = []string{
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR",
	"DBUS_SESSION_BUS_ADDRESS", "SSL_CERT_FILE", "SSL_CERT_DIR",
}

// ghEnvNames is what gh reads: where its own login lives and which host,
// and the user's own token variables when that is how they log gh in.
var ghEnvNames = []string{"GH_CONFIG_DIR", "GH_HOST", "GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"}

// pickEnv is the named variables' values in the server's environment.
func (m *Manager) pickEnv(names []string) map[string]string {
	out := map[string]string{}
	for _, kv := range m.environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			for _, n := range names {
				if k == n {
					out[k] = v
				}
			}
		}
	}
	return out
}

// PushResult says where a task's branch went.
type PushResult struct {
	Remote string `json:"remote"`
	Branch string `json:"branch"`
}

// Push sends the task's branch to the repository's remote (origin, or its
// only remote) under the same name, with the user's own credentials (ssh
// agent, credential helper) and no prompt. Uncommitted work in the
// worktree is committed first. No hook runs (pre-push included), the ext::
// transport is refused, and a rejected push (the remote branch moved) is a
// push_rejected refusal, never forced.
func (m *Manager) Push(ctx context.Context, w Worktree) (PushResult, error) {
	if err := m.check(w, false); err != nil {
		return PushResult{}, err
	}
	unlock, err := m.locks.lock(ctx, w.Path)
	if err != nil {
		return PushResult{}, err
	}
	defer unlock()
	if present(w) {
		if err := m.commitAll(ctx, w, w.workMessage(false)); err != nil {
			return PushResult{}, fmt.Errorf("push task %s: %w", w.TaskID, err)
		}
	}
	if tip, err := m.refCommit(ctx, w.RepoPath, "refs/heads/"+w.Branch); err != nil || tip == "" {
		if err == nil {
			err = refusal("branch_missing", "the task's branch %s is gone from %s", w.Branch, w.RepoPath)
		}
		return PushResult{}, err
	}
	remote, err := m.Remote(ctx, w.RepoPath)
	if err != nil {
		return PushResult{}, err
	}
	spec := "refs/heads/" + w.Branch + ":refs/heads/" + w.Branch
	_, err = m.gitCall(ctx, call{
		dir: w.RepoPath, noRetry: true, env: m.pickEnv(credentialEnvNames),
		args: []string{"-c", "protocol.ext.allow=never", "push", "--no-verify", "--quiet", remote, spec},
	})
	if err != nil {
		msg := redact.Secrets(err.Error())
		if strings.Contains(msg, "rejected") || strings.Contains(msg, "non-fast-forward") || strings.Contains(msg, "fetch first") {
			return PushResult{}, refusal("push_rejected", "%s refused the push of %s (the branch there has commits this one lacks): %s", remote, w.Branch, msg)
		}
		return PushResult{}, refusal("push_failed", "pushing %s to %s failed: %s", w.Branch, remote, msg)
	}
	return PushResult{Remote: remote, Branch: w.Branch}, nil
}

// Remote is the repository's remote a task is pushed to: origin, or the
// only one. None (or several, none named origin) is a no_remote refusal.
func (m *Manager) Remote(ctx context.Context, repo string) (string, error) {
	out, err := m.run(ctx, repo, "remote")
	if err != nil {
		return "", err
	}
	names := strings.Fields(out)
	for _, n := range names {
		if n == "origin" {
			return n, nil
		}
	}
	if len(names) == 1 {
		return names[0], nil
	}
	if len(names) == 0 {
		return "", refusal("no_remote", "%s has no remote to push to: add one (git remote add origin <url>)", repo)
	}
	return "", refusal("no_remote", "%s has %d remotes and none is named origin: cannot tell which to push to", repo, len(names))
}

// PRSpec is a pull request to open.
type PRSpec struct {
	Repo   string // the repository's top level (gh reads its remotes)
	Branch string // the pushed head branch
	Base   string // "" = the host's default branch
	Title  string
	Body   string
}

// ghTimeout bounds one gh command (it talks to the network).
const ghTimeout = 2 * time.Minute

// GitHubCLI says whether gh can open pull requests here: found on PATH
// and logged in (`gh auth status`). When it cannot, why says so in words.
func (m *Manager) GitHubCLI(ctx context.Context) (path string, why string) {
	env := m.environ()
	getenv := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if name, v, ok := strings.Cut(env[i], "="); ok && name == k {
				return v
			}
		}
		return ""
	}
	res := proc.NewResolver(proc.ResolverOptions{Getenv: getenv, NoWatch: true})
	defer res.Close()
	p, ok := res.Find("gh")
	if !ok {
		return "", "gh (the GitHub CLI) is not installed"
	}
	if _, err := m.gh(ctx, p, "", "auth", "status"); err != nil {
		return "", "gh is not logged in (" + truncate(err.Error(), 200) + ")"
	}
	return p, ""
}

// OpenPR opens a pull request with gh (found by GitHubCLI) and returns its
// address. Title and body go as single --flag=value arguments, never read
// as flags; gh's own git calls run with hooks off.
func (m *Manager) OpenPR(ctx context.Context, gh string, s PRSpec) (string, error) {
	title := strings.ReplaceAll(strings.TrimSpace(s.Title), "\x00", "")
	if title == "" {
		title = s.Branch
	}
	args := []string{"pr", "create", "--head=" + s.Branch, "--title=" + title, "--body=" + strings.ReplaceAll(s.Body, "\x00", "")}
	if s.Base != "" {
		args = append(args, "--base="+s.Base)
	}
	out, err := m.gh(ctx, gh, s.Repo, args...)
	if err != nil {
		return "", err
	}
	url := ""
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") {
			url = l
		}
	}
	if url == "" {
		return "", fmt.Errorf("gh opened no pull request: %s", truncate(redact.Secrets(out), 300))
	}
	return url, nil
}

// gh runs the GitHub CLI in dir with git's allowlisted environment, the
// user's gh login and credential variables, no prompts and no hooks.
func (m *Manager) gh(ctx context.Context, gh, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, ghTimeout)
	defer cancel()
	extra := m.pickEnv(append(append([]string(nil), credentialEnvNames...), ghEnvNames...))
	for k, v := range map[string]string{
		"GH_PROMPT_DISABLED": "1", "GH_NO_UPDATE_NOTIFIER": "1", "GH_SPINNER_DISABLED": "1", "NO_COLOR": "1",
		"GIT_TERMINAL_PROMPT": "0", "GH_PAGER": "cat", "LC_ALL": "C",
		// gh runs git: keep the repository's hooks off there too.
		"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": "/dev/null",
	} {
		extra[k] = v
	}
	child, err := proc.Start(ctx, proc.Spec{
		Path: gh, Args: args, Dir: dir,
		Env: proc.AllowEnv(m.environ(), gitEnvNames(), nil, extra),
	})
	if err != nil {
		return "", fmt.Errorf("gh %s: %w", args[0], err)
	}
	var out, errs strings.Builder
	for l := range child.Lines() {
		b := &out
		if l.Stderr {
			b = &errs
		}
		if b.Len() < 64<<10 {
			b.WriteString(l.Text)
			b.WriteByte('\n')
		}
	}
	exit := child.Wait()
	switch {
	case ctx.Err() != nil:
		return out.String(), fmt.Errorf("gh %s: %w", args[0], ctx.Err())
	case exit.Err != nil:
		return out.String(), fmt.Errorf("gh %s: %w", args[0], exit.Err)
	case exit.Code != 0:
		msg := strings.TrimSpace(tail(errs.String(), 500))
		if msg == "" {
			msg = fmt.Sprintf("exit status %d", exit.Code)
		}
		return out.String(), fmt.Errorf("gh %s: %s", args[0], redact.Secrets(msg))
	}
	return out.String(), nil
}
