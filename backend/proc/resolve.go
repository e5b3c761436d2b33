package proc

import (
	"bufio"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// Resolver finds programs the way a user's shell would, and also where
// per-user installers put them while that folder is often missing from the
// server's PATH: pip --user and pipx (~/.local/bin, $PIPX_BIN_DIR,
// $PYTHONUSERBASE/bin), and npm's global prefix ($NPM_CONFIG_PREFIX or the
// prefix in ~/.npmrc). Answers are cached and the cache is dropped when any
// of those folders changes (file-system events), so a lookup costs a map
// read and never a `which`.
type Resolver struct {
	getenv  func(string) string
	dirs    []string
	watcher *Watcher

	mu    sync.RWMutex
	cache map[string]string // name → path ("" = not found)
}

// ResolverOptions configure a Resolver.
type ResolverOptions struct {
	Getenv func(string) string // nil = os.Getenv
	// OnChange is called (debounced) after a search folder changed, e.g. a
	// CLI appeared after an install.
	OnChange func()
	Log      *slog.Logger
	// NoWatch disables file-system watching (the cache then lives until
	// Invalidate).
	NoWatch bool
}

// NewResolver builds a resolver over PATH and the per-user install folders.
func NewResolver(opts ResolverOptions) *Resolver {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	r := &Resolver{getenv: opts.Getenv, cache: map[string]string{}}
	r.dirs = SearchDirs(opts.Getenv)
	if !opts.NoWatch {
		w, err := NewWatcher(WatcherOptions{Paths: r.dirs, Log: opts.Log, OnChange: func() {
			r.Invalidate()
			if opts.OnChange != nil {
				opts.OnChange()
			}
		}})
		if err == nil {
			r.watcher = w
		} else if opts.Log != nil {
			opts.Log.Warn("binary folders are not watched; installs are noticed on re-check", "err", err)
		}
	}
	return r
}

// SearchDirs lists the folders searched, in order: PATH, then the per-user
// install folders that are not already on it.
func SearchDirs(getenv func(string) string) []string {
	var dirs []string
	seen := map[string]bool{}
	add := func(d string) {
		if d == "" || !filepath.IsAbs(d) {
			return
		}
		d = filepath.Clean(d)
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	for _, d := range filepath.SplitList(getenv("PATH")) {
		add(d)
	}
	home := getenv("HOME")
	add(getenv("PIPX_BIN_DIR"))
	if ub := getenv("PYTHONUSERBASE"); ub != "" {
		add(filepath.Join(ub, "bin"))
	}
	if home != "" {
		add(filepath.Join(home, ".local", "bin")) // pip --user and pipx on Linux
		if runtime.GOOS == "darwin" {
			matches, _ := filepath.Glob(filepath.Join(home, "Library", "Python", "*", "bin"))
			sort.Sort(sort.Reverse(sort.StringSlice(matches)))
			for _, m := range matches {
				add(m)
			}
		}
	}
	if p := npmPrefix(getenv); p != "" {
		if runtime.GOOS == "windows" {
			add(p)
		} else {
			add(filepath.Join(p, "bin"))
		}
	}
	return dirs
}

// npmPrefix is npm's global prefix as npm itself would read it from the
// environment or ~/.npmrc, without running npm (which takes ~200 ms).
func npmPrefix(getenv func(string) string) string {
	for _, k := range []string{"NPM_CONFIG_PREFIX", "npm_config_prefix"} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return expandHome(v, getenv("HOME"))
		}
	}
	home := getenv("HOME")
	if home == "" {
		return ""
	}
	f, err := os.Open(filepath.Join(home, ".npmrc"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok && strings.TrimSpace(k) == "prefix" {
			return expandHome(strings.Trim(strings.TrimSpace(v), `"'`), home)
		}
	}
	return ""
}

func expandHome(p, home string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		return filepath.Join(home, strings.TrimPrefix(p, "~"))
	}
	return p
}

// Dirs are the folders searched.
func (r *Resolver) Dirs() []string { return append([]string(nil), r.dirs...) }

// Find returns the path of an executable named name in the search folders.
func (r *Resolver) Find(name string) (string, bool) {
	if name == "" || strings.ContainsRune(name, filepath.Separator) {
		return "", false
	}
	r.mu.RLock()
	p, ok := r.cache[name]
	r.mu.RUnlock()
	if !ok {
		p = r.search(name)
		r.mu.Lock()
		r.cache[name] = p
		r.mu.Unlock()
	}
	return p, p != ""
}

func (r *Resolver) search(name string) string {
	names := []string{name}
	if runtime.GOOS == "windows" {
		names = []string{name + ".exe", name + ".cmd", name + ".bat", name}
	}
	for _, d := range r.dirs {
		for _, n := range names {
			p := filepath.Join(d, n)
			if isExecutable(p) {
				return p
			}
		}
	}
	return ""
}

// IsExecutableFile says p is a regular file (through symlinks) a user
// may execute.
func IsExecutableFile(p string) bool { return isExecutable(p) }

func isExecutable(p string) bool {
	st, err := os.Stat(p) // follows symlinks: npm's bin entries are links
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	return runtime.GOOS == "windows" || st.Mode().Perm()&0o111 != 0
}

// Invalidate drops every cached answer.
func (r *Resolver) Invalidate() {
	r.mu.Lock()
	r.cache = map[string]string{}
	r.mu.Unlock()
}

// Close stops watching.
func (r *Resolver) Close() error {
	if r.watcher != nil {
		return r.watcher.Close()
	}
	return nil
}
