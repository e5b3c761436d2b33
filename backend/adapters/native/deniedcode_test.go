package native

import (
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/executor/executortest"
)

// A call whose arguments do not fit the tool is reported as
// invalid_arguments, not as a policy denial; a denylisted command is a
// policy denial.
func TestRefusedCallErrorCodes(t *testing.T) {
	skipWindows(t)
	for _, c := range []struct{ name, input, code string }{
		{"argv not an array", `{"argv":"ls -la"}`, "invalid_arguments"},
		{"relative path", argvJSON("./tool"), "invalid_arguments"},
		{"denylisted shell", argvJSON("sh", "-c", "ls"), "policy_denied"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := shellEnv(t, &asker{}, []string{c.input}, nil)
			evs := executortest.CollectWithin(t, 20*time.Second, e.start(executor.StartRequest{Message: "go", WorkDir: t.TempDir()}))
			errs := executortest.OfKind(evs, executor.KindError)
			if len(errs) != 1 || errs[0].Code != c.code || errs[0].Fatal {
				t.Fatalf("error events %+v, want one %q", errs, c.code)
			}
		})
	}
	if deniedErrorCode("invalid_args") != "invalid_arguments" || deniedErrorCode("read_only") != "policy_denied" {
		t.Fatal("MCP denial codes mislabelled")
	}
}
