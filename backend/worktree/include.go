package worktree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// includeFile lists globs of the repository's ignored files (.env, …) that
// each new worktree gets a copy of. It is read from the task's base commit,
// never from the worktree: the run cannot widen what later runs receive.
const includeFile = ".clawboo/include"

// Bounds on what an include file can ask for: it is the repository's, but
// the repository may be someone else's.
const (
	maxIncludeList    = 64 << 10 // bytes of .clawboo/include read
	maxIncludeGlobs   = 200
	maxIncludeFiles   = 500
	maxIncludeFileLen = 16 << 20 // one file
	maxIncludeTotal   = 64 << 20 // all files of one worktree
)

// IncludeReport says what CopyIncludes did, for the run's timeline.
type IncludeReport struct {
	Copied  []string // paths relative to the worktree
	Skipped []string // "path: why"
	Refused []string // globs of the include file refused, with why
}

// parseInclude reads an include file: one gitignore-style glob a line,
// blank lines and '#' comments skipped. A glob is refused when it is
// absolute (a leading '/', '~' or a drive), climbs ('..' as a segment),
// names .git, or holds a control character or a backslash.
func parseInclude(text string) (globs, refused []string) {
	for _, line := range strings.Split(text, "\n") {
		g := strings.TrimSpace(line)
		if g == "" || strings.HasPrefix(g, "#") {
			continue
		}
		body := strings.TrimPrefix(g, "!")
		why := ""
		switch {
		case len(globs) >= maxIncludeGlobs:
			why = fmt.Sprintf("more than %d globs", maxIncludeGlobs)
		case strings.HasPrefix(body, "/") || strings.HasPrefix(body, "~") || filepath.IsAbs(body) || filepath.VolumeName(body) != "":
			why = "an absolute path"
		case strings.ContainsAny(body, "\\\x00") || strings.ContainsFunc(body, func(r rune) bool { return r < 0x20 || r == 0x7f }):
			why = "a backslash or control character"
		case body == "":
			why = "empty"
		}
		if why == "" {
			for _, seg := range strings.Split(body, "/") {
				if seg == ".." {
					why = "'..' climbs out of the repository"
				} else if seg == ".git" {
					why = "names .git"
				}
			}
		}
		if why != "" {
			refused = append(refused, g+": "+why)
			continue
		}
		globs = append(globs, g)
	}
	return globs, refused
}

// includeCache holds each base commit's parsed include globs: a commit
// never changes, so it is read once. Bounded: cleared when full.
type includeCache struct {
	mu sync.Mutex
	m  map[string][2][]string
}

