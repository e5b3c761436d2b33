package native

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clawboo/desktop/backend/jail"
	"github.com/clawboo/desktop/backend/llm"
)

// File tool limits (the jail's, re-exported for the tool descriptions).
const (
	ReadCap  = jail.ReadCap  // read_file returns at most this many bytes
	WriteCap = jail.WriteCap // write_file refuses more content than this
	ListCap  = 2000          // list_files returns at most this many entries
)

// fileTools are read_file, write_file and list_files over a jail.Dir:
// paths are relative, neither .. nor a symlink leads outside the folder,
// and no write reaches git's metadata (see package jail).
type fileTools struct{ dir *jail.Dir }

func openFileTools(dir string) (*fileTools, error) {
	d, err := jail.Open(dir)
	if err != nil {
		return nil, err
	}
	return &fileTools{dir: d}, nil
}

func (f *fileTools) close() { _ = f.dir.Close() }

// fileToolDefs are the file tools' definitions, as the model sees them.
func fileToolDefs() []llm.Tool {
	return []llm.Tool{
		{
			Name: "list_files", Description: "List a folder of the working folder: one line per entry, \"dir <name>\" or \"file <name>\", sorted. Omit path for the top.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"folder, relative to the working folder"}}}`),
		},
		{
			Name: "read_file", Description: "Read a text file of the working folder (at most 64 KiB; longer files are truncated with a note).",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file, relative to the working folder"}},"required":["path"]}`),
		},
		{
			Name: "write_file", Description: "Write a file of the working folder, replacing it and creating folders as needed (at most 1 MiB).",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file, relative to the working folder"},"content":{"type":"string"}},"required":["path","content"]}`),
		},
	}
}

func (f *fileTools) read(p string) (string, error) {
	out, err := f.dir.Read(p)
	if errors.Is(err, jail.ErrFolder) {
		return "", fmt.Errorf("%s is a folder: use list_files", p)
	}
	return out, err
}

func (f *fileTools) write(p, content string) (string, error) {
	if err := f.dir.Write(p, []byte(content)); err != nil {
		return "", err
	}
	c, _ := jail.Clean(p, false)
	return fmt.Sprintf("wrote %d bytes to %s", len(content), filepath.ToSlash(c)), nil
}

func (f *fileTools) list(p string) (string, error) {
	c, err := jail.Clean(p, true)
	if err != nil {
		return "", err
	}
	fh, err := f.dir.Root().Open(c)
	if err != nil {
		return "", jail.Explain(p, err)
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
