package toolbroker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/oklog/ulid/v2"
)

// builtinSpec describes a built-in tool over typed arguments A: the arguments are
// decoded strictly (unknown fields refused), then checked; the result of
// run is answered as JSON.
type builtinSpec[A any] struct {
	name, desc string
	risk       Risk
	schema     string
	available  func(ctx context.Context) (bool, string)
	check      func(a *A) error
	ask        func(a *A) (title, reason string) // what a person reads (high risk)
	run        func(ctx context.Context, c toolcall.Caller, a A) (any, error)
}

func (s builtinSpec[A]) tool() *brokerTool {
	return &brokerTool{
		def:  mcp.NewToolWithRawSchema(s.name, s.desc, json.RawMessage(s.schema)),
		risk: s.risk, source: builtinSource, available: s.available,
		prepare: func(raw json.RawMessage) (*preparedCall, error) {
			var a A
			if err := decodeToolArgs(raw, &a); err != nil {
				return nil, err
			}
			if s.check != nil {
				if err := s.check(&a); err != nil {
					return nil, err
				}
			}
			p := &preparedCall{run: func(ctx context.Context, c toolcall.Caller) (*mcp.CallToolResult, error) {
				v, err := s.run(ctx, c, a)
				if err != nil {
					return nil, err
				}
				return toolcall.JSON(v), nil
			}}
			if s.ask != nil {
				p.title, p.reason = s.ask(&a)
			}
			return p, nil
		},
	}
}

// decodeToolArgs decodes a JSON object into v, refusing unknown fields and
// anything after the object. Absent arguments decode to the zero value.
func decodeToolArgs(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the arguments")
	}
	return nil
}

// Bounds of the built-in tools' arguments.
const (
	maxEchoMessage = 64 << 10
	maxNoteBytes   = 8 << 10
	maxSearchQuery = 400
)

type echoToolArgs struct {
	Message string `json:"message"`
}

type noteToolArgs struct {
	Note string `json:"note"`
}

type deleteToolArgs struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

func (b *Broker) builtins() []*brokerTool {
	return []*brokerTool{
		builtinSpec[echoToolArgs]{
			name: "echo", risk: RiskLow,
			desc:   "Echo a message back. Use it to check that the tools server answers.",
			schema: `{"type":"object","properties":{"message":{"type":"string","description":"The text to echo."}},"required":["message"],"additionalProperties":false}`,
			check: func(a *echoToolArgs) error {
				if a.Message == "" {
					return errors.New("message is required")
				}
				if len(a.Message) > maxEchoMessage {
					return fmt.Errorf("message is over %d bytes", maxEchoMessage)
				}
				return nil
			},
			run: func(_ context.Context, _ toolcall.Caller, a echoToolArgs) (any, error) {
				return map[string]string{"message": a.Message}, nil
			},
		}.tool(),
		builtinSpec[noteToolArgs]{
			name: "note", risk: RiskLow,
			desc:      "Keep a short note for the people running this team (it is stored with your agent's name; secrets are blanked).",
			schema:    `{"type":"object","properties":{"note":{"type":"string","description":"The note, up to 8 KiB."}},"required":["note"],"additionalProperties":false}`,
			available: b.needStore,
			check: func(a *noteToolArgs) error {
				a.Note = strings.TrimSpace(a.Note)
				if a.Note == "" {
					return errors.New("note is required")
				}
				if len(a.Note) > maxNoteBytes {
					return fmt.Errorf("note is over %d bytes", maxNoteBytes)
				}
				return nil
			},
			run: func(ctx context.Context, c toolcall.Caller, a noteToolArgs) (any, error) {
				id := ulid.Make().String()
				if err := b.saveNote(ctx, c, id, a.Note); err != nil {
					return nil, err
				}
				return map[string]string{"saved": id}, nil
			},
		}.tool(),
		b.webFetchTool(),
		b.webSearchTool(),
		builtinSpec[deleteToolArgs]{
			name: "delete_path", risk: RiskHigh,
			desc: "Delete a file or folder (recursively) inside the user's home folder. A person is asked first, every time; " +
				"say why in `why`. The home folder itself and Clawboo's own data are refused.",
			schema: `{"type":"object","properties":{"path":{"type":"string","description":"Absolute path inside the user's home folder."},` +
				`"why":{"type":"string","description":"One short sentence on why this needs deleting; the person deciding reads it."}},` +
				`"required":["path"],"additionalProperties":false}`,
			available: func(context.Context) (bool, string) {
				if _, err := b.home(); err != nil {
					return false, "the user's home folder is unknown"
				}
				return true, ""
			},
			check: func(a *deleteToolArgs) error {
				p, err := b.deletable(a.Path)
				a.Path = p
				return err
			},
			ask: func(a *deleteToolArgs) (string, string) { return "Delete " + a.Path, a.Why },
			run: func(ctx context.Context, _ toolcall.Caller, a deleteToolArgs) (any, error) {
				// Check again: the answer may have taken minutes.
				p, err := b.deletable(a.Path)
				if err != nil {
					return nil, err
				}
				if err := os.RemoveAll(p); err != nil {
					return nil, fmt.Errorf("delete %s: %w", p, err)
				}
				return map[string]string{"deleted": p}, nil
			},
		}.tool(),
	}
}

func (b *Broker) needStore(context.Context) (bool, string) {
	if b.st == nil {
		return false, "no database"
	}
	return true, ""
}

// deletable resolves p and checks that it may be deleted: an absolute path
// that exists, strictly inside the user's home folder once symbolic links
// in its parent are resolved (a link itself is removed, never followed),
// and neither inside nor above Clawboo's data folder.
func (b *Broker) deletable(p string) (string, error) {
	if p == "" {
		return "", errors.New("path is required")
	}
	if strings.ContainsRune(p, 0) || !filepath.IsAbs(p) {
		return "", errors.New("path must be an absolute path")
	}
	home, err := b.home()
	if err != nil {
		return "", fmt.Errorf("the user's home folder is unknown: %w", err)
	}
	realHome, err := filepath.EvalSymlinks(home)
	if err != nil {
		return "", fmt.Errorf("the user's home folder is unknown: %w", err)
	}
	clean := filepath.Clean(p)
	parent, err := filepath.EvalSymlinks(filepath.Dir(clean))
	if err != nil {
		return "", fmt.Errorf("no such path: %s", clean)
	}
	target := filepath.Join(parent, filepath.Base(clean))
	if !pathWithin(target, realHome) || target == realHome {
		return "", fmt.Errorf("refused: %s is not inside the home folder %s (and the home folder itself is never deleted)", clean, home)
	}
	if _, err := os.Lstat(target); err != nil {
		return "", fmt.Errorf("no such path: %s", clean)
	}
	if b.st != nil {
		data, err := filepath.EvalSymlinks(filepath.Dir(b.st.Path()))
		if err == nil && (pathWithin(target, data) || pathWithin(data, target)) {
			return "", fmt.Errorf("refused: %s holds Clawboo's own data", clean)
		}
	}
	return target, nil
}

// pathWithin reports whether p is dir or below it (both cleaned, absolute).
func pathWithin(p, dir string) bool {
	if p == dir {
		return true
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
