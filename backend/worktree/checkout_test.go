package worktree

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestVerifyInTheCheckoutReadsTheGateFromHEAD(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t)
	repo := newRepo(t, map[string]string{"README.md": "hi\n", ".clawboo/verify": "# the gate\ntest -f README.md\n"})
	write(t, filepath.Join(repo, ".clawboo", "verify"), "true\n") // the agent's edit: not the gate
	cmd := m.CheckoutVerifyCommand(ctxT(t), repo)
	if cmd != "test -f README.md" {
		t.Fatalf("%q", cmd)
	}
	v := m.VerifyCheckout(ctxT(t), repo, "T1", cmd+" && env", 30*time.Second)
	if !v.Passed || !strings.Contains(v.OutputTail, "CLAWBOO_TASK_ID=T1") || strings.Contains(v.OutputTail, "sentinel") {
		t.Fatalf("%+v", v)
	}
	if v := m.VerifyCheckout(ctxT(t), repo, "T1", "", time.Second); v.Passed {
		t.Fatal("an empty gate passed")
	}
}
