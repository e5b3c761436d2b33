package native

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/llm"
	"github.com/clawboo/desktop/backend/mcp"
)

// ResultCap bounds a tool result kept in the transcript and sent back to
// the model.
const ResultCap = 64 << 10

// toolset is a run's tool universe, built once before turn 1: the file
// tools (with a working folder) and the in-process MCP servers the config
// switches on. Locals win name collisions; among servers the first to
// list a name wins. defs is sorted by name, a cache key.
type toolset struct {
	files    *fileTools
	shell    *shellTool // run_command, when the run may have it
	delegate executor.DelegateFunc
	sessions []*mcp.Session
	route    map[string]*mcp.Session
	defs     []llm.Tool
}

// mcpServers lists the servers a config switches on, in a fixed order.
func mcpServers(cfg AgentConfig, teamID, agentID string) []string {
	var out []string
	if cfg.Tools.Tasks == TasksOn || cfg.Tools.Tasks == TasksRead {
		out = append(out, mcp.Tasks)
	}
	if cfg.Tools.Memory {
		out = append(out, mcp.Memory)
	}
	if cfg.Tools.Tools {
		out = append(out, mcp.Tools)
	}
	if cfg.Tools.TeamChat && teamID != "" && agentID != "" {
		out = append(out, mcp.TeamChat)
	}
	return out
}

// buildTools opens what the run may use. A server that will not open is
// skipped with a warning (the run goes on without it); warnings are
// returned for the caller to report.
func buildTools(ctx context.Context, hub *mcp.Hub, workDir string, cfg AgentConfig, b mcp.Binding, shell *shellTool, delegate executor.DelegateFunc) (*toolset, []string, error) {
	ts := &toolset{route: map[string]*mcp.Session{}, shell: shell, delegate: delegate}
	var warns []string
	seen := map[string]bool{}
	if delegate != nil {
		d := delegateDef()
		seen[d.Name] = true
		ts.defs = append(ts.defs, d)
	}
	if shell != nil {
		d := runCommandDef()
		seen[d.Name] = true
		ts.defs = append(ts.defs, d)
	}
	if workDir != "" {
		f, err := openFileTools(workDir)
		if err != nil {
			return nil, nil, err
		}
		ts.files = f
		for _, d := range fileToolDefs() {
			seen[d.Name] = true
			ts.defs = append(ts.defs, d)
		}
	}
	if hub != nil {
		for _, name := range mcpServers(cfg, b.TeamID, b.AgentID) {
			s, err := hub.Session(ctx, name, b)
			if err != nil {
				warns = append(warns, fmt.Sprintf("clawboo-%s is unavailable: %v", name, err))
				continue
			}
			ts.sessions = append(ts.sessions, s)
			tools, err := s.Tools(ctx)
			if err != nil {
				warns = append(warns, fmt.Sprintf("clawboo-%s listed no tools: %v", name, err))
				continue
			}
			for _, t := range tools {
				if seen[t.Name] {
					continue
				}
				seen[t.Name] = true
				ts.route[t.Name] = s
				ts.defs = append(ts.defs, llm.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
			}
		}
	}
	sort.Slice(ts.defs, func(i, j int) bool { return ts.defs[i].Name < ts.defs[j].Name })
	return ts, warns, nil
}

func (ts *toolset) close() {
	if ts == nil {
		return
	}
	if ts.files != nil {
		ts.files.close()
	}
	for _, s := range ts.sessions {
		_ = s.Close()
	}
}

// toolOutcome is one dispatched call.
type toolOutcome struct {
	out    string
	isErr  bool
	denied string // the broker's _meta.denied code, if any
}

// call runs one tool call.
func (ts *toolset) call(ctx context.Context, c llm.ToolCall) toolOutcome {
	if ts.shell != nil && c.Name == RunCommandTool {
		return ts.shell.call(ctx, c.Input)
	}
	if ts.delegate != nil && c.Name == DelegateTool {
		return callDelegate(ctx, ts.delegate, c.Input)
	}
	if ts.files != nil {
		if out, isErr, ok := ts.files.call(c.Name, c.Input); ok {
			return toolOutcome{out: capText(out), isErr: isErr}
		}
	}
	s, ok := ts.route[c.Name]
	if !ok {
		return toolOutcome{out: fmt.Sprintf("unknown tool %q", c.Name), isErr: true}
	}
	args := map[string]any{}
	if len(c.Input) > 0 && string(c.Input) != "null" {
		if err := json.Unmarshal(c.Input, &args); err != nil {
			return toolOutcome{out: "invalid arguments: the input must be a JSON object", isErr: true}
		}
	}
	res, err := s.Call(ctx, c.Name, args)
	if err != nil {
		return toolOutcome{out: "tool call failed: " + err.Error(), isErr: true}
	}
	return toolOutcome{out: capText(res.Text), isErr: res.IsError, denied: res.Denied}
}

func capText(s string) string {
	if len(s) <= ResultCap {
		return s
	}
	return s[:ResultCap] + fmt.Sprintf("\n…[truncated at %d bytes]", ResultCap)
}
