package native

import (
	"os"
	"strings"

	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/redact"
)

// commandEnv is the child's environment: the allowlist, plus the run's own
// variables (a task's ports, CLAWBOO_*, and its vault secrets, which may
// not take a name the host owns).
func commandEnv(run map[string]string) []string {
	extra := map[string]string{}
	for k, v := range run {
		if strings.HasPrefix(k, "CLAWBOO_") || !proc.HostOwned(k) {
			extra[k] = v
		}
	}
	return proc.AllowEnv(os.Environ(), proc.BaseEnv(), nil, extra)
}

// runSecrets hides the run's own variables that are not the host's (a
// task's vault secrets) in what the adapter stores.
func runSecrets(run map[string]string) *redact.Hider {
	secrets := map[string]string{}
	for k, v := range run {
		if !strings.HasPrefix(k, "CLAWBOO_") && !proc.HostOwned(k) {
			secrets[k] = v
		}
	}
	return redact.Values(secrets)
}
