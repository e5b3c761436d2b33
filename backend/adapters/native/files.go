package native

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clawboo/desktop/backend/llm"
)

// File tool limits.
const (
	ReadCap     = 64 << 10 // read_file returns at most this many bytes
	WriteCap    = 1 << 20  // write_file refuses more content than this
	ListCap     = 2000     // list_files returns at most this many entries
	maxPathSize = 4096
)

// fileTools are read_file, write_file and list_files, jailed to one
// folder through os.Root: a path is relative, and neither .. nor a
// symlink (file or folder) may lead outside the root.
type fileTools struct{ root *os.Root }

func openFileTools(dir string) (*fileTools, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open working folder: %w", err)
	}
	return &fileTools{root: r}, nil
}

func (f *fileTools) close() { _ = f.root.Close() }

// fileToolDefs are the file tools' definitions, as the model sees them.
func fileToolDefs() []llm.Tool {
	return []llm.Tool{
		{Name: "list_files", Description: "List a folder of the working folder: one line per entry, \"dir <name>\" or \"file <name>\", sorted. Omit path for the top.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"folder, relative to the working folder"}}}`)},
		{Name: "read_file", Description: "Read a text file of the working folder (at most 64 KiB; longer files are truncated with a note).",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file, relative to the working folder"}},"required":["path"]}`)},
		{Name: "write_file", Description: "Write a file of the working folder, replacing it and creating folders as needed (at most 1 MiB).",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file, relative to the working folder"},"content":{"type":"string"}},"required":["path","content"]}`)},
	}
}

// clean checks a model-supplied path and returns it in root-relative
// form. The root enforces the jail; this gives the model clear refusals.
func clean(p string, allowTop bool) (string, error) {
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

// escapeErr turns os.Root's refusal into words the model can act on.
func escapeErr(p string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes") {
		return fmt.Errorf("%s: path escapes the working folder", p)
	}
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: no such file or folder", p)
	}
	return err
}

func (f *fileTools) read(p string) (string, error) {
	c, err := clean(p, false)
	if err != nil {
		return "", err
	}
	fh, err := f.root.Open(c)
	if err != nil {
		return "", escapeErr(p, err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return "", escapeErr(p, err)
	}
	if st.IsDir() {
		return "", fmt.Errorf("%s is a folder: use list_files", p)
	}
	b, err := io.ReadAll(io.LimitReader(fh, ReadCap+1))
	if err != nil {
		return "", escapeErr(p, err)
	}
	if len(b) > ReadCap {
		return string(b[:ReadCap]) + fmt.Sprintf("\n…[truncated at %d bytes]", ReadCap), nil
	}
	return string(b), nil
}

func (f *fileTools) write(p, content string) (string, error) {
	c, err := clean(p, false)
	if err != nil {
		return "", err
	}
	if len(content) > WriteCap {
		return "", fmt.Errorf("content is %d bytes; the limit is %d", len(content), WriteCap)
	}
	if dir := filepath.Dir(c); dir != "." {
		if err := f.root.MkdirAll(dir, 0o755); err != nil {
			return "", escapeErr(p, err)
		}
	}
	if err := f.root.WriteFile(c, []byte(content), 0o644); err != nil {
		return "", escapeErr(p, err)
	}
	return fmt.Sprintf("wrote %d bytes to %s", len(content), filepath.ToSlash(c)), nil
}

func (f *fileTools) list(p string) (string, error) {
	c, err := clean(p, true)
	if err != nil {
		return "", err
	}
	fh, err := f.root.Open(c)
	if err != nil {
		return "", escapeErr(p, err)
	}
	defer fh.Close()
	ents, err := fh.ReadDir(-1)
	if err != nil {
		return "", fmt.Errorf("%s: not a folder", p)
	}
	lines := make([]string, 0, len(ents))
	for _, e := range ents {
		kind := "file"
		if e.IsDir() {
			kind = "dir"
		}
		lines = append(lines, kind+" "+e.Name())
	}
	sort.Slice(lines, func(i, j int) bool {
		return lines[i][strings.IndexByte(lines[i], ' ')+1:] < lines[j][strings.IndexByte(lines[j], ' ')+1:]
	})
	more := ""
	if len(lines) > ListCap {
		more = fmt.Sprintf("\n…[%d more entries]", len(lines)-ListCap)
		lines = lines[:ListCap]
	}
	if len(lines) == 0 {
		return "(empty)", nil
	}
	return strings.Join(lines, "\n") + more, nil
}

// call dispatches one file tool; handled is false for other names.
func (f *fileTools) call(name string, input json.RawMessage) (out string, isErr, handled bool) {
	var args struct {
		Path    string  `json:"path"`
		Content *string `json:"content"`
	}
	if len(input) > 0 {
		if err := json.Unmarshal(input, &args); err != nil {
			return "invalid arguments: " + err.Error(), true, name == "read_file" || name == "write_file" || name == "list_files"
		}
	}
	var err error
	switch name {
	case "read_file":
		out, err = f.read(args.Path)
	case "write_file":
		if args.Content == nil {
			return "content is required", true, true
		}
		out, err = f.write(args.Path, *args.Content)
	case "list_files":
		out, err = f.list(args.Path)
	default:
		return "", false, false
	}
	if err != nil {
		return err.Error(), true, true
	}
	return out, false, true
}
