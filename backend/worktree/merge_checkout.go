package worktree

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Bringing the user's checkout along with a merge, as git's own
// fast-forward does: the checkout that has the base branch checked out may
// hold uncommitted work, and the merge goes ahead when none of it is at a
// path the change touches. Only the changed paths of the checkout's index
// and files are written; every other file, staged or not, is left byte for
// byte with its index state. What counts as the person's work at a changed
// path (any of it refuses the merge as checkout_overlap, naming the paths):
//   - a tracked file changed in the index or the work tree;
//   - an untracked file, ignored or not, where the change adds a file (git
//     never had it, so nothing could bring it back; issue 26 §2.2: an
//     agent that rewrites .gitignore to track secret/ must not overwrite
//     the user's secret/key.pem);
//   - a directory/file clash: an untracked file where the change needs a
//     directory, or a directory holding anything untracked where the
//     change needs a file.
//
// git merge --ff-only --no-overwrite-ignore then moves the checkout; it
// checks the same again (a file written between our check and it is still
// refused, never overwritten).

// maxClashWalk bounds the entries read inside one directory that a change
// replaces with a file.
const maxClashWalk = 10000

// checkoutOf is the work tree that has ref checked out, or "". A task's
// worktree with it (an agent may check out anything) is refused: its files
// and link are the agent's.
func (m *Manager) checkoutOf(ctx context.Context, repo, ref string) (string, error) {
	regs, err := m.registered(ctx, repo)
	if err != nil {
		return "", err
	}
	for p, r := range regs {
		if r.branch != ref || r.prunable {
			continue
		}
		if p == m.root || strings.HasPrefix(p, m.root+string(filepath.Separator)) {
			return "", refusal("base_checked_out_in_task", "%s is checked out in a task's worktree (%s); switch it away first", strings.TrimPrefix(ref, "refs/heads/"), p)
		}
		return p, nil
	}
	return "", nil
}

// changeSet is what moving from one commit to another touches.
type changeSet struct {
	status map[string]byte // path → A, M, D, T (renames as D + A)
	dirs   map[string]bool // every leading directory of a changed path
}

func (c changeSet) paths() []string {
	out := make([]string, 0, len(c.status))
	for p := range c.status {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// changes lists the paths that differ between old and next.
func (m *Manager) changes(ctx context.Context, repo, old, next string) (changeSet, error) {
	out, err := m.run(ctx, repo, "diff-tree", "-r", "-z", "--no-renames", "--name-status", "--no-commit-id", old, next)
	if err != nil {
		return changeSet{}, err
	}
	cs := changeSet{status: map[string]byte{}, dirs: map[string]bool{}}
	fields := strings.Split(strings.TrimSuffix(out, "\n"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		st, p := fields[i], fields[i+1]
		if st == "" || p == "" {
			continue
		}
		cs.status[p] = st[0]
		for d := filepath.ToSlash(filepath.Dir(p)); d != "." && d != "/"; d = filepath.ToSlash(filepath.Dir(d)) {
			cs.dirs[d] = true
		}
	}
	return cs, nil
}

// dirtyPaths lists the checkout's tracked paths whose index or file differs
// from HEAD (staged or not).
func (m *Manager) dirtyPaths(ctx context.Context, dir string) ([]string, error) {
	out, err := m.run(ctx, dir, "status", "--porcelain=v1", "-z", "--no-renames", "--untracked-files=no", "--ignore-submodules=dirty")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range strings.Split(out, "\x00") {
		if len(e) > 3 {
			paths = append(paths, e[3:])
		}
	}
	return paths, nil
}

// checkoutOverlap refuses, as checkout_overlap naming the paths, a merge
// that would write where the checkout at dir (on HEAD old) holds the
// person's uncommitted work; see the top of this file.
func (m *Manager) checkoutOverlap(ctx context.Context, dir, base string, cs changeSet) error {
	var hits []string
	hit := func(p string) {
		if !slices.Contains(hits, p) {
			hits = append(hits, p)
		}
	}
	dirty, err := m.dirtyPaths(ctx, dir)
	if err != nil {
		return err
	}
	for _, d := range dirty {
		if _, ok := cs.status[d]; ok || cs.dirs[d] {
			hit(d)
			continue
		}
		for p := filepath.ToSlash(filepath.Dir(d)); p != "." && p != "/"; p = filepath.ToSlash(filepath.Dir(p)) {
			if _, ok := cs.status[p]; ok {
				hit(d)
				break
			}
		}
	}
	for _, p := range cs.paths() {
		if cs.status[p] != 'A' {
			continue // tracked in HEAD: its changes are in the dirty list
		}
		if clash := m.parentClash(dir, p, cs); clash != "" {
			hit(clash)
			continue
		}
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p)))
		switch {
		case missing(err):
		case err != nil:
			return err
		case fi.IsDir() && cs.dirs[p]:
			// Tracked files under p go away with the change; anything else
			// there is the person's.
			for _, f := range untrackedUnder(dir, p, cs) {
				hit(f)
			}
		default:
			hit(p) // an untracked or ignored file (or folder) where the change adds one
		}
	}
	if len(hits) == 0 {
		return nil
	}
	slices.Sort(hits)
	r := refusal("checkout_overlap", "%s is checked out in %s, where uncommitted work is at %d path(s) this change touches (%s); commit, stash or move them, then merge again",
		base, dir, len(hits), strings.Join(firstN(hits, 5), ", "))
	r.Files = hits
	return r
}

