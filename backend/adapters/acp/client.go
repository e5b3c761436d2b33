package acp

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/jail"
	"github.com/clawboo/desktop/backend/redact"
)

// client is the side of the connection the agent calls: Clawboo's answers
// to session/update, the fs and terminal methods and permission requests.
// Every method belongs to one run.
type client struct{ r *run }

var _ acpsdk.Client = (*client)(nil)

// SessionUpdate maps one update to events. Updates of a session being
// loaded (its history replayed) are not this run's and are skipped.
func (c *client) SessionUpdate(ctx context.Context, n acpsdk.SessionNotification) error {
	r := c.r
	defer r.doneSlot()
	if r.replaying.Load() {
		return nil
	}
	for _, ev := range r.mapper.update(n.Update) {
		if err := r.em.Emit(r.ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

// refusal is a JSON-RPC error an agent reads as "not allowed", in words.
func refusal(err error) error {
	return &acpsdk.RequestError{Code: -32602, Message: err.Error()}
}

// path turns a path the agent named (absolute, as the protocol asks, or
// relative to the session's folder) into one relative to the run's
// working folder, or refuses it.
func (r *run) path(p string) (string, error) {
	if r.jail == nil {
		return "", errors.New("this run has no working folder, so it has no files")
	}
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(r.req.WorkDir, filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", errors.New(p + " is outside the task's working folder")
		}
		p = rel
	}
	return jail.Clean(p, false)
}

// ReadTextFile reads a file of the working folder, through the jail, from
// a 1-based line and at most limit lines when asked.
func (c *client) ReadTextFile(_ context.Context, p acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	rel, err := c.r.path(p.Path)
	if err != nil {
		return acpsdk.ReadTextFileResponse{}, refusal(err)
	}
	text, err := c.r.jail.Read(rel)
	if err != nil {
		return acpsdk.ReadTextFileResponse{}, refusal(jail.Explain(p.Path, err))
	}
	return acpsdk.ReadTextFileResponse{Content: lines(text, p.Line, p.Limit)}, nil
}

// lines returns text from 1-based line for limit lines (nil: from the
// start, to the end).
func lines(text string, line, limit *int) string {
	if line == nil && limit == nil {
		return text
	}
	all := strings.SplitAfter(text, "\n")
	from := 0
	if line != nil && *line > 1 {
		from = min(*line-1, len(all))
	}
	to := len(all)
	if limit != nil && *limit >= 0 {
		to = min(from+*limit, len(all))
	}
	return strings.Join(all[from:to], "")
}

// WriteTextFile writes a file of the working folder through the jail
// (never a .git path, never outside) and reports it as a tool call.
func (c *client) WriteTextFile(_ context.Context, p acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	rel, err := c.r.path(p.Path)
	if err != nil {
		return acpsdk.WriteTextFileResponse{}, refusal(err)
	}
	if err := c.r.jail.Write(rel, []byte(p.Content)); err != nil {
		return acpsdk.WriteTextFileResponse{}, refusal(jail.Explain(p.Path, err))
	}
	c.r.wrote(rel, len(p.Content))
	return acpsdk.WriteTextFileResponse{}, nil
}

// wrote reports a file the agent wrote through the client.
func (r *run) wrote(rel string, n int) {
	in, _ := json.Marshal(map[string]any{"path": rel, "bytes": n})
	id := "fs-write-" + rel
	_ = r.em.Emit(r.ctx, executor.ToolCall(id, "write_text_file", in))
	_ = r.em.Emit(r.ctx, executor.ToolResult(id, "write_text_file", "wrote "+rel, false))
}

// status reports a status detail, scrubbed.
func (r *run) status(detail string) {
	_ = r.em.Emit(r.ctx, executor.Status(executor.PhaseRunning, redact.Secrets(detail)))
}
