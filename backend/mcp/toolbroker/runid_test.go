package toolbroker

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawboo/desktop/backend/mcp/internal/toolcall"
)

// An approval asked on behalf of a session bound to a run names that run,
// so exactly one run shows the card; a session that names no run (an
// install-token client, OpenClaw) asks with no run id, and the agent is
// the only match left.
func TestApprovalRequestCarriesTheSessionsRun(t *testing.T) {
	f := newToolsFixture(t)
	for _, c := range []struct {
		bind toolcall.Binding
		want string
	}{
		{toolcall.Binding{AgentID: "alice", RunID: "01RUNALICE"}, "01RUNALICE"},
		{toolcall.Binding{AgentID: "alice"}, ""},
	} {
		junk := filepath.Join(f.home, "junk")
		if err := os.WriteFile(junk, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		f.appr.mu.Lock()
		f.appr.answer, f.appr.asked = answerWith(ApprovalDenied), nil
		f.appr.mu.Unlock()
		s := f.session(t, c.bind)
		res, err := s.CallTool(context.Background(), "delete_path", map[string]any{"path": junk})
		if err != nil || deniedCode(res) != "approval_denied" {
			t.Fatalf("%+v %v", res, err)
		}
		reqs := f.appr.requests()
		if len(reqs) != 1 || reqs[0].RunID != c.want || reqs[0].AgentID != "alice" {
			t.Fatalf("%+v asked %+v", c.bind, reqs)
		}
	}
}
