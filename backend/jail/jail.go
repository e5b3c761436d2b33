// Package jail is a run's working folder as an untrusted agent may touch
// it: the one place every agent-facing file tool (the native loop's
// read_file, write_file and list_files, the mock's !write, any later one)
// reads and writes through.
//
// Invariants:
//   - Every path is relative to the folder; neither ".." nor a symlink (of
//     a file or a folder, committed to the repository or not) leads outside
//     it: os.Root enforces that, this package only words the refusals.
//   - No write creates, overwrites or deletes a path with a git metadata
//     component: ".git" in any letter case, with trailing dots or spaces
//     (which Windows drops), or its 8.3 short name "git~1". This holds for
//     the path as written and for every path a symlink on the way resolves
//     to, so a link named "notes" pointing at ".git" is refused too. A
//     worktree's ".git" is a file naming its git dir; an agent that could
//     rewrite it could aim the server's own git commands at a repository
//     it forged (with a config that runs commands), so it never can.
//   - Reads are bounded (ReadCap); writes are bounded (WriteCap).
package jail

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Limits.
const (
	ReadCap     = 64 << 10 // Read returns at most this many bytes
	WriteCap    = 1 << 20  // Write refuses more content than this
	maxPathSize = 4096
	maxLinkHops = 40 // symlinks followed while checking one path
)

// ErrGitMetadata is a write refused because it would reach git's metadata.
var ErrGitMetadata = errors.New("writing git metadata (.git) is not allowed: the worktree's git link and repository are managed by Clawboo")

// ErrFolder is a read of a folder, which is not a file.
var ErrFolder = errors.New("is a folder, not a file")

// Dir is one working folder. It is safe for concurrent use.
type Dir struct{ root *os.Root }

// Open opens dir as a jail.
func Open(dir string) (*Dir, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open working folder: %w", err)
	}
	return &Dir{root: r}, nil
}

// Close releases the folder.
func (d *Dir) Close() error { return d.root.Close() }

// Root is the underlying os.Root, for listing and opening files to read.
func (d *Dir) Root() *os.Root { return d.root }

// Clean checks a path an agent supplied and returns it in root-relative
// form ("." for the folder itself when allowTop). The root enforces the
// jail; Clean gives the agent clear refusals.
func Clean(p string, allowTop bool) (string, error) {
	if len(p) > maxPathSize {
		return "", errors.New("path is too long")
	}
	if strings.ContainsRune(p, 0) {
		return "", errors.New("path contains a NUL byte")
	}
	if p == "" || p == "." {
		if allowTop {
			return ".", nil
		}
		return "", errors.New("path is required")
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || filepath.VolumeName(p) != "" {
		return "", errors.New("absolute paths are not allowed: use a path relative to the working folder")
	}
	c := filepath.Clean(filepath.FromSlash(p))
	if c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return "", errors.New("path escapes the working folder")
	}
	if c == "." && !allowTop {
		return "", errors.New("path names the working folder itself, not a file")
	}
	return c, nil
}

// IsGitComponent reports a path element git treats as its metadata folder
// on some file system: ".git" in any case, ".git" followed by dots or
// spaces (Windows strips them), and the 8.3 short name "git~1".
func IsGitComponent(elem string) bool {
	e := strings.TrimRight(elem, ". ")
	return strings.EqualFold(e, ".git") || strings.EqualFold(elem, "git~1")
}

// hasGitComponent reports whether any element of a clean relative path
// (or a "\"-separated one) names git metadata.
func hasGitComponent(c string) bool {
	for _, e := range strings.FieldsFunc(c, func(r rune) bool { return r == '/' || r == '\\' || r == filepath.Separator }) {
		if IsGitComponent(e) {
			return true
		}
	}
	return false
}

// checkWritable refuses a clean path that is, or through symlinks resolves
// to, git metadata. Paths that do not exist yet are fine; a symlink whose
// target leaves the folder is left for the root to refuse.
func (d *Dir) checkWritable(c string) error {
	hops := 0
	for {
		if hasGitComponent(c) {
			return ErrGitMetadata
		}
		elems := strings.Split(c, string(filepath.Separator))
		resolved := false
		for i := range elems {
			prefix := filepath.Join(elems[:i+1]...)
			st, err := d.root.Lstat(prefix)
			if err != nil {
				break // missing (to be created) or refused: the write reports it
			}
			if st.Mode()&os.ModeSymlink == 0 {
				continue
			}
			if hops++; hops > maxLinkHops {
				return errors.New("too many symlinks on the path")
			}
			target, err := d.root.Readlink(prefix)
			if err != nil {
				return err
			}
			if filepath.IsAbs(target) {
				return errors.New("path goes through a symlink that leaves the working folder")
			}
			next := filepath.Join(filepath.Dir(prefix), target, filepath.Join(elems[i+1:]...))
			if next == ".." || strings.HasPrefix(next, ".."+string(filepath.Separator)) {
				return errors.New("path goes through a symlink that leaves the working folder")
			}
			c, resolved = next, true
			break
		}
		if !resolved {
			return nil
		}
	}
}

// Write writes content to the file p, replacing it and creating folders as
// needed. It refuses git metadata, paths outside the folder and content
// over WriteCap.
func (d *Dir) Write(p string, content []byte) error {
	c, err := Clean(p, false)
	if err != nil {
		return err
	}
	if len(content) > WriteCap {
		return fmt.Errorf("content is %d bytes; the limit is %d", len(content), WriteCap)
	}
	if err := d.checkWritable(c); err != nil {
		return fmt.Errorf("%s: %w", filepath.ToSlash(c), err)
	}
	if dir := filepath.Dir(c); dir != "." {
		if err := d.root.MkdirAll(dir, 0o755); err != nil {
			return Explain(p, err)
		}
	}
	if err := d.root.WriteFile(c, content, 0o644); err != nil {
		return Explain(p, err)
	}
	return nil
}

// Remove deletes the file or empty folder p, with Write's refusals.
func (d *Dir) Remove(p string) error {
	c, err := Clean(p, false)
	if err != nil {
		return err
	}
	if err := d.checkWritable(c); err != nil {
		return fmt.Errorf("%s: %w", filepath.ToSlash(c), err)
	}
	return Explain(p, d.root.Remove(c))
}

// Read returns the text of file p, cut at ReadCap with a note.
func (d *Dir) Read(p string) (string, error) {
	c, err := Clean(p, false)
	if err != nil {
		return "", err
	}
	fh, err := d.root.Open(c)
	if err != nil {
		return "", Explain(p, err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return "", Explain(p, err)
	}
	if st.IsDir() {
		return "", fmt.Errorf("%s %w", p, ErrFolder)
	}
	b, err := io.ReadAll(io.LimitReader(fh, ReadCap+1))
	if err != nil {
		return "", Explain(p, err)
	}
	if len(b) > ReadCap {
		return string(b[:ReadCap]) + fmt.Sprintf("\n…[truncated at %d bytes]", ReadCap), nil
	}
	return string(b), nil
}

// Explain turns os.Root's refusals into words an agent can act on; nil
// stays nil.
func Explain(p string, err error) error {
	if err == nil {
		return nil
	}
	var pe *os.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes") {
		return fmt.Errorf("%s: path escapes the working folder", p)
	}
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: no such file or folder", p)
	}
	return err
}
