package api

import (
	"bytes"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The repository picker: the repositories tasks already use, and a
// directory walk (names of folders only, never file contents) so a person
// can pick a repository in a browser as well as in the desktop window.

const (
	maxRecentRepos  = 20
	maxBrowseDirs   = 500
	maxHeadFileSize = 4096
)

type repoInfo struct {
	Path   string  `json:"path"`
	IsRepo bool    `json:"isRepo"`
	Branch *string `json:"branch"`
}

// inspectRepo says whether dir is the top of a git repository and, for a
// plain .git folder, which branch it has checked out.
func inspectRepo(dir string) (isRepo bool, branch *string) {
	fi, err := os.Lstat(filepath.Join(dir, ".git"))
	if err != nil {
		return false, nil
	}
	if !fi.IsDir() {
		return fi.Mode().IsRegular(), nil // a linked worktree's .git file
	}
	f, err := os.Open(filepath.Join(dir, ".git", "HEAD"))
	if err != nil {
		return true, nil
	}
	defer f.Close()
	head := make([]byte, maxHeadFileSize)
	n, _ := f.Read(head)
	ref, ok := bytes.CutPrefix(bytes.TrimSpace(head[:n]), []byte("ref: refs/heads/"))
	if !ok || len(ref) == 0 {
		return true, nil // detached
	}
	b := string(ref)
	return true, &b
}

func (a *API) recentRepos(w http.ResponseWriter, r *http.Request) {
	paths, err := a.opts.Board.RecentRepos(r.Context(), maxRecentRepos)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	out := make([]repoInfo, 0, len(paths))
	for _, p := range paths {
		isRepo, branch := inspectRepo(p)
		out = append(out, repoInfo{Path: p, IsRepo: isRepo, Branch: branch})
	}
	writeJSON(w, http.StatusOK, map[string]any{"recent": out})
}

type dirEntry struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	IsRepo bool   `json:"isRepo"`
}

// browseRepos lists the folders inside ?path= (default: the user's home),
// hidden ones left out, marking which are repositories.
func (a *API) browseRepos(w http.ResponseWriter, r *http.Request) {
	dir := r.URL.Query().Get("path")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = "/"
		}
		dir = home
	}
	if strings.ContainsRune(dir, 0) || !filepath.IsAbs(dir) {
		writeError(w, http.StatusBadRequest, "path must be absolute")
		return
	}
	dir = filepath.Clean(dir)
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		writeError(w, http.StatusNotFound, "no folder at %s", dir)
		return
	case errors.Is(err, fs.ErrPermission):
		writeError(w, http.StatusForbidden, "cannot read %s: permission denied", dir)
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, "cannot list %s: %v", dir, err)
		return
	}
	out := []dirEntry{}
	truncated := false
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			// Follow a symlink only to see whether it is a folder.
			if e.Type()&fs.ModeSymlink == 0 {
				continue
			}
			if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
				continue
			}
		}
		if len(out) == maxBrowseDirs {
			truncated = true
			break
		}
		isRepo, _ := inspectRepo(p)
		out = append(out, dirEntry{Name: e.Name(), Path: p, IsRepo: isRepo})
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	var parent *string
	if up := filepath.Dir(dir); up != dir {
		parent = &up
	}
	isRepo, branch := inspectRepo(dir)
	writeJSON(w, http.StatusOK, map[string]any{
		"path": dir, "parent": parent, "isRepo": isRepo, "branch": branch,
		"entries": out, "truncated": truncated,
	})
}
