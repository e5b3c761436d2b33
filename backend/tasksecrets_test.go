package backend

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/agents"
	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
)

// TestTaskSecretsComeFromTheVaultByName: a person stores a secret in the
// vault and names it on a task. The task's setup script, its native agent's
// command and its verify command all see the value in their environment;
// the run's timeline, the setup and verify output, the database and every
// other file of the home show "[secret NAME]" or nothing, never the value.
// A task cannot name a secret the vault lacks, a variable the host owns or
// a provider key's.
func TestTaskSecretsComeFromTheVaultByName(t *testing.T) {
	const sentinel = "rk_live_TASKSECRET_SENTINEL_41c9"
	fake := fakeprovider.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	b := e2eBackend(t, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-e2e", "ANTHROPIC_BASE_URL": srv.URL})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	h := authed(b)

	repo := e2eRepo(t)
	// The scripts check the value by its digest: a command naming the
	// value would itself be a copy of it on disk.
	sum := sha256.Sum256([]byte(sentinel))
	check := `test "$(printf %s "$STRIPE_TEST_KEY" | sha256sum | cut -c1-64)" = ` + hex.EncodeToString(sum[:])
	setup := "#!/bin/sh\necho \"setup sees $STRIPE_TEST_KEY\"\n" + check + "\n"
	_ = os.MkdirAll(filepath.Join(repo, ".clawboo"), 0o755)
	if err := os.WriteFile(filepath.Join(repo, ".clawboo", "setup"), []byte(setup), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "setup"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}

	// Names only cross the API: the value goes in and never comes out.
	var put map[string]any
	if code := e2eDo(t, h, "PUT", "/api/secrets/STRIPE_TEST_KEY", map[string]any{"value": sentinel}, &put); code != http.StatusOK {
		t.Fatalf("put secret: %d %v", code, put)
	}
	var list struct{ Secrets []struct{ Name string } }
	if code := e2eDo(t, h, "GET", "/api/secrets", nil, &list); code != http.StatusOK || len(list.Secrets) != 1 || list.Secrets[0].Name != "STRIPE_TEST_KEY" {
		t.Fatalf("list: %d %+v", code, list)
	}
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"MISSING_ONE"}, "MISSING_ONE is not in the vault"},
		{[]string{"PATH"}, "PATH is a variable Clawboo sets"},
		{[]string{"GIT_CONFIG_GLOBAL"}, "variable Clawboo sets"},
		{[]string{"ANTHROPIC_API_KEY"}, "variable Clawboo sets"},
		{[]string{"rk_live_pasted"}, "environment variable name"},
	} {
		var e struct{ Error string }
		code := e2eDo(t, h, "POST", "/api/board", map[string]any{"title": "x", "repoPath": repo, "kind": "code", "secrets": c.names}, &e)
		if code != http.StatusBadRequest || !strings.Contains(e.Error, c.want) || strings.Contains(e.Error, "rk_live_pasted") {
			t.Fatalf("%v: %d %q, want %q", c.names, code, e.Error, c.want)
		}
	}

	name, rt := "Payments", "clawboo-native"
	cfg := `{"systemPrompt":"You test payments.","primaryProvider":"anthropic","primaryModel":"claude-haiku-4-5",` +
		`"envVar":"ANTHROPIC_API_KEY","tools":{"memory":false,"tools":false,"tasks":false,"teamchat":false,"shell":true},"maxTurns":10}`
	agent, err := b.Agents.Create(ctx, agents.Input{Name: &name, Runtime: &rt, Config: json.RawMessage(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	verify := check + ` && echo "verify sees $STRIPE_TEST_KEY"`
	var created struct{ Task board.Task }
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Charge a test card", "repoPath": repo, "kind": "code",
		"verifyCommand": verify, "secrets": []string{"STRIPE_TEST_KEY"},
	}, &created); code != http.StatusCreated {
		t.Fatalf("create: %d %+v", code, created)
	}
	if strings.Join(created.Task.Secrets, ",") != "STRIPE_TEST_KEY" {
		t.Fatalf("task secrets %v", created.Task.Secrets)
	}
	printenv, err := exec.LookPath("printenv")
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"argv": []string{printenv, "STRIPE_TEST_KEY"}, "why": "check the key"})
	write, _ := json.Marshal(map[string]string{"path": "charge.txt", "content": "charged\n"})
	fake.Push("/v1/messages", fakeprovider.Tools(fakeprovider.ToolCall{ID: "toolu_w", Name: "write_file", Args: string(write)}),
		fakeprovider.Tools(fakeprovider.ToolCall{ID: "toolu_env", Name: "run_command", Args: string(args)}),
		fakeprovider.Text("the key is "+sentinel))
	go approveAll(ctx, b)

	var res taskRunResult
	if code := e2eDo(t, h, "POST", "/api/runtimes/clawboo-native/run",
		map[string]any{"taskId": created.Task.ID, "assigneeAgentId": agent.ID}, &res); code != http.StatusOK {
		t.Fatalf("run: %d %+v", code, res)
	}
	if res.Task == nil || res.Task.Verification == nil || !res.Task.Verification.Passed {
		t.Fatalf("verify with the secret did not pass: %+v %s", res.Task, res.Error)
	}
	if out := res.Task.Verification.OutputTail; !strings.Contains(out, "verify sees [secret STRIPE_TEST_KEY]") {
		t.Fatalf("verify output %q", out)
	}
	// The command saw the value (the model got it back, as the agent
	// would), but the run's record shows the name.
	reqs := fake.RequestsTo("/v1/messages")
	if len(reqs) < 3 || !bytes.Contains(reqs[2].Body, []byte(sentinel)) {
		t.Fatal("the agent's command did not see the secret")
	}
	rows, err := b.Store.ListEvents(ctx, res.RunID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, r := range rows {
		all.WriteString(string(r.Data))
	}
	for _, want := range []string{"setup sees [secret STRIPE_TEST_KEY]", `exit code 0.\n[secret STRIPE_TEST_KEY]`, "the key is [secret STRIPE_TEST_KEY]"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the run's events lack %q:\n%s", want, all.String())
		}
	}
	var run struct{ Run struct{ Summary string } }
	e2eDo(t, h, "GET", "/api/runs/"+res.RunID, nil, &run)
	if strings.Contains(run.Run.Summary, sentinel) {
		t.Fatal("the run's summary holds the value")
	}
	// A secret deleted after the task named it fails the next run before
	// the runtime starts, saying which one.
	var again struct{ Task board.Task }
	if code := e2eDo(t, h, "POST", "/api/board", map[string]any{
		"title": "Refund", "repoPath": repo, "kind": "code",
		"secrets": []string{"STRIPE_TEST_KEY"},
	}, &again); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	if code := e2eDo(t, h, "DELETE", "/api/secrets/STRIPE_TEST_KEY", nil, nil); code != http.StatusNoContent {
		t.Fatalf("delete: %d", code)
	}
	var failed taskRunResult
	e2eDo(t, h, "POST", "/api/runtimes/clawboo-native/run", map[string]any{"taskId": again.Task.ID, "assigneeAgentId": agent.ID}, &failed)
	if !strings.Contains(failed.Error, "STRIPE_TEST_KEY is not in the vault") || len(fake.RequestsTo("/v1/messages")) != 3 {
		t.Fatalf("a run with a missing secret: %+v (%d model calls)", failed, len(fake.RequestsTo("/v1/messages")))
	}
	// Nothing on disk under the home holds the value (the vault keeps it
	// encrypted); the database is checkpointed first so the WAL counts.
	if err := b.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	scanHomeFor(t, filepath.Dir(b.Config.Home), sentinel)
}

// approveAll approves every command request until ctx ends.
func approveAll(ctx context.Context, b *Backend) {
	for ctx.Err() == nil {
		ps, _ := b.Approvals.Pending(ctx)
		for _, p := range ps {
			_, _ = b.Approvals.Resolve(ctx, p.ID, approval.Approve, "page", "")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// scanHomeFor fails when any file under home holds value (the file vault
// keeps secrets sealed). Close the backend first to count the database's
// WAL as well.
func scanHomeFor(t *testing.T, home, value string) {
	t.Helper()
	_ = filepath.Walk(home, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), value) {
			t.Errorf("%s holds the secret value", path)
		}
		return nil
	})
}
