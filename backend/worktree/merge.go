package worktree

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// MergeStrategy is how a task branch goes into its base branch.
type MergeStrategy string

// Strategies. MergeAuto fast-forwards when it can and otherwise makes a
// merge commit; MergeFF only fast-forwards; MergeCommit always makes a merge
// commit (git's --no-ff); MergeSquash makes one new commit on the base with
// the branch's whole change.
const (
	MergeAuto   MergeStrategy = ""
	MergeFF     MergeStrategy = "ff"
	MergeCommit MergeStrategy = "merge"
	MergeSquash MergeStrategy = "squash"
)

// Valid reports a known strategy.
func (s MergeStrategy) Valid() bool {
	return s == MergeAuto || s == MergeFF || s == MergeCommit || s == MergeSquash
}

// MergeSpec says where and how to merge a task's branch.
type MergeSpec struct {
	// Base is the branch to merge into, strictly: it must be a local branch
	// outside clawboo/. "" = Hint if that names a branch, else a guess (see
	// BaseBranch).
	Base string
	// Hint is the task's base ref as given when it was made (a branch, a
	// tag or a commit); used only when it names a local branch.
	Hint     string
	Strategy MergeStrategy
	// Message is the merge or squash commit's message ("" = a default;
	// CommitMessage makes one with a subject, body and trailers).
	Message string
}

// MergeResult is what a merge did.
type MergeResult struct {
	Base     string `json:"base"`     // the branch merged into
	Previous string `json:"previous"` // its commit before
	Commit   string `json:"commit"`   // its commit after
	// How is what was done: "ff", "merge", "squash", or "none" when the base
	// already held the branch's work.
	How string `json:"how"`
	// Checkout is the user's checkout that had the base branch checked out
	// (its files were brought along), or "" when none had.
	Checkout string `json:"checkout,omitempty"`
}

// Refusal is a merge or push we will not do, with a stable Reason the API
// answers as a 409: merge_conflict (Files lists the conflicted paths),
// checkout_overlap (Files lists the paths of the person's uncommitted work
// the change touches), checkout_busy (a merge is under way there),
// not_fast_forward, base_checked_out_in_task,
// base_moved, no_base_branch, branch_missing, no_remote, push_rejected.
type Refusal struct {
	Reason string
	Msg    string
	Files  []string
}

func (r *Refusal) Error() string { return r.Msg }

func refusal(reason, format string, a ...any) *Refusal {
	return &Refusal{Reason: reason, Msg: fmt.Sprintf(format, a...)}
}

