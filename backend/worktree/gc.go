package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Usage is the disk one task's worktree takes.
type Usage struct {
	TaskID   string `json:"taskId"`
	Path     string `json:"path"`
	RepoPath string `json:"repoPath"` // "" when unknown
	Bytes    int64  `json:"bytes"`
}

// entry is a worktree directory found on disk.
type entry struct {
	hash, taskID, path, repo string
	created                  time.Time
}

var hashPattern = regexp.MustCompile(`^[0-9a-f]{12}$`)

// scan lists <Home>/worktrees/<hash>/<taskID> from disk alone, so it works
// when git is slow or a repository is gone.
func (m *Manager) scan() ([]entry, error) {
	hashes, err := os.ReadDir(m.root)
	if err != nil {
		return nil, err
	}
	var out []entry
	for _, h := range hashes {
		if !h.IsDir() || !hashPattern.MatchString(h.Name()) {
			continue
		}
		dir := filepath.Join(m.root, h.Name())
		repo := ""
		if b, err := os.ReadFile(filepath.Join(dir, ".repo")); err == nil {
			if r := strings.TrimSpace(string(b)); filepath.IsAbs(r) && repoHash(r) == h.Name() {
				repo = r
			}
		}
		tasks, err := os.ReadDir(dir)
		if err != nil {
			m.log.Warn("worktree folder unreadable", "dir", dir, "err", err)
			continue
		}
		for _, t := range tasks {
			if !t.IsDir() || validTaskID(t.Name()) != nil {
				continue
			}
			p := filepath.Join(dir, t.Name())
			st, err := os.Lstat(filepath.Join(p, ".git")) // written once, at worktree add
			if err != nil {
				st, err = os.Lstat(p)
			}
			if err != nil {
				continue
			}
			out = append(out, entry{hash: h.Name(), taskID: t.Name(), path: p, repo: repo, created: st.ModTime()})
		}
	}
	return out, nil
}

// DiskUsage reports the apparent size of every worktree (file sizes summed,
// symlinks not followed) and their total, so a person can see what task
// checkouts cost. It reads only the file system, stopping when ctx ends.
// Git's per-worktree metadata in the repository is not counted.
func (m *Manager) DiskUsage(ctx context.Context) (int64, []Usage, error) {
	entries, err := m.scan()
	if err != nil {
		return 0, nil, err
	}
	var total int64
	per := make([]Usage, 0, len(entries))
	for _, e := range entries {
		n, err := dirSize(ctx, e.path)
		if err != nil && ctx.Err() != nil {
			return total, per, ctx.Err()
		}
		per = append(per, Usage{TaskID: e.taskID, Path: e.path, RepoPath: e.repo, Bytes: n})
		total += n
	}
	return total, per, nil
}

func dirSize(ctx context.Context, root string) (int64, error) {
	var n int64
	seen := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: count what we can
		}
		if seen++; seen%512 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil { // lstat: a link counts as itself
			n += info.Size()
		}
		return nil
	})
	return n, err
}

// GCPolicy says which worktrees to reap.
type GCPolicy struct {
	MaxAge     time.Duration // reap worktrees older than this (0 = no age limit)
	MaxPerRepo int           // then keep at most this many per repository (0 = no limit)
	// Keep is true for a task in progress or in review: never touched. It is
	// asked under the worktree's lock, so its answer is current. Required.
	Keep func(taskID string) bool
}

