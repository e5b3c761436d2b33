package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/fakes/fakeanthropic"
	"github.com/clawboo/desktop/backend/hosts"
	"github.com/clawboo/desktop/backend/mcp"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

// asHostUser runs a shell script as the test host's user.
func asHostUser(t *testing.T, srv *testkit.SSHD, script string) string {
	t.Helper()
	out, err := exec.Command("su", "-s", "/bin/sh", "-c", script, srv.User).CombinedOutput()
	if err != nil {
		t.Fatalf("as %s: %v\n%s", srv.User, err, out)
	}
	return string(out)
}

// TestClaudeOnAHostReachesHomeThroughTheReverseSocket: the real claude CLI,
// installed for the host's user (its own ~/.claude/settings.json names the
// fake Anthropic), runs a board task placed on the host. In the host's
// worktree it writes a file with Bash, and it claims a subtask through
// this computer's Tasks server: the MCP call goes through the socket the
// desktop's ssh forwards into the host's Clawboo home, with the run's own
// token. The diff comes back by git and merges into the local repository;
// the key reaches the model and nothing on the host's disk.
func TestClaudeOnAHostReachesHomeThroughTheReverseSocket(t *testing.T) {
	claude := testCLIBin(t, "claude")
	srv := testkit.StartSSHD(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	real, err := filepath.EvalSymlinks(claude)
	if err != nil {
		t.Fatal(err)
	}
	fake := fakeanthropic.New()
	fsrv := httptest.NewServer(fake)
	t.Cleanup(fsrv.Close)
	asHostUser(t, srv, fmt.Sprintf(`set -e; mkdir -p ~/.local/bin ~/.claude; ln -sf '%s' ~/.local/bin/claude
cat > ~/.claude/settings.json <<'EOF'
{"env": {"ANTHROPIC_BASE_URL": "%s", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
 "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1", "DISABLE_BUG_COMMAND": "1", "CLAUDE_CODE_MAX_RETRIES": "0"}}
EOF`, real, fsrv.URL))

	b := hostDesktop(t, srv.Config)
	serveForTest(t, b)
	if err := b.Vault.Set(ctx, claudeKeyName, claudeTestKey); err != nil {
		t.Fatal(err)
	}
	h := authed(b)
	hostID := addHost(t, b, srv.Alias, "Build box")
	name, rt := "Claude afar", "claude-code"
	agent, err := b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt})
	if err != nil {
		t.Fatal(err)
	}
	if code := e2eDo(t, h, "PATCH", "/api/agents/"+agent.ID, map[string]any{"hostId": hostID}, nil); code != http.StatusOK {
		t.Fatalf("place the agent: %d", code)
	}
	repo := e2eRepo(t)
	mustTeam(t, b, "team-afar")
	var created struct{ Task board.Task }
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Write the far note", "teamId": "team-afar", "repoPath": repo, "kind": "code", "status": "todo",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create task: %d", code)
	}
	parent := created.Task
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Follow up", "teamId": "team-afar", "parentTaskId": parent.ID, "status": "todo",
	}, &created); code != http.StatusCreated {
		t.Fatalf("create subtask: %d", code)
	}
	child := created.Task
	fake.SetRules(fakeanthropic.Rule{
		Match: "Write the far note", Tool: "^Bash$", TextBefore: "Writing the note.",
		Input: map[string]any{"command": "mkdir -p notes && printf 'written by claude on the host\\n' > notes/far.md && pwd", "description": "write the note"},
		Then: &fakeanthropic.Rule{
			Tool:      "^mcp__clawboo-tasks__claim_task$",
			Input:     map[string]any{"taskId": child.ID, "assigneeAgentId": agent.ID},
			AfterTool: "done: {result}",
		},
	})

	var res taskRunResult
	code := e2eDo(t, h, "POST", "/api/runtimes/claude-code/run", map[string]any{"taskId": parent.ID, "assigneeAgentId": agent.ID}, &res)
	reqs := fake.Requests()
	if code != http.StatusOK || !res.OK || !strings.HasPrefix(res.Summary, "done: ") {
		t.Fatalf("run: %d %+v\nmodel calls: %+v", code, res, reqs)
	}
	if len(reqs) != 3 {
		t.Fatalf("the model saw %d requests", len(reqs))
	}
	for i, r := range reqs {
		if r.APIKey != claudeTestKey {
			t.Fatalf("request %d carried key %q, not this computer's vault's", i, r.APIKey)
		}
	}
	// Bash ran in the host's worktree, under the host user's home.
	if !strings.Contains(reqs[1].Result, srv.UserHome+"/.clawboo-host/") {
		t.Fatalf("Bash ran in %q, not in the host's worktree", reqs[1].Result)
	}
	// The MCP call reached this computer's Tasks server, bound to the agent.
	if !strings.Contains(reqs[2].Result, agent.ID) || strings.Contains(reqs[2].Result, "error") {
		t.Fatalf("claim_task said %q", reqs[2].Result)
	}
	wantClaimedBy(t, h, child.ID, agent.ID)
	run, err := b.Store.GetRun(ctx, res.RunID)
	if err != nil || run.HostID == nil || *run.HostID != hostID {
		t.Fatalf("the run's host: %+v %v", run.HostID, err)
	}
	// The work came back by git: the diff here, then the merge.
	wantReviewDiff(t, h, res, parent.ID, "notes/far.md", "written by claude on the host")
	if code := e2eDo(t, h, "POST", "/api/board/"+parent.ID+"/merge", map[string]any{}, nil); code != http.StatusOK {
		t.Fatalf("merge: %d", code)
	}
	note, err := exec.Command("git", "-C", repo, "show", "main:notes/far.md").Output()
	if err != nil || strings.TrimSpace(string(note)) != "written by claude on the host" {
		t.Fatalf("the local repository's main: %q %v", note, err)
	}
	// Nothing secret is on the host's disk, and the socket that reaches
	// this computer is the host user's only.
	token, _ := b.Vault.Get(ctx, mcp.TokenSlot)
	if out, _ := exec.Command("grep", "-rlF", claudeTestKey, srv.UserHome).Output(); len(out) > 0 {
		t.Fatalf("the key is on the host's disk: %s", out)
	}
	if out, _ := exec.Command("grep", "-rlF", token, srv.UserHome).Output(); len(out) > 0 {
		t.Fatalf("this computer's MCP install token is on the host's disk: %s", out)
	}
	socks := asHostUser(t, srv, `ls -l ~/.clawboo-host/ | grep 'mcp-.*\.sock' || true`)
	if !strings.HasPrefix(strings.TrimSpace(socks), "srw-------") {
		t.Fatalf("the reverse-forwarded socket is not the host user's only: %q", socks)
	}
}

