package native

import (
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
	"github.com/clawboo/desktop/backend/llm"
	"github.com/clawboo/desktop/backend/mcp"
)

func newHub(t *testing.T) *mcp.Hub {
	t.Helper()
	h, err := mcp.New(mcp.Options{Token: "test-attach-token-0123456789", BindingKey: []byte("test-binding-key-0123456789")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

func toolNames(ts []llm.Tool) map[string]bool {
	out := map[string]bool{}
	for _, t := range ts {
		out[t.Name] = true
	}
	return out
}

func TestMCPToolsFromARealHub(t *testing.T) {
	e := newEnv(t, func(n int, _ llm.Request) reply {
		if n == 1 {
			return callTool("m1", "list_tasks", `{}`, 1, 1)
		}
		return say("ok", 1, 1)
	})
	e.opts.Hub = newHub(t)
	e.adapt = New(e.opts)
	evs := executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "look at the board", TeamID: "team-a", WorkDir: t.TempDir()}))
	if d := executortest.Done(t, evs); d.Reason != executor.DoneSuccess {
		t.Fatalf("done %+v", d)
	}
	reqs := e.prov.requests()
	names := toolNames(reqs[0].Tools)
	// tasks read-only (the default): list and get only; memory; tools;
	// teamchat with a team; the file tools.
	for _, want := range []string{"list_tasks", "get_task", "memory_search", "read_file", "write_file", "list_files"} {
		if !names[want] {
			t.Errorf("missing tool %s in %v", want, names)
		}
	}
	if names["create_task"] || names["update_task_status"] {
		t.Error("a read-only board offered write tools")
	}
	for i := 1; i < len(reqs[0].Tools); i++ {
		if reqs[0].Tools[i-1].Name >= reqs[0].Tools[i].Name {
			t.Fatal("tools not sorted by name")
		}
	}
	res := executortest.OfKind(evs, executor.KindToolResult)
	if len(res) != 1 || res[0].Name != "list_tasks" || strings.HasPrefix(res[0].Output, "unknown tool") || res[0].Output == "" {
		t.Fatalf("tool result %+v", res)
	}
	// The result went back to the model.
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Content[0].Type != llm.ToolResult || last.Content[0].Text != res[0].Output {
		t.Fatalf("turn 2 got %+v", last)
	}
}

func TestMCPServersFollowTheConfig(t *testing.T) {
	hub := newHub(t)
	cfg := DefaultConfig()
	cfg.Tools = ToolSwitches{Tasks: TasksOn}
	ts, warns, err := buildTools(t.Context(), hub, "", cfg, mcp.Binding{AgentID: "a1"}, nil, nil)
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	defer ts.close()
	names := toolNames(ts.defs)
	if !names["create_task"] || names["memory_search"] || names["read_file"] {
		t.Fatalf("tools %v", names)
	}
	// Teamchat needs a team; nil hub means no MCP tools at all.
	if got := mcpServers(DefaultConfig(), "", "a1"); strings.Contains(strings.Join(got, ","), mcp.TeamChat) {
		t.Fatalf("teamchat without a team: %v", got)
	}
	none, _, _ := buildTools(t.Context(), nil, "", DefaultConfig(), mcp.Binding{}, nil, nil)
	if len(none.defs) != 0 {
		t.Fatal("tools without a hub or a folder")
	}
}
