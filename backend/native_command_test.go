package backend

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/adapters/native"
	"github.com/clawboo/desktop/backend/approval"
	"github.com/clawboo/desktop/backend/config"
)

// TestRunCommandAsksThroughTheApprovalsQueue: the native adapter's Ask
// lands on the approvals queue as a "command" request carrying the
// command, folder, agent, team, task, run and the agent's reason, and a
// person's answer comes back as the adapter's outcome.
func TestRunCommandAsksThroughTheApprovalsQueue(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "PATH": "", config.EnvVault: "file"}
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(filepath.Join(home, ".clawboo"), getenv)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(context.Background(), Options{Config: cfg, Getenv: getenv, Environ: func() []string { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close(context.Background()) }()
	if b.Approvals == nil {
		t.Fatal("no approvals queue")
	}
	for _, c := range []struct {
		d    approval.Decision
		want native.AskOutcome
	}{{approval.Deny, native.AskDenied}, {approval.Approve, native.AskAllowed}} {
		type res struct {
			a   native.AskAnswer
			err error
		}
		done := make(chan res, 1)
		go func() {
			a, err := b.askCommand(context.Background(), native.AskRequest{
				Argv: []string{"/usr/bin/make", "test"}, Command: "/usr/bin/make test", Folder: "/w/task",
				AgentID: "boo", TeamID: "team", TaskID: "T1", RunID: "run-1", Why: "run the tests",
			})
			done <- res{a, err}
		}()
		var ps []approval.Request
		for deadline := time.Now().Add(5 * time.Second); len(ps) == 0; time.Sleep(5 * time.Millisecond) {
			if ps, err = b.Approvals.Pending(context.Background()); err != nil || time.Now().After(deadline) {
				t.Fatalf("no pending request: %v", err)
			}
		}
		p := ps[0]
		if p.Kind != approval.KindCommand || p.Command != "/usr/bin/make test" || p.Folder != "/w/task" || p.AgentID != "boo" ||
			p.TeamID != "team" || p.TaskID != "T1" || p.RunID != "run-1" || p.Reason != "run the tests" || p.Title != "Run make" {
			t.Fatalf("request %+v", p)
		}
		if p.ExpiresAt-p.CreatedAt != approval.DefaultTTL.Milliseconds() {
			t.Fatalf("ttl %d ms", p.ExpiresAt-p.CreatedAt)
		}
		if _, err := b.Approvals.Resolve(context.Background(), p.ID, c.d, "page", ""); err != nil {
			t.Fatal(err)
		}
		if r := <-done; r.err != nil || r.a.Outcome != c.want {
			t.Fatalf("%s: %+v", c.d, r)
		}
	}
}
