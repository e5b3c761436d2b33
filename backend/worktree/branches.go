package worktree

import (
	"context"
	"slices"
	"strings"
)

// Branches lists the local branches of the repository at repo (any folder
// of its work tree) that a task can be merged into: every branch outside
// clawboo/, sorted, and the branch checked out there ("" when HEAD is
// detached or on a task branch).
func (m *Manager) Branches(ctx context.Context, repo string) (names []string, current string, err error) {
	top, err := m.resolveRepo(ctx, repo)
	if err != nil {
		return nil, "", err
	}
	out, err := m.run(ctx, top, "for-each-ref", "--format=%(refname)", "refs/heads/")
	if err != nil {
		return nil, "", err
	}
	names = []string{}
	for _, l := range strings.Split(out, "\n") {
		if n, ok := strings.CutPrefix(strings.TrimSpace(l), "refs/heads/"); ok && mergeable(n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	head, err := m.run(ctx, top, "symbolic-ref", "-q", "HEAD")
	if n, ok := strings.CutPrefix(strings.TrimSpace(head), "refs/heads/"); err == nil && ok && slices.Contains(names, n) {
		current = n
	}
	return names, current, nil
}

// mergeable is a branch name a task may be merged into.
func mergeable(n string) bool {
	return n != "" && !strings.HasPrefix(n, "clawboo/") && !strings.HasPrefix(n, "-") && !strings.ContainsAny(n, " \t\r\n\x00")
}

// StartBranch is the branch a task's work goes back into, decided when its
// worktree is made: hint (the task's base ref) when it names a local
// branch, else the branch checked out in the repository when it holds the
// task's base commit, else BaseBranch's guess; "" when none can be told.
func (m *Manager) StartBranch(ctx context.Context, w Worktree, hint string) string {
	if err := m.check(w, true); err != nil {
		return ""
	}
	b, err := m.baseBranch(ctx, w, "", hint)
	if err != nil {
		return ""
	}
	return b
}