// Merge puts the task's branch into its base branch in the user's
// repository without switching or touching the user's checkout:
//   - uncommitted work in the task's worktree is committed first (as
//     Complete does);
//   - the new commit is made with plumbing (merge-tree --write-tree,
//     commit-tree), which runs no hooks, no filters and writes no file; a
//     merge or squash commit is by the repository's configured user.name
//     and user.email (UserIdentity), Clawboo only when none is set;
//   - when no checkout has the base branch, only its ref moves, compared
//     and swapped against the value the merge was computed from (a base
//     that moved meanwhile is refused as base_moved, never overwritten);
//   - when the user's checkout has it, the checkout is brought along as
//     git's fast-forward does, beside uncommitted work at paths the change
//     does not touch; work at a path it touches (a changed tracked file, an
//     untracked or ignored file, a directory/file clash) refuses the merge
//     as checkout_overlap naming the paths (merge_checkout.go).
//
// A merge that does not apply cleanly is refused (merge_conflict, with
// the files) and changes nothing. Merge does not remove the worktree or the
// branch: the caller does, once the task is marked done.
func (m *Manager) Merge(ctx context.Context, w Worktree, s MergeSpec) (MergeResult, error) {
	if err := m.check(w, true); err != nil {
		return MergeResult{}, err
	}
	if !s.Strategy.Valid() {
		return MergeResult{}, fmt.Errorf("unknown merge strategy %q: use ff, merge or squash", s.Strategy)
	}
	unlock, err := m.locks.lock(ctx, w.Path)
	if err != nil {
		return MergeResult{}, err
	}
	defer unlock()
	if present(w) {
		if err := m.commitAll(ctx, w, w.workMessage(false)); err != nil {
			return MergeResult{}, fmt.Errorf("merge task %s: %w", w.TaskID, err)
		}
	}
	tip, err := m.refCommit(ctx, w.RepoPath, "refs/heads/"+w.Branch)
	if err != nil {
		return MergeResult{}, err
	}
	if tip == "" {
		return MergeResult{}, refusal("branch_missing", "the task's branch %s is gone from %s", w.Branch, w.RepoPath)
	}
	base, err := m.baseBranch(ctx, w, s.Base, s.Hint)
	if err != nil {
		return MergeResult{}, err
	}
	baseRef := "refs/heads/" + base
	old, err := m.refCommit(ctx, w.RepoPath, baseRef)
	if err != nil {
		return MergeResult{}, err
	}
	res := MergeResult{Base: base, Previous: old, Commit: old}
	checkout, err := m.checkoutOf(ctx, w.RepoPath, baseRef)
	if err != nil {
		return res, err
	}
	next, how, err := m.mergeCommit(ctx, w, old, tip, base, s)
	if err != nil {
		return res, err
	}
	res.How = how
	if how == "none" {
		return res, nil
	}
	if checkout != "" {
		cs, err := m.changes(ctx, w.RepoPath, old, next)
		if err != nil {
			return res, err
		}
		if err := m.checkoutOverlap(ctx, checkout, base, cs); err != nil {
			return res, err
		}
	}
	msg := "clawboo: merge task " + w.TaskID + " (" + how + ")"
	if checkout == "" {
		_, err := m.gitCall(ctx, call{
			dir: w.RepoPath, noRetry: true,
			args: []string{"update-ref", "-m", msg, baseRef, next, old},
		})
		if err != nil {
			if strings.Contains(err.Error(), "expected") || strings.Contains(err.Error(), "cannot lock ref") {
				return res, refusal("base_moved", "%s moved while the merge was being made; try again", base)
			}
			return res, err
		}
	} else {
		if err := m.fastForwardCheckout(ctx, checkout, baseRef, base, next); err != nil {
			return res, err
		}
		res.Checkout = checkout
	}
	res.Commit = next
	return res, nil
}

// BaseBranch is the branch a task's work goes back into: want when given
// (it must be a local branch outside clawboo/), else hint when it names a
// local branch, else the branch checked out in the repository when it
// contains the task's base commit, else the one local branch containing
// it (main or master when several do). No answer is a no_base_branch
// refusal asking the caller to say which.
func (m *Manager) BaseBranch(ctx context.Context, w Worktree, want, hint string) (string, error) {
	if err := m.check(w, true); err != nil {
		return "", err
	}
	return m.baseBranch(ctx, w, want, hint)
}

func (m *Manager) baseBranch(ctx context.Context, w Worktree, want, hint string) (string, error) {
	usable := func(name string) (bool, error) {
		name = strings.TrimPrefix(name, "refs/heads/")
		if !mergeable(name) {
			return false, nil
		}
		c, err := m.refCommit(ctx, w.RepoPath, "refs/heads/"+name)
		return c != "", err
	}
	if want != "" {
		ok, err := usable(want)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", refusal("no_base_branch", "%q is not a branch of %s that a task can be merged into", want, w.RepoPath)
		}
		return strings.TrimPrefix(want, "refs/heads/"), nil
	}
	if hint != "" {
		if ok, err := usable(hint); err != nil || ok {
			return strings.TrimPrefix(hint, "refs/heads/"), err
		}
	}
	head, err := m.run(ctx, w.RepoPath, "symbolic-ref", "-q", "HEAD")
	if head = strings.TrimSpace(head); err == nil && strings.HasPrefix(head, "refs/heads/") && !strings.HasPrefix(head, "refs/heads/clawboo/") {
		if yes, err := m.isAncestor(ctx, w.RepoPath, w.BaseCommit, head); err != nil || yes {
			return strings.TrimPrefix(head, "refs/heads/"), err
		}
	}
	out, err := m.run(ctx, w.RepoPath, "for-each-ref", "--format=%(refname)", "--contains", w.BaseCommit, "refs/heads/")
	if err != nil {
		return "", err
	}
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if n, ok := strings.CutPrefix(strings.TrimSpace(l), "refs/heads/"); ok && !strings.HasPrefix(n, "clawboo/") {
			names = append(names, n)
		}
	}
	switch {
	case len(names) == 1:
		return names[0], nil
	case slices.Contains(names, "main"):
		return "main", nil
	case slices.Contains(names, "master"):
		return "master", nil
	}
	return "", refusal("no_base_branch", "cannot tell which branch task %s came from (%d branches contain its base); say which", w.TaskID, len(names))
}

