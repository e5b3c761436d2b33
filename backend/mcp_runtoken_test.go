package backend

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/fakes/fakeanthropic"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/internal/testkit"
)

// childWithArg finds a live process whose command line holds arg; its
// environment and command line.
func childWithArg(arg string) (environ, cmdline []byte, ok bool) {
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		cl, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cl, []byte(arg)) {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err == nil && bytes.Contains(env, []byte(mcp.TokenEnv+"=")) {
			return env, cl, true
		}
	}
	return nil, nil, false
}

func envValue(environ []byte, name string) string {
	for _, kv := range bytes.Split(environ, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte(name+"=")); ok {
			return string(v)
		}
	}
	return ""
}

// TestClaudeRunToken: a board run on the real claude CLI attaches to the
// MCP servers with a token of its own. While the run is live (held at a
// gate by the fake model's Bash call) the child's environment holds that
// token and not the install token; its sessions are opened with a run
// credential; with no binding on the URL the token still opens only a
// session bound to the run (it lists only its team's tasks, cannot name
// another team, cannot write as "system", and a validly signed query for
// another team is 401). Once the run is over the token is 401, even in a
// session it opened, while the install token `clawboo mcp config` prints
// still attaches (unbound: every team's tasks).
func TestClaudeRunToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	rg := newClaudeRig(t, ctx)
	h, base := rg.h, rg.b.BaseURL()
	name, rt := "Claude prober", "claude-code"
	agent, err := rg.b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ Task board.Task }
	mustTeam(t, rg.b, "team-zz")
	mustTeam(t, rg.b, "team-cc")
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{"title": "Elsewhere", "teamId": "team-zz", "status": "todo"}, &created); code != http.StatusCreated {
		t.Fatalf("create task: %d", code)
	}
	foreign := created.Task
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Probe the run token", "teamId": "team-cc",
		"repoPath": e2eRepo(t), "kind": "code", "status": "todo",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create task: %d", code)
	}
	task := created.Task
	gate := filepath.Join(t.TempDir(), "open")
	rg.fake.SetRules(fakeanthropic.Rule{
		Match: "Probe the run token", Tool: "^mcp__clawboo-tasks__list_tasks$",
		Input: map[string]any{}, TextBefore: "Listing.",
		Then: &fakeanthropic.Rule{Tool: "^Bash$", AfterTool: "done: {result}", Input: map[string]any{
			"description": "wait",
			"command":     "for i in $(seq 1 1200); do [ -e '" + gate + "' ] && break; sleep 0.1; done; echo gate-open",
		}},
	})

	type answer struct {
		code int
		res  taskRunResult
	}
	done := make(chan answer, 1)
	go func() {
		var a answer
		a.code = e2eDo(t, h, "POST", "/api/runtimes/claude-code/run", map[string]any{"taskId": task.ID, "assigneeAgentId": agent.ID}, &a.res)
		done <- a
	}()

	// The run is live and its CLI is waiting at the gate.
	var environ, cmdline []byte
	for found := false; !found; time.Sleep(50 * time.Millisecond) {
		if ctx.Err() != nil {
			t.Fatalf("no claude child attached to %s; model calls %+v\n%s", base, rg.fake.Requests(), rg.logs.String())
		}
		if len(rg.fake.Requests()) >= 2 {
			environ, cmdline, found = childWithArg(base + "/mcp/tasks")
		}
	}
	install, _ := rg.b.Vault.Get(ctx, mcp.TokenSlot)
	runTok := envValue(environ, mcp.TokenEnv)
	if len(install) < 32 || len(runTok) < 32 || runTok == install {
		t.Fatalf("the child's %s is the install token (or none)", mcp.TokenEnv)
	}
	if bytes.Contains(environ, []byte(install)) || bytes.Contains(cmdline, []byte(install)) || bytes.Contains(cmdline, []byte(runTok)) {
		t.Fatal("the install token reached the child, or the run token its command line")
	}
	// The CLI's own sessions were opened with a run token, bound to the run.
	logs := rg.logs.String()
	if !strings.Contains(logs, `msg="MCP session opened" part=mcp server=tasks credential=run team=team-cc agent=`+agent.ID) ||
		strings.Contains(logs, "credential=install") {
		t.Fatalf("the CLI's sessions were not opened with its run token:\n%s", logs)
	}
	// And what it listed was its team's only.
	reqs := rg.fake.Requests()
	if !strings.Contains(reqs[1].Result, task.ID) || strings.Contains(reqs[1].Result, foreign.ID) {
		t.Fatalf("the CLI's list_tasks: %s", reqs[1].Result)
	}

	// The token with no binding on the URL: a session bound to the run.
	tasksURL := base + "/mcp/tasks"
	code, sid := testkit.MCPOpen(t, tasksURL, runTok)
	if code != http.StatusOK || sid == "" {
		t.Fatalf("the run token without a query: %d", code)
	}
	if _, got, _ := testkit.MCPCall(t, tasksURL, runTok, sid, "list_tasks", map[string]any{}); !strings.Contains(got, task.ID) || strings.Contains(got, foreign.ID) {
		t.Fatalf("list_tasks with the bare run token: %s", got)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_tasks", map[string]any{"teamId": "team-zz"}, "team-cc"},
		{"get_task", map[string]any{"taskId": foreign.ID}, "not found"},
		{"claim_task", map[string]any{"taskId": foreign.ID, "assigneeAgentId": agent.ID}, "not found"},
		{"claim_task", map[string]any{"taskId": task.ID, "assigneeAgentId": "someone-else"}, agent.ID},
		{"add_comment", map[string]any{"taskId": task.ID, "body": "as the system", "authorType": "system"}, "writes only as agent"},
	} {
		_, got, isErr := testkit.MCPCall(t, tasksURL, runTok, sid, c.tool, c.args)
		if !isErr || !strings.Contains(got, c.want) || strings.Contains(got, "Elsewhere") {
			t.Fatalf("%s %v with the run token: %s", c.tool, c.args, got)
		}
	}
	memURL := base + "/mcp/memory?" + rg.b.MCP.Signer().Query(mcp.Binding{TeamID: "team-zz"})
	if code, _ := testkit.MCPOpen(t, memURL, runTok); code != http.StatusUnauthorized {
		t.Fatalf("the run token with another team's signed binding: %d", code)
	}

	// The run ends: its token is refused, in its old session too.
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var a answer
	select {
	case a = <-done:
	case <-ctx.Done():
		t.Fatal("the run did not end")
	}
	if a.code != http.StatusOK || !a.res.OK || !strings.Contains(a.res.Summary, "gate-open") {
		t.Fatalf("run: %d %+v", a.code, a.res)
	}
	// (The run's answer may come a moment before its context ends.)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		code, _ := testkit.MCPOpen(t, tasksURL, runTok)
		if code == http.StatusUnauthorized {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ended run's token: %d", code)
		}
	}
	if code, _, _ := testkit.MCPCall(t, tasksURL, runTok, sid, "list_tasks", map[string]any{}); code != http.StatusUnauthorized {
		t.Fatalf("the ended run's token in its session: %d", code)
	}

	// The install token still attaches, unbound (it is what `clawboo mcp
	// config` prints: the vault's, as main's TestMCPConfigRotate checks).
	printed := install
	code, sid = testkit.MCPOpen(t, tasksURL, printed)
	if code != http.StatusOK {
		t.Fatalf("the install token: %d", code)
	}
	if _, got, _ := testkit.MCPCall(t, tasksURL, printed, sid, "list_tasks", map[string]any{}); !strings.Contains(got, task.ID) || !strings.Contains(got, foreign.ID) {
		t.Fatalf("list_tasks with the install token: %s", got)
	}
	// The run token is a secret like the others: not in events or logs.
	rg.noKey(t, ctx, a.res.RunID)
	rows, _ := rg.b.Store.ListEvents(ctx, a.res.RunID, 0, 10000)
	for _, r := range rows {
		if strings.Contains(string(r.Data), runTok) {
			t.Fatalf("the run token reached a stored event: %s", r.Data)
		}
	}
	if strings.Contains(rg.logs.String(), runTok) {
		t.Fatal("the run token reached the logs")
	}
}