// GC reaps worktrees oldest first: those older than MaxAge, then the oldest
// beyond MaxPerRepo in each repository. A reaped worktree is paused (its
// work committed to its branch, the branch kept); one whose repository
// vanished is deleted from disk. It returns the reaped task ids; an error
// on one worktree does not stop the others.
func (m *Manager) GC(ctx context.Context, p GCPolicy) ([]string, error) {
	if p.Keep == nil {
		return nil, errors.New("worktree gc: a Keep function is required (it protects running tasks)")
	}
	entries, err := m.scan()
	if err != nil {
		return nil, err
	}
	byHash := map[string][]entry{}
	for _, e := range entries {
		byHash[e.hash] = append(byHash[e.hash], e)
	}
	hashes := make([]string, 0, len(byHash))
	for h := range byHash {
		hashes = append(hashes, h)
	}
	sort.Strings(hashes)
	var removed []string
	var errs []error
	now := time.Now()
	for _, h := range hashes {
		list := byHash[h]
		sort.Slice(list, func(i, j int) bool { return list[i].created.Before(list[j].created) })
		left := len(list)
		for _, e := range list {
			if ctx.Err() != nil {
				return removed, errors.Join(append(errs, ctx.Err())...)
			}
			old := p.MaxAge > 0 && now.Sub(e.created) > p.MaxAge
			over := p.MaxPerRepo > 0 && left > p.MaxPerRepo
			if !old && !over {
				continue
			}
			done, err := m.reap(ctx, e, p.Keep)
			if err != nil {
				errs = append(errs, fmt.Errorf("gc task %s: %w", e.taskID, err))
			}
			if done {
				removed = append(removed, e.taskID)
				left--
			}
		}
	}
	m.dropOrphanFolders()
	return removed, errors.Join(errs...)
}

// reap pauses one worktree unless Keep protects it.
func (m *Manager) reap(ctx context.Context, e entry, keep func(string) bool) (bool, error) {
	unlock, err := m.locks.lock(ctx, e.path)
	if err != nil {
		return false, err
	}
	defer unlock()
	if keep(e.taskID) {
		return false, nil
	}
	repo := e.repo
	if repo == "" {
		repo = m.repoOf(ctx, e)
	}
	gone, err := m.repoGone(ctx, repo)
	if err != nil {
		return false, err // not sure: keep the work
	}
	if gone {
		m.log.Info("gc: removing a worktree whose repository is gone", "task", e.taskID, "path", e.path)
		return true, os.RemoveAll(e.path)
	}
	w := m.worktreeFor(repo, e.taskID, "")
	if err := m.pause(ctx, w, "clawboo: pause task "+e.taskID+" (garbage-collected)"); err != nil {
		return false, err
	}
	m.log.Info("gc: paused a worktree", "task", e.taskID, "path", e.path)
	return true, nil
}

// repoOf reads the worktree's checked link for its repository when the
// hash folder's .repo file is missing; "" when it cannot say. It runs no
// git inside the worktree: its link is what is in question.
func (m *Manager) repoOf(_ context.Context, e entry) string {
	_, common, err := readLink(e.path)
	if err != nil {
		return ""
	}
	repo, err := filepath.EvalSymlinks(filepath.Dir(common))
	if err != nil || repoHash(repo) != e.hash {
		return ""
	}
	return repo
}

// repoGone says whether repo is certainly no longer a git work tree at that
// path. A git failure that proves nothing is an error, not "gone".
func (m *Manager) repoGone(ctx context.Context, repo string) (bool, error) {
	if repo == "" || !exists(repo) {
		return true, nil
	}
	out, err := m.run(ctx, repo, "rev-parse", "--show-toplevel")
	var ge *gitError
	if errors.As(err, &ge) && strings.Contains(ge.stderr, "not a git repository") {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	top, err := filepath.EvalSymlinks(strings.TrimSpace(out))
	return err == nil && top != repo, err
}

// dropOrphanFolders removes hash folders that hold nothing but the .repo
// file of a repository that no longer exists. A live repository's folder
// stays: a Provision may be about to use it.
func (m *Manager) dropOrphanFolders() {
	hashes, err := os.ReadDir(m.root)
	if err != nil {
		return
	}
	for _, h := range hashes {
		dir := filepath.Join(m.root, h.Name())
		if !h.IsDir() || !hashPattern.MatchString(h.Name()) {
			continue
		}
		ents, err := os.ReadDir(dir)
		if err != nil || len(ents) != 1 || ents[0].Name() != ".repo" {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, ".repo")); err == nil && !exists(strings.TrimSpace(string(b))) {
			_ = os.RemoveAll(dir)
		}
	}
}
