package api

import (
	"net/http"
	"regexp"
	"slices"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/proc"
)

// Bounds of the environment a desktop sends with a run.
const (
	maxRunEnv      = 32
	maxRunEnvValue = 64 << 10
)

var runEnvName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// checkRunEnv refuses a run's env unless this is a host's server, and
// refuses names that would change how a child starts (PATH, LD_PRELOAD,
// CLAWBOO_*, …) other than a provider's key.
func (a *API) checkRunEnv(w http.ResponseWriter, env map[string]string) bool {
	if len(env) == 0 {
		return true
	}
	if !a.opts.RunEnv {
		writeError(w, http.StatusBadRequest, "env is taken only by a host's server (clawboo host)")
		return false
	}
	if len(env) > maxRunEnv {
		writeError(w, http.StatusBadRequest, "env holds at most %d variables", maxRunEnv)
		return false
	}
	for k, v := range env {
		key := slices.ContainsFunc(config.Providers, func(p config.Provider) bool { return p.EnvVar != "" && p.EnvVar == k })
		if !runEnvName.MatchString(k) || (proc.HostOwned(k) && !key) || slices.Contains(proc.BaseEnv(), k) {
			writeError(w, http.StatusBadRequest, "env may not set %s", truncate(k, 64))
			return false
		}
		if len(v) > maxRunEnvValue {
			writeError(w, http.StatusBadRequest, "env's %s is over %d bytes", k, maxRunEnvValue)
			return false
		}
	}
	return true
}

// SetRunEnv makes this API a host's server's (tests of one process).
func (a *API) SetRunEnv(on bool) { a.opts.RunEnv = on }
