package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrBadRepo wraps every reason CheckRepo refuses a path; the error's text
// says the reason in words a person can act on.
var ErrBadRepo = errors.New("not a usable repository")

// MaxRepoPath bounds a repository path anyone may hand us.
const MaxRepoPath = 4096

// systemTrees are folders whose whole subtree belongs to the system: no
// project lives there, and an agent must never be pointed at one.
var systemTrees = []string{
	"/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/run", "/sbin", "/sys",
	"/System", "/private/etc", "/usr/bin", "/usr/lib", "/usr/sbin", "/usr/share", "/var/lib", "/var/log",
}

// systemFolders are folders that hold projects below them but are never a
// project themselves.
var systemFolders = []string{
	"/", "/home", "/Users", "/usr", "/usr/local", "/var", "/private", "/private/var", "/tmp", "/opt", "/srv",
	"/mnt", "/media", "/Volumes", "/Applications", "/Library", "/root",
}

func badRepo(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrBadRepo, fmt.Sprintf(format, a...))
}

// Reason is the words of a CheckRepo refusal, without the wrapper.
func Reason(err error) string {
	return strings.TrimPrefix(err.Error(), ErrBadRepo.Error()+": ")
}

// systemPath says whether p (cleaned, absolute) is a system folder or lies
// inside one.
func systemPath(p string) bool {
	if runtime.GOOS == "windows" {
		vol := filepath.VolumeName(p)
		rest := strings.ToLower(filepath.ToSlash(strings.TrimPrefix(p, vol)))
		for _, t := range []string{"/windows", "/program files", "/program files (x86)", "/programdata"} {
			if rest == t || strings.HasPrefix(rest, t+"/") {
				return true
			}
		}
		return rest == "/" || rest == "" || rest == "/users"
	}
	for _, f := range systemFolders {
		if p == f {
			return true
		}
	}
	for _, t := range systemTrees {
		if p == t || strings.HasPrefix(p, t+"/") {
			return true
		}
	}
	return false
}

// CheckRepo says whether p is a folder a task may work on: an absolute
// path to the top folder of a git repository (not a bare one) with at
// least one commit, outside the system's folders and Clawboo's own
// worktrees. It answers p cleaned, or an error wrapping ErrBadRepo whose
// words say what is wrong and what to do (ErrGitMissing when git cannot
// run at all). It reads only: nothing in p is changed.
func (m *Manager) CheckRepo(ctx context.Context, p string) (string, error) {
	switch {
	case strings.TrimSpace(p) == "":
		return "", badRepo("no repository given")
	case len(p) > MaxRepoPath || strings.ContainsRune(p, 0):
		return "", badRepo("that is not a path a repository can have")
	case !filepath.IsAbs(p):
		return "", badRepo("%s is not an absolute path: give the repository's full path (for example /home/you/project)", p)
	}
	p = filepath.Clean(p)
	if systemPath(p) {
		return "", badRepo("%s is a system folder, not a project: give the folder of your project's git repository", p)
	}
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", badRepo("%s does not exist: give the folder of a git repository", p)
	case errors.Is(err, fs.ErrPermission):
		return "", badRepo("%s cannot be read by Clawboo (permission denied)", p)
	case err != nil:
		return "", badRepo("%s cannot be read: %v", p, err)
	case !st.IsDir():
		return "", badRepo("%s is a file, not a folder: give the folder of a git repository", p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", badRepo("%s cannot be read: %v", p, err)
	}
	if systemPath(real) {
		return "", badRepo("%s is a system folder (%s), not a project: give the folder of your project's git repository", p, real)
	}
	if err := m.Usable(ctx); err != nil {
		return "", err
	}
	bare, err := m.run(ctx, real, "rev-parse", "--is-bare-repository")
	if err != nil {
		return "", m.gitRefusal(p, err)
	}
	if strings.TrimSpace(bare) == "true" {
		return "", badRepo("%s is a bare git repository (it has no files checked out): give a clone of it instead", p)
	}
	top, err := m.resolveRepo(ctx, real)
	if err != nil {
		if errors.Is(err, ErrNotRepo) {
			return "", badRepo("%s is not a git repository: run git init there and make a first commit", p)
		}
		var ge *gitError
		if errors.As(err, &ge) {
			return "", m.gitRefusal(p, err)
		}
		return "", badRepo("%s", err.Error())
	}
	if top != real {
		return "", badRepo("%s is a folder inside the git repository %s: give %s itself, or run git init in %s for a repository of its own", p, top, top, p)
	}
	c, err := m.refCommit(ctx, top, "HEAD")
	if err != nil {
		return "", m.gitRefusal(p, err)
	}
	if c == "" {
		return "", badRepo("%s has no commits yet: make a first commit there (git add -A && git commit -m \"first commit\")", p)
	}
	return p, nil
}

// gitRefusal words a git failure while checking p.
func (m *Manager) gitRefusal(p string, err error) error {
	var ge *gitError
	if !errors.As(err, &ge) {
		return err
	}
	switch {
	case strings.Contains(ge.stderr, "not a git repository"):
		return badRepo("%s is not a git repository: run git init there and make a first commit", p)
	case strings.Contains(ge.stderr, "dubious ownership"):
		return badRepo("%s belongs to another user, and git refuses to work in it (see git config safe.directory)", p)
	}
	return badRepo("git cannot read %s: %s", p, tail(strings.TrimSpace(ge.stderr), 300))
}
