package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Results and errors every server shares. A tool either answers one JSON
// text block, or a tool error (isError) whose text says what to do next;
// refusals a caller may meet in normal work also carry _meta.denied with a
// stable code.

// JSON answers v as one JSON text block (and as structured content).
func JSON(v any) *mcp.CallToolResult {
	b, err := json.Marshal(v)
	if err != nil {
		return Error("internal error: " + err.Error())
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(b))}}
}

// Error is a plain tool error.
func Error(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(msg)}, IsError: true}
}

// Denied is a refusal with a stable code and a hint for the agent.
func Denied(code, msg, hint string) *mcp.CallToolResult {
	text := msg
	if hint != "" {
		text += "\n" + hint
	}
	r := Error(text)
	r.Meta = &mcp.Meta{AdditionalFields: map[string]any{"denied": code}}
	return r
}

// InvalidArgs is the answer to arguments that do not fit the tool.
func InvalidArgs(format string, a ...any) *mcp.CallToolResult {
	return Denied("invalid_args", "invalid args: "+fmt.Sprintf(format, a...), "")
}

// Handler adapts a typed tool function: arguments are decoded into A
// (unknown fields refused), the verified caller is passed in, and a Go
// error becomes a tool error rather than a protocol error.
func Handler[A any](fn func(ctx context.Context, c Caller, args A) *mcp.CallToolResult) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args A
		// A request that came through JSON (both transports) keeps its
		// arguments' bytes: decode those rather than re-encoding the map
		// mcp-go already decoded them into. Marshal is only for requests
		// built in Go.
		raw, ok := req.GetRawArguments().(json.RawMessage)
		if !ok {
			var err error
			if raw, err = json.Marshal(req.GetRawArguments()); err != nil {
				return InvalidArgs("%v", err), nil
			}
		}
		if raw = bytes.TrimSpace(raw); len(raw) > 0 && string(raw) != "null" {
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&args); err != nil {
				return InvalidArgs("%s", strings.TrimPrefix(err.Error(), "json: ")), nil
			}
		}
		return fn(ctx, CallerFrom(ctx), args), nil
	}
}