// isAncestor says whether commit a is an ancestor of (or equal to) b.
func (m *Manager) isAncestor(ctx context.Context, repo, a, b string) (bool, error) {
	_, err := m.run(ctx, repo, "merge-base", "--is-ancestor", a, b)
	switch exitCode(err) {
	case -1:
		return err == nil, err
	case 0:
		return true, nil
	case 1:
		return false, nil
	}
	return false, err
}

// mergeCommit computes the base's next commit: the tip itself for a
// fast-forward, otherwise a new commit made with plumbing only.
func (m *Manager) mergeCommit(ctx context.Context, w Worktree, old, tip, base string, s MergeSpec) (string, string, error) {
	repo := w.RepoPath
	done, err := m.isAncestor(ctx, repo, tip, old)
	if err != nil || done {
		return old, "none", err
	}
	ff, err := m.isAncestor(ctx, repo, old, tip)
	if err != nil {
		return "", "", err
	}
	if ff && (s.Strategy == MergeAuto || s.Strategy == MergeFF) {
		return tip, "ff", nil
	}
	if s.Strategy == MergeFF {
		return "", "", refusal("not_fast_forward", "%s has moved on since task %s started: merge or squash it instead, or rebase it on the latest %s", base, w.TaskID, base)
	}
	tree, err := m.mergeTree(ctx, repo, old, tip)
	if err != nil {
		return "", "", err
	}
	msg := strings.ReplaceAll(s.Message, "\x00", "")
	args := []string{"commit-tree", tree, "-p", old}
	how := string(s.Strategy)
	if s.Strategy == MergeSquash {
		if msg == "" {
			msg = "Squashed task " + w.TaskID + " (" + w.Branch + ")"
		}
	} else {
		how = "merge"
		args = append(args, "-p", tip)
		if msg == "" {
			msg = "Merge branch '" + w.Branch + "' into " + base
		}
	}
	r, err := m.gitCall(ctx, call{dir: repo, env: m.UserIdentity(ctx, repo).env(), args: append(args, "-m", msg)})
	out := r.out
	if err != nil {
		return "", "", err
	}
	return strings.TrimSpace(out), how, nil
}

// mergeTree merges tip into old without a work tree and returns the
// resulting tree, or a merge_conflict refusal naming the files.
func (m *Manager) mergeTree(ctx context.Context, repo, old, tip string) (string, error) {
	out, err := m.run(ctx, repo, "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", old, tip)
	out = strings.TrimSuffix(out, "\n")
	parts := strings.Split(out, "\x00")
	if err != nil && exitCode(err) != 1 {
		return "", fmt.Errorf("merge: %w", err)
	}
	if err == nil {
		if !hexPattern().MatchString(parts[0]) {
			return "", fmt.Errorf("merge-tree answered %q", truncate(out, 80))
		}
		return parts[0], nil
	}
	var files []string
	for _, f := range parts[1:] {
		if f != "" && !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	r := refusal("merge_conflict", "the task's changes do not apply cleanly to the latest base: %d conflicted file(s)", len(files))
	r.Files = files
	return "", r
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// IsRefusal reports a Refusal and returns it.
func IsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}