// missing reports an error that means nothing is at the path.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// parentClash is the first leading directory of p that the checkout holds
// as something other than a directory (an untracked file or link) and that
// the change does not remove, or "".
func (m *Manager) parentClash(dir, p string, cs changeSet) string {
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		q := strings.Join(parts[:i], "/")
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(q)))
		if err != nil {
			return "" // missing: git makes it
		}
		if fi.IsDir() {
			continue
		}
		if cs.status[q] == 'D' {
			return "" // a tracked file the change replaces with a folder
		}
		return q
	}
	return ""
}

// untrackedUnder lists what the checkout holds under folder p besides the
// tracked files the change deletes there (bounded by maxClashWalk).
func untrackedUnder(dir, p string, cs changeSet) []string {
	var out []string
	n := 0
	root := filepath.Join(dir, filepath.FromSlash(p))
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if n++; n > maxClashWalk {
			out = append(out, p+"/")
			return filepath.SkipAll
		}
		if err != nil || d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return nil
		}
		if rel = filepath.ToSlash(rel); cs.status[rel] != 'D' {
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string{}, s[:n]...), "…")
}

// fastForwardCheckout moves the checkout at dir, on baseRef, to next:
// git's fast-forward, which writes only the changed paths and refuses to
// overwrite local changes and untracked files, ignored ones included
// (--no-overwrite-ignore); no autostash, so nothing of the person's is
// stashed and re-applied.
func (m *Manager) fastForwardCheckout(ctx context.Context, dir, baseRef, base, next string) error {
	head, err := m.run(ctx, dir, "symbolic-ref", "-q", "HEAD")
	if err != nil || strings.TrimSpace(head) != baseRef {
		return refusal("base_moved", "%s switched branches while the merge was being made; try again", dir)
	}
	_, err = m.gitCall(ctx, call{
		dir: dir, noRetry: true,
		args: []string{
			"-c", "merge.verifySignatures=false", "-c", "merge.autoStash=false",
			"merge", "--ff-only", "--no-overwrite-ignore", "--no-autostash", "--no-stat", "-q", next,
		},
	})
	if err != nil {
		if msg := err.Error(); strings.Contains(msg, "overwritten") || strings.Contains(msg, "local changes") {
			r := refusal("checkout_overlap", "merging would overwrite uncommitted work in %s (where %s is checked out); commit, stash or move it, then merge again", dir, base)
			r.Files = listedFiles(msg)
			return r
		}
		if msg := err.Error(); strings.Contains(msg, "not concluded") || strings.Contains(msg, "unmerged") || strings.Contains(msg, "MERGE_HEAD") {
			return refusal("checkout_busy", "%s is in the middle of a merge (where %s is checked out); finish or abort it, then merge again", dir, base)
		}
		if strings.Contains(err.Error(), "Not possible to fast-forward") {
			return refusal("base_moved", "%s moved while the merge was being made; try again", base)
		}
		return err
	}
	return nil
}

// listedFiles are the tab-indented paths git lists under an error.
func listedFiles(msg string) []string {
	out := []string{}
	for _, l := range strings.Split(msg, "\n") {
		if strings.HasPrefix(l, "\t") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}
