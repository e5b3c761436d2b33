package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// DepFolders is the documented list of dependency and build-output folders
// the janitor prunes from finished worktrees: each is rebuilt by the
// project's setup. A folder is pruned only when git reports it untracked and
// ignored as a whole (`git ls-files -o -i --directory --exclude-standard`),
// so a tracked build/ is never deleted. vendor/ is not listed: it is often
// committed, and a hand-kept one cannot be rebuilt.
func DepFolders() []string {
	return []string{"node_modules", ".venv", "venv", "target", "dist", "build", ".gradle", "__pycache__", ".next", ".turbo"}
}

// JanitorPolicy says which worktrees are finished and how much disk a
// repository's finished worktrees may take.
type JanitorPolicy struct {
	// Finished is true for a worktree kept after its work (in review, done,
	// blocked, back in todo): no run works in it. It is asked under the
	// worktree's lock, so its answer is current. Required.
	Finished func(taskID string) bool
	// BudgetPerRepo bounds each repository's finished worktrees, in bytes,
	// after pruning; over it, the oldest are paused (work committed to the
	// branch, the folder and its port lease freed). 0 = no budget.
	BudgetPerRepo int64
}

// Reclaimed is what the janitor freed in one task's worktree.
type Reclaimed struct {
	TaskID   string   `json:"taskId"`
	RepoPath string   `json:"repoPath"`
	Folders  []string `json:"folders"` // pruned folders, relative to the worktree; nil when Removed
	Bytes    int64    `json:"bytes"`
	// Removed: the whole worktree was paused to keep its repository
	// within the disk budget.
	Removed bool `json:"removed"`
}

// JanitorReport is one pass of the janitor.
type JanitorReport struct {
	Reclaimed  []Reclaimed `json:"reclaimed"`
	TotalBytes int64       `json:"totalBytes"`
}

// Removed lists the tasks whose worktrees were paused for the budget.
func (r JanitorReport) Removed() []string {
	var ids []string
	for _, c := range r.Reclaimed {
		if c.Removed {
			ids = append(ids, c.TaskID)
		}
	}
	return ids
}

// Janitor prunes DepFolders from every finished worktree, then keeps each
// repository's finished worktrees within BudgetPerRepo by pausing the
// oldest first. A worktree a run works in is never touched. An error on
// one worktree does not stop the others.
func (m *Manager) Janitor(ctx context.Context, p JanitorPolicy) (JanitorReport, error) {
	rep := JanitorReport{Reclaimed: []Reclaimed{}}
	if p.Finished == nil {
		return rep, errors.New("worktree janitor: a Finished function is required (it protects running tasks)")
	}
	entries, err := m.scan()
	if err != nil {
		return rep, err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].created.Before(entries[j].created) })
	var errs []error
	sizes := map[string]int64{} // task id → bytes after pruning, finished ones only
	for _, e := range entries {
		if ctx.Err() != nil {
			return rep, errors.Join(append(errs, ctx.Err())...)
		}
		c, size, finished, err := m.pruneOne(ctx, e, p.Finished)
		if err != nil {
			errs = append(errs, fmt.Errorf("janitor task %s: %w", e.taskID, err))
		}
		if c.Bytes > 0 || len(c.Folders) > 0 {
			rep.Reclaimed = append(rep.Reclaimed, c)
			rep.TotalBytes += c.Bytes
		}
		if finished {
			sizes[e.taskID] = size
		}
	}
	if p.BudgetPerRepo > 0 {
		errs = append(errs, m.enforceBudget(ctx, entries, sizes, p, &rep))
	}
	return rep, errors.Join(errs...)
}

// pruneOne prunes one worktree if it is finished, returning what it freed
// and its size afterwards.
func (m *Manager) pruneOne(ctx context.Context, e entry, finished func(string) bool) (Reclaimed, int64, bool, error) {
	c := Reclaimed{TaskID: e.taskID, RepoPath: e.repo}
	unlock, err := m.locks.lock(ctx, e.path)
	if err != nil {
		return c, 0, false, err
	}
	defer unlock()
	if e.repo == "" || !finished(e.taskID) {
		return c, 0, false, nil
	}
	w := m.worktreeFor(e.repo, e.taskID, "")
	dirs, err := m.ignoredDepDirs(ctx, w)
	for _, rel := range dirs {
		p := filepath.Join(w.Path, filepath.FromSlash(rel))
		n, _ := dirSize(ctx, p)
		if rmErr := os.RemoveAll(p); rmErr != nil {
			err = errors.Join(err, rmErr)
			continue
		}
		c.Folders, c.Bytes = append(c.Folders, rel), c.Bytes+n
	}
	if len(c.Folders) > 0 {
		m.log.Info("janitor: pruned dependency folders from a finished worktree", "task", e.taskID, "folders", c.Folders, "bytes", c.Bytes)
	}
	size, _ := dirSize(ctx, w.Path)
	return c, size, true, err
}

// ignoredDepDirs lists the DepFolders in w that git reports as wholly
// untracked and ignored (a folder with a tracked file in it is listed file
// by file, never as a folder, so it is never chosen).
func (m *Manager) ignoredDepDirs(ctx context.Context, w Worktree) ([]string, error) {
	out, err := m.runIn(ctx, w, "ls-files", "-z", "-o", "-i", "--directory", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, n := range DepFolders() {
		names[n] = true
	}
	var dirs []string
	for _, rel := range strings.Split(out, "\x00") {
		if !strings.HasSuffix(rel, "/") {
			continue
		}
		rel = strings.TrimSuffix(rel, "/")
		clean := filepath.ToSlash(filepath.Clean(rel))
		if clean != rel || rel == "" || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") || !names[filepath.Base(rel)] {
			continue
		}
		st, err := os.Lstat(filepath.Join(w.Path, filepath.FromSlash(rel)))
		if err != nil || !st.IsDir() { // a link is left alone
			continue
		}
		dirs = append(dirs, rel)
	}
	return dirs, nil
}

// enforceBudget pauses each repository's oldest finished worktrees until
// the rest fit its budget.
func (m *Manager) enforceBudget(ctx context.Context, entries []entry, sizes map[string]int64, p JanitorPolicy, rep *JanitorReport) error {
	byHash := map[string][]entry{}
	total := map[string]int64{}
	for _, e := range entries { // oldest first
		if n, ok := sizes[e.taskID]; ok {
			byHash[e.hash] = append(byHash[e.hash], e)
			total[e.hash] += n
		}
	}
	var errs []error
	for h, list := range byHash {
		for _, e := range list {
			if total[h] <= p.BudgetPerRepo || ctx.Err() != nil {
				break
			}
			done, err := m.reap(ctx, e, func(id string) bool { return !p.Finished(id) })
			if err != nil {
				errs = append(errs, fmt.Errorf("janitor budget, task %s: %w", e.taskID, err))
			}
			if !done {
				continue
			}
			n := sizes[e.taskID]
			total[h] -= n
			rep.Reclaimed = append(rep.Reclaimed, Reclaimed{TaskID: e.taskID, RepoPath: e.repo, Bytes: n, Removed: true})
			rep.TotalBytes += n
			m.log.Info("janitor: paused a finished worktree to keep its repository within the disk budget",
				"task", e.taskID, "bytes", n, "budget", p.BudgetPerRepo)
		}
	}
	return errors.Join(errs...)
}
