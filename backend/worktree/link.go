package worktree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// ErrForgedLink is a worktree whose ".git" no longer names the git dir git
// made for it. Everything in a worktree may have been written by an agent,
// including its ".git" link: a forged one could aim our own git commands at
// a repository the agent wrote, whose config runs commands (a clean filter
// on `git add`, say). We refuse to run git there rather than follow it.
var ErrForgedLink = errors.New("its .git link does not name the git dir Clawboo made for it (it was changed inside the worktree); refusing to run git there")

// maxLinkSize bounds the ".git" file we read: git writes one short line.
const maxLinkSize = 4096

// commonDirs caches each repository's git common dir (the folder holding
// objects, refs and worktrees/), asked of git once per repository.
type commonDirs struct{ m sync.Map }

// commonDir is repo's git common dir, absolute with symlinks resolved.
func (m *Manager) commonDir(ctx context.Context, repo string) (string, error) {
	if v, ok := m.commons.m.Load(repo); ok {
		return v.(string), nil
	}
	out, err := m.run(ctx, repo, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(strings.TrimSpace(out))
	if err != nil {
		return "", fmt.Errorf("git common dir of %s: %w", repo, err)
	}
	m.commons.m.Store(repo, dir)
	return dir, nil
}

// readLink reads a worktree's ".git" file and checks it against what git
// keeps on its side: it must be a regular file (not a folder, not a link)
// naming <common>/worktrees/<name>, whose own "gitdir" file names this
// worktree's ".git" back. It returns that git dir and its common dir, both
// with symlinks resolved, and checks nothing about which repository.
func readLink(wt string) (gitDir, common string, err error) {
	bad := func(why string) (string, string, error) {
		return "", "", fmt.Errorf("worktree %s: %w (%s)", wt, ErrForgedLink, why)
	}
	link := filepath.Join(wt, ".git")
	st, err := os.Lstat(link)
	if err != nil {
		return "", "", fmt.Errorf("worktree %s is missing its .git link", wt)
	}
	if !st.Mode().IsRegular() {
		return bad(".git is not a regular file")
	}
	text, err := readSmall(link)
	if err != nil {
		return bad(err.Error())
	}
	p, ok := strings.CutPrefix(strings.TrimRight(text, "\r\n"), "gitdir: ")
	if !ok || p == "" || strings.ContainsAny(p, "\r\n\x00") {
		return bad("not a gitdir line")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(wt, p)
	}
	if gitDir, err = filepath.EvalSymlinks(p); err != nil {
		return bad("its git dir does not exist")
	}
	if filepath.Base(filepath.Dir(gitDir)) != "worktrees" {
		return bad("its git dir is not under a repository's worktrees/")
	}
	common = filepath.Dir(filepath.Dir(gitDir))
	back, err := readSmall(filepath.Join(gitDir, "gitdir"))
	if err != nil {
		return bad("its git dir has no gitdir file")
	}
	back = strings.TrimRight(back, "\r\n")
	if !filepath.IsAbs(back) {
		back = filepath.Join(gitDir, back)
	}
	self, err1 := filepath.EvalSymlinks(wt)
	other, err2 := filepath.EvalSymlinks(filepath.Dir(filepath.Clean(back)))
	if err1 != nil || err2 != nil || self != other || filepath.Base(back) != ".git" {
		return bad("its git dir belongs to another worktree")
	}
	return gitDir, common, nil
}

// linkedGitDir is the checked git dir of worktree wt of repository repo:
// readLink's checks, plus that the git dir lives in repo's own common dir.
func (m *Manager) linkedGitDir(ctx context.Context, wt, repo string) (string, error) {
	gitDir, common, err := readLink(wt)
	if err != nil {
		return "", err
	}
	want, err := m.commonDir(ctx, repo)
	if err != nil {
		return "", err
	}
	if common != want {
		return "", fmt.Errorf("worktree %s: %w (its git dir is not in %s)", wt, ErrForgedLink, repo)
	}
	return gitDir, nil
}

func readSmall(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxLinkSize+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxLinkSize {
		return "", errors.New("file is too long")
	}
	return string(b), nil
}