// pendingHere waits for the one pending approval of runID in this
// computer's queue.
func pendingHere(t *testing.T, b *Backend, runID string) approval.Request {
	t.Helper()
	var got approval.Request
	testkit.EventuallySays(t, 60*time.Second, "the host's question asked here", func() (bool, string) {
		ps, err := b.Approvals.Pending(context.Background())
		for _, p := range ps {
			if p.RunID == runID {
				got = p
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d pending (%v)", len(ps), err)
	})
	return got
}

// TestAHostsQuestionIsAskedHere: a command a run on a host asks a person
// about is asked in this computer's queue (the page, the tray, the popup),
// naming the host; the answer given here is the one the run there gets,
// and an answer given on the host itself withdraws the copy here.
func TestAHostsQuestionIsAskedHere(t *testing.T) {
	r := newHostRig(t)
	res := r.run(t, r.task(t, "Deploy", "!ask make deploy\n!ok after"), false)
	runID := res["runId"].(string)
	p := pendingHere(t, r.b, runID)
	if p.Kind != approval.KindCommand || p.Command != "make deploy" || !strings.Contains(p.Title, "on Build box") ||
		!strings.HasPrefix(p.Folder, "Build box: "+r.srv.UserHome) || p.AgentID != r.agent || p.TaskID == "" {
		t.Fatalf("the question here: %+v", p)
	}
	if code := e2eDo(t, authed(r.b), "POST", "/api/approvals/"+p.ID+"/resolve", map[string]any{"decision": "allow"}, nil); code != http.StatusOK {
		t.Fatalf("allow: %d", code)
	}
	run := r.waitRun(t, runID)
	if run.Status != store.RunSucceeded {
		t.Fatalf("the run: %s %q", run.Status, run.Error)
	}
	r.waitEvent(t, runID, "allowed: make deploy")

	// Denied here: the run there is told no.
	res = r.run(t, r.task(t, "Drop tables", "!ask psql -c 'drop table users'\n!ok after"), false)
	runID = res["runId"].(string)
	p = pendingHere(t, r.b, runID)
	if code := e2eDo(t, authed(r.b), "POST", "/api/approvals/"+p.ID+"/resolve", map[string]any{"decision": "deny"}, nil); code != http.StatusOK {
		t.Fatalf("deny: %d", code)
	}
	r.waitRun(t, runID)
	r.waitEvent(t, runID, "not allowed: psql")

	// Answered on the host itself: the copy here is withdrawn.
	res = r.run(t, r.task(t, "Answered there", "!ask make it\n!ok after"), false)
	runID = res["runId"].(string)
	here := pendingHere(t, r.b, runID)
	conn, err := r.b.Hosts.Connect(context.Background(), r.hostID)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "http://localhost/api/approvals", nil)
	hres, err := conn.Remote.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var there struct{ Approvals []approval.Request }
	err = json.NewDecoder(hres.Body).Decode(&there)
	hres.Body.Close()
	if err != nil || len(there.Approvals) != 1 {
		t.Fatalf("the host's queue: %+v %v", there, err)
	}
	req, _ = http.NewRequest("POST", "http://localhost/api/approvals/"+there.Approvals[0].ID+"/resolve", strings.NewReader(`{"decision":"allow"}`))
	req.Header.Set("Content-Type", "application/json")
	if hres, err = conn.Remote.Do(req); err != nil || hres.StatusCode != http.StatusOK {
		t.Fatalf("answer on the host: %v %v", hres, err)
	}
	hres.Body.Close()
	r.waitRun(t, runID)
	r.waitEvent(t, runID, "allowed: make it")
	testkit.EventuallySays(t, 30*time.Second, "the copy here withdrawn", func() (bool, string) {
		got, err := r.b.Approvals.Get(context.Background(), here.ID)
		return err == nil && got.Status != approval.Pending, string(got.Status)
	})
}

// TestARuntimeIsInstalledOnTheHost: a runtime the host lacks is installed
// there through the host's own install stream (pipx, as that user's own:
// here a stand-in pipx in the user's ~/.local/bin, which the host's
// Clawboo finds though ssh's PATH lacks it), its events streamed here;
// then the host lists the runtime. An install of a runtime the host's
// server does not know is refused in its words.
func TestARuntimeIsInstalledOnTheHost(t *testing.T) {
	r := newHostRig(t)
	asHostUser(t, r.srv, `set -e; mkdir -p ~/.local/bin; cat > ~/.local/bin/pipx <<'END'
#!/bin/sh
echo "pipx $*"
printf '#!/bin/sh\necho hermes 0.9\n' > "$HOME/.local/bin/hermes"; chmod +x "$HOME/.local/bin/hermes"
END
chmod +x ~/.local/bin/pipx`)
	if h := r.waitHost(t, hosts.Ready); slices.Contains(h.Runtimes, "hermes") {
		t.Fatalf("hermes is there before the install: %v", h.Runtimes)
	}
	req := httptest.NewRequest("POST", "http://127.0.0.1/api/hosts/"+r.hostID+"/runtimes/hermes/install", nil)
	rec := httptest.NewRecorder()
	authed(r.b).ServeHTTP(rec, req)
	body := rec.Body.String()
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") ||
		!strings.Contains(body, "pipx install hermes-agent") || !strings.Contains(body, `"type":"complete"`) || !strings.Contains(body, `"success":true`) {
		t.Fatalf("the install stream: %d %q", rec.Code, body)
	}
	testkit.EventuallySays(t, 60*time.Second, "the host to list hermes", func() (bool, string) {
		h, err := r.b.Hosts.Get(context.Background(), r.hostID)
		return err == nil && h.State == hosts.Ready && slices.Contains(h.Runtimes, "hermes"), fmt.Sprintf("%s %v", h.State, h.Runtimes)
	})
	var e struct{ Error string }
	if code := e2eDo(t, authed(r.b), "POST", "/api/hosts/"+r.hostID+"/runtimes/no-such-runtime/install", nil, &e); code != http.StatusNotFound || !strings.Contains(e.Error, "Build box: unknown runtime") {
		t.Fatalf("an unknown runtime: %d %q", code, e.Error)
	}
}

// TestVerifyRunsOnTheHostOnly: a task's verify command runs on the host,
// in the host's worktree, and its result is the task's here; it does not
// run again on this computer.
func TestVerifyRunsOnTheHostOnly(t *testing.T) {
	r := newHostRig(t)
	var out struct {
		Task struct{ ID string } `json:"task"`
	}
	if code := e2eDo(t, authed(r.b), "POST", "/api/board", map[string]any{
		"title": "Verified there", "description": "!write V.md checked\n!ok wrote it", "kind": "code", "repoPath": r.repo,
		"assigneeAgentId": r.agent, "verifyCommand": `test -f V.md && echo "verified in $PWD as $(id -un)"`,
	}, &out); code != http.StatusCreated {
		t.Fatalf("task: %d", code)
	}
	res := r.run(t, out.Task.ID, true)
	if res["status"] != "succeeded" {
		t.Fatalf("the run: %v", res)
	}
	var got struct {
		Task struct {
			Status       string
			Verification *board.Verification `json:"verification"`
		} `json:"task"`
	}
	e2eDo(t, authed(r.b), "GET", "/api/board/"+out.Task.ID, nil, &got)
	v := got.Task.Verification
	if got.Task.Status != "in_review" || v == nil || !v.Passed || v.RunID != res["runId"] ||
		!strings.Contains(v.OutputTail, "verified in "+r.srv.UserHome+"/.clawboo-host/") || !strings.Contains(v.OutputTail, " as "+r.srv.User) {
		t.Fatalf("the task's verification: %s %+v", got.Task.Status, v)
	}
}

// TestATeamRunsItsMembersOnItsHost: a team's "Runs on" sends the work of
// its members that have no placement of their own to its host; the same
// agent's work outside the team stays here; the host is not removed while
// the team runs there by default, and an unknown host is refused.
func TestATeamRunsItsMembersOnItsHost(t *testing.T) {
	r := newHostRig(t)
	h := authed(r.b)
	local := placedAgent(t, r.b, "Homebody", "")
	var team struct {
		Team struct {
			ID      string
			HostID  *string `json:"hostId"`
			Members []struct {
				AgentID string  `json:"agentId"`
				HostID  *string `json:"hostId"`
			}
		}
	}
	if code := e2eDo(t, h, "POST", "/api/teams", map[string]any{"name": "Far crew", "leaderAgentId": local}, &team); code != http.StatusCreated {
		t.Fatalf("team: %d", code)
	}
	teamID := team.Team.ID
	var e struct{ Error string }
	if code := e2eDo(t, h, "PATCH", "/api/teams/"+teamID, map[string]any{"hostId": "01NOSUCHHOST0000000000000"}, &e); code != http.StatusBadRequest || !strings.Contains(e.Error, "unknown host") {
		t.Fatalf("an unknown host: %d %q", code, e.Error)
	}
	if code := e2eDo(t, h, "PATCH", "/api/teams/"+teamID, map[string]any{"hostId": r.hostID}, &team); code != http.StatusOK ||
		team.Team.HostID == nil || *team.Team.HostID != r.hostID || team.Team.Members[0].HostID == nil || *team.Team.Members[0].HostID != r.hostID {
		t.Fatalf("the team's host: %d %+v", code, team.Team)
	}
	runOf := func(body map[string]any) (string, *string) {
		t.Helper()
		var out struct {
			Task struct{ ID string } `json:"task"`
		}
		body["kind"], body["repoPath"], body["assigneeAgentId"] = "code", r.repo, local
		if code := e2eDo(t, h, "POST", "/api/board", body, &out); code != http.StatusCreated {
			t.Fatalf("task: %d", code)
		}
		res := r.run(t, out.Task.ID, true)
		if res["status"] != "succeeded" {
			t.Fatalf("the run: %v", res)
		}
		run, err := r.b.Store.GetRun(context.Background(), res["runId"].(string))
		if err != nil {
			t.Fatal(err)
		}
		return out.Task.ID, run.HostID
	}
	if _, host := runOf(map[string]any{"title": "Team work", "teamId": teamID, "description": "!write T.md team\n!ok done"}); host == nil || *host != r.hostID {
		t.Fatalf("the team's task ran on %v, not its host", host)
	}
	if _, host := runOf(map[string]any{"title": "Own work", "description": "!write O.md own\n!ok done"}); host != nil {
		t.Fatalf("the agent's own task went to %v, not this computer", *host)
	}
	// The placed agent brought back here, the team alone still runs there.
	if code := e2eDo(t, h, "PATCH", "/api/agents/"+r.agent, map[string]any{"hostId": nil}, nil); code != http.StatusOK {
		t.Fatalf("bring back: %d", code)
	}
	if code := e2eDo(t, h, "DELETE", "/api/hosts/"+r.hostID, nil, &e); code != http.StatusConflict || !strings.Contains(e.Error, "the team Far crew runs on this host") {
		t.Fatalf("removing the team's host: %d %q", code, e.Error)
	}
	if code := e2eDo(t, h, "PATCH", "/api/teams/"+teamID, map[string]any{"hostId": nil}, &team); code != http.StatusOK || team.Team.HostID != nil || team.Team.Members[0].HostID != nil {
		t.Fatalf("the team back here: %d %+v", code, team.Team)
	}
}