// includeGlobs is the include globs (and refusals) of w's base commit.
func (m *Manager) includeGlobs(ctx context.Context, w Worktree) ([]string, []string, error) {
	base, err := m.baseOf(ctx, w)
	if err != nil || base == "" {
		return nil, nil, err
	}
	m.includes.mu.Lock()
	v, ok := m.includes.m[base]
	m.includes.mu.Unlock()
	if ok {
		return v[0], v[1], nil
	}
	w.BaseCommit = base
	b, err := m.BaseFile(ctx, w, includeFile, maxIncludeList)
	if errors.Is(err, fs.ErrNotExist) {
		b, err = nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	globs, refused := parseInclude(string(b))
	m.includes.mu.Lock()
	if m.includes.m == nil || len(m.includes.m) >= 256 {
		m.includes.m = map[string][2][]string{}
	}
	m.includes.m[base] = [2][]string{globs, refused}
	m.includes.mu.Unlock()
	return globs, refused, nil
}

// baseOf is w's base commit, or the one its base ref remembers.
func (m *Manager) baseOf(ctx context.Context, w Worktree) (string, error) {
	if w.BaseCommit != "" {
		return w.BaseCommit, nil
	}
	return m.refCommit(ctx, w.RepoPath, baseRefOf(w.TaskID))
}

// globFile writes globs to a temporary exclude file for git, removed by
// the returned func.
func globFile(globs []string) (string, func(), error) {
	f, err := os.CreateTemp("", "clawboo-include-")
	if err != nil {
		return "", nil, err
	}
	_, err = f.WriteString(strings.Join(globs, "\n") + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", nil, err
	}
	return f.Name(), func() { os.Remove(f.Name()) }, nil
}

// listMatching runs `git ls-files <which> -i --exclude-from=globs` at c: the
// files git lists that the globs match, and no others (the worktree's own
// .gitignore plays no part, so an agent cannot un-ignore anything). Names
// git had to quote are left out: we never copied one.
func (m *Manager) listMatching(ctx context.Context, c call, which string, globs []string) ([]string, error) {
	f, done, err := globFile(globs)
	if err != nil {
		return nil, err
	}
	defer done()
	c.args = []string{"ls-files", which, "-i", "--exclude-from=" + f}
	r, err := m.gitCall(ctx, c)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range strings.Split(r.out, "\n") {
		if p != "" && !strings.HasPrefix(p, `"`) {
			out = append(out, p)
		}
	}
	return out, nil
}

// CopyIncludes copies the files the base commit's .clawboo/include names
// from the repository's own checkout into the worktree: untracked files
// matching its globs, regular files only (a symlink is skipped, and every
// path is opened through an os.Root, so nothing resolving outside the
// repository or the worktree is read or written), never replacing a file
// the worktree already has, within the size bounds above. The copies never
// enter a commit or a diff of ours (dropIncluded).
func (m *Manager) CopyIncludes(ctx context.Context, w Worktree) (IncludeReport, error) {
	var rep IncludeReport
	if err := m.check(w, true); err != nil {
		return rep, err
	}
	globs, refused, err := m.includeGlobs(ctx, w)
	rep.Refused = refused
	if err != nil || len(globs) == 0 {
		return rep, err
	}
	if !present(w) {
		return rep, fmt.Errorf("the worktree of task %s is not there", w.TaskID)
	}
	if _, err := m.linkedGitDir(ctx, w.Path, w.RepoPath); err != nil {
		return rep, err
	}
	paths, err := m.listMatching(ctx, call{dir: w.RepoPath, noRetry: true}, "--others", globs)
	if err != nil {
		return rep, fmt.Errorf("list the files %s names: %w", includeFile, err)
	}
	src, err := os.OpenRoot(w.RepoPath)
	if err != nil {
		return rep, err
	}
	defer src.Close()
	dst, err := os.OpenRoot(w.Path)
	if err != nil {
		return rep, err
	}
	defer dst.Close()
	var total int64
	for _, p := range paths {
		if len(rep.Copied) >= maxIncludeFiles {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%d more files: at most %d are copied", len(paths)-len(rep.Copied)-len(rep.Skipped), maxIncludeFiles))
			break
		}
		n, why := copyInclude(src, dst, p, maxIncludeTotal-total)
		if why == alreadyThere {
			continue // a worktree used again keeps its own copy, quietly
		}
		if why != "" {
			rep.Skipped = append(rep.Skipped, p+": "+why)
			continue
		}
		total += n
		rep.Copied = append(rep.Copied, p)
	}
	return rep, nil
}

const alreadyThere = "already in the worktree"

// copyInclude copies one file, at most budget bytes, and says why not.
func copyInclude(src, dst *os.Root, p string, budget int64) (int64, string) {
	if filepath.IsAbs(p) || filepath.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, ".git/") {
		return 0, "not a plain relative path"
	}
	st, err := src.Lstat(p)
	if err != nil {
		return 0, "unreadable: " + err.Error()
	}
	if !st.Mode().IsRegular() {
		return 0, "not a regular file (a symlink or a device)"
	}
	if st.Size() > maxIncludeFileLen || st.Size() > budget {
		return 0, fmt.Sprintf("too large (%d bytes; at most %d a file, %d in all)", st.Size(), maxIncludeFileLen, maxIncludeTotal)
	}
	if _, err := dst.Lstat(p); err == nil {
		return 0, alreadyThere
	}
	in, err := src.Open(p)
	if err != nil {
		return 0, "unreadable: " + err.Error()
	}
	defer in.Close()
	if st2, err := in.Stat(); err != nil || !st2.Mode().IsRegular() || !os.SameFile(st, st2) {
		return 0, "changed while being copied"
	}
	if dir := filepath.Dir(p); dir != "." {
		if err := dst.MkdirAll(dir, 0o755); err != nil {
			return 0, "no folder for it in the worktree: " + err.Error()
		}
	}
	out, err := dst.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm()&0o755)
	if err != nil {
		return 0, "not written: " + err.Error()
	}
	n, err := io.Copy(out, io.LimitReader(in, maxIncludeFileLen))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = dst.Remove(p)
		return 0, "not written: " + err.Error()
	}
	return n, ""
}

// dropIncluded unstages, from the index c names (the worktree's, or a
// temporary copy), every file the include globs match that the base commit
// does not have: the copies CopyIncludes made, and anything else the run
// left under those names. Called after `git add -A`, so neither a commit
// nor a diff of ours ever holds them, whatever the worktree's .gitignore
// says (an agent could have negated it). Files the base tracks are the
// project's own and stay.
func (m *Manager) dropIncluded(ctx context.Context, w Worktree, c call) error {
	globs, _, err := m.includeGlobs(ctx, w)
	if err != nil || len(globs) == 0 {
		return err
	}
	matched, err := m.listMatching(ctx, c, "--cached", globs)
	if err != nil || len(matched) == 0 {
		return err
	}
	base, err := m.baseOf(ctx, w)
	if err != nil {
		return err
	}
	c.args = []string{"diff", "--cached", "--name-only", "--no-renames", "--diff-filter=A", base, "--"}
	r, err := m.gitCall(ctx, c)
	if err != nil {
		return err
	}
	added := map[string]bool{}
	for _, p := range strings.Split(r.out, "\n") {
		added[p] = true
	}
	var drop []string
	for _, p := range matched {
		if added[p] {
			drop = append(drop, p)
		}
	}
	if len(drop) == 0 {
		return nil
	}
	f, done, err := globFile(drop) // one literal path a line
	if err != nil {
		return err
	}
	defer done()
	env := map[string]string{"GIT_LITERAL_PATHSPECS": "1"}
	for k, v := range c.env {
		env[k] = v
	}
	c.env = env
	c.args = []string{"rm", "--cached", "-q", "--ignore-unmatch", "--pathspec-from-file=" + f}
	_, err = m.gitCall(ctx, c)
	return err
}
