package worktree

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// The conflict radar: which live worktrees of one repository change the
// same files, and where their hunks meet, before anyone tries to merge.

// Span is a hunk's lines on the base side: Start..End inclusive for lines
// it removes or rewrites. A pure insertion (git's "-s,0") is Add, placed
// after base line Start (0 = the top), with End == Start.
type Span struct {
	Start, End int
	Add        bool
}

// Changes is what one worktree changed against its base, file by file,
// with each file's hunks on the base side (nil for a binary file).
type Changes struct {
	TaskID     string
	BaseCommit string
	Files      map[string][]Span
	Lines      int // insertions + deletions: the change's size
}

// maxRadarDiff bounds the -U0 diff read for the radar. A cut diff keeps
// every file (they come from --name-only) but loses the later hunks.
const maxRadarDiff = 4 << 20

// Changes reports a worktree's changed files and hunks against its base
// commit, the way Diff sees them: through a copy of the index for a live
// worktree (the agent's own index is never touched), from the branch for a
// paused one. Renames count as a delete and an add, so both paths show.
func (m *Manager) Changes(ctx context.Context, w Worktree) (Changes, error) {
	c := Changes{TaskID: w.TaskID, BaseCommit: w.BaseCommit, Files: map[string][]Span{}}
	if err := m.check(w, true); err != nil {
		return c, err
	}
	unlock, err := m.locks.lock(ctx, w.Path)
	if err != nil {
		return c, err
	}
	defer unlock()
	at, right := call{dir: w.RepoPath}, "refs/heads/"+w.Branch
	if present(w) {
		tree, err := m.snapshot(ctx, w)
		if err != nil {
			return c, fmt.Errorf("radar task %s: %w", w.TaskID, err)
		}
		at, right = w.in(), tree
	}
	flags := []string{"--no-ext-diff", "--no-textconv", "--no-renames"}
	at.args = append(append([]string{"diff", "--numstat", "-z"}, flags...), w.BaseCommit, right, "--")
	r, err := m.gitCall(ctx, at)
	if err != nil {
		return c, err
	}
	for _, rec := range strings.Split(r.out, "\x00") {
		f := strings.SplitN(rec, "\t", 3)
		if len(f) < 3 || f[2] == "" {
			continue
		}
		c.Files[f[2]] = nil
		ins, _ := strconv.Atoi(f[0]) // "-" for a binary file
		del, _ := strconv.Atoi(f[1])
		c.Lines += ins + del
	}
	if len(c.Files) == 0 {
		return c, nil
	}
	at.args = append(append([]string{"diff", "-U0", "--src-prefix=a/", "--dst-prefix=b/"}, flags...), w.BaseCommit, right, "--")
	at.limit = maxRadarDiff
	r, err = m.gitCall(ctx, at)
	if err != nil {
		return c, err
	}
	for path, spans := range parseHunks(r.out) {
		if _, ok := c.Files[path]; ok {
			c.Files[path] = spans
		}
	}
	return c, nil
}

// parseHunks reads a -U0 unified diff into each file's base-side spans.
func parseHunks(diff string) map[string][]Span {
	out := map[string][]Span{}
	paths := DiffPaths(diff)
	file := -1
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			file++
		case strings.HasPrefix(line, "@@ -") && file >= 0 && file < len(paths):
			if s, ok := parseSpan(line); ok {
				out[paths[file]] = append(out[paths[file]], s)
			}
		}
	}
	return out
}

// parseSpan reads the old side of "@@ -s[,n] +t[,k] @@".
func parseSpan(line string) (Span, bool) {
	old, _, _ := strings.Cut(strings.TrimPrefix(line, "@@ -"), " ")
	startS, countS, hasCount := strings.Cut(old, ",")
	start, err := strconv.Atoi(startS)
	if err != nil {
		return Span{}, false
	}
	count := 1
	if hasCount {
		if count, err = strconv.Atoi(countS); err != nil {
			return Span{}, false
		}
	}
	if count == 0 {
		return Span{Start: start, End: start, Add: true}, true
	}
	return Span{Start: start, End: start + count - 1}, true
}

// Meets reports whether two hunks of one file, against the same base,
// would collide: their rewritten lines intersect, both insert at the same
// place, or an insertion lands inside or right next to the other's
// rewritten lines (git's merge conflicts on touching changes too).
func (s Span) Meets(o Span) bool {
	switch {
	case s.Add && o.Add:
		return s.Start == o.Start
	case s.Add:
		return o.Start-1 <= s.Start && s.Start <= o.End
	case o.Add:
		return s.Start-1 <= o.Start && o.Start <= s.End
	}
	return s.Start <= o.End && o.Start <= s.End
}

// HunkPair is two hunks, one of each task, that meet.
type HunkPair struct{ A, B Span }

// FileOverlap is a file both tasks change, with the hunks that meet (none:
// the same file, different places; or different bases, where lines cannot
// be compared).
type FileOverlap struct {
	Path  string
	Hunks []HunkPair
}

// Pair is two tasks whose changes share files.
type Pair struct {
	A, B     string // task ids, in the order of the input
	SameBase bool   // hunks are compared only when both start from one commit
	Files    []FileOverlap
}

// Overlaps pairs every two changes that touch a common file, in input
// order, files sorted by path.
func Overlaps(changes []Changes) []Pair {
	var out []Pair
	for i := range changes {
		for j := i + 1; j < len(changes); j++ {
			a, b := changes[i], changes[j]
			p := Pair{A: a.TaskID, B: b.TaskID, SameBase: a.BaseCommit == b.BaseCommit}
			for path, sa := range a.Files {
				sb, ok := b.Files[path]
				if !ok {
					continue
				}
				f := FileOverlap{Path: path}
				if p.SameBase {
					for _, x := range sa {
						for _, y := range sb {
							if x.Meets(y) {
								f.Hunks = append(f.Hunks, HunkPair{A: x, B: y})
							}
						}
					}
				}
				p.Files = append(p.Files, f)
			}
			if len(p.Files) > 0 {
				sort.Slice(p.Files, func(x, y int) bool { return p.Files[x].Path < p.Files[y].Path })
				out = append(out, p)
			}
		}
	}
	return out
}

// MergeOrder suggests an order to merge the tasks that overlap (tasks in
// no pair are left out: they merge in any order). The rule: fewest
// colliding hunks with the others first (it makes the fewest rebases),
// then the smaller change (the larger one rebases over less), then the
// order of the input (callers pass the oldest task first).
func MergeOrder(changes []Changes, pairs []Pair) []string {
	hunks, in := map[string]int{}, map[string]bool{}
	for _, p := range pairs {
		in[p.A], in[p.B] = true, true
		for _, f := range p.Files {
			hunks[p.A] += len(f.Hunks)
			hunks[p.B] += len(f.Hunks)
		}
	}
	var list []Changes
	for _, c := range changes {
		if in[c.TaskID] {
			list = append(list, c)
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if hunks[a.TaskID] != hunks[b.TaskID] {
			return hunks[a.TaskID] < hunks[b.TaskID]
		}
		return a.Lines < b.Lines
	})
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = c.TaskID
	}
	return out
}
