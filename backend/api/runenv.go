package api

import (
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
)

// Bounds of the environment a desktop sends with a run.
const (
	maxRunEnv      = 32
	maxRunEnvValue = 64 << 10
)

var (
	runEnvName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
	// runMCPSocket is the reverse-forwarded socket's name in the host's
	// home (hosts.SSH.StartRemote names it).
	runMCPSocket = regexp.MustCompile(`^mcp-[0-9a-f]{12}\.sock$`)
)

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

// checkRunMCP refuses a run's MCP attachment unless this is a host's
// server, and one whose socket is not a reverse forward's in this host's
// home or whose token or paths are not of the shape a desktop sends.
func (a *API) checkRunMCP(w http.ResponseWriter, m *executor.CarriedMCP) bool {
	if m == nil {
		return true
	}
	if !a.opts.RunEnv {
		writeError(w, http.StatusBadRequest, "mcp is taken only by a host's server (clawboo host)")
		return false
	}
	sock := m.Socket
	if !filepath.IsAbs(sock) || filepath.Clean(sock) != sock || !runMCPSocket.MatchString(filepath.Base(sock)) {
		writeError(w, http.StatusBadRequest, "mcp.socket must be a reverse forward's socket (…/mcp-<12 hex>.sock)")
		return false
	}
	if len(m.Token) < 16 || len(m.Token) > 256 || !printableASCII(m.Token) {
		writeError(w, http.StatusBadRequest, "mcp.token is not a run token")
		return false
	}
	if len(m.Paths) == 0 || len(m.Paths) > 16 {
		writeError(w, http.StatusBadRequest, "mcp.paths must name the servers")
		return false
	}
	for k, v := range m.Paths {
		if len(k) > 64 || len(v) > 2048 || !strings.HasPrefix(v, "/mcp/") || !printableASCII(v) {
			writeError(w, http.StatusBadRequest, "mcp.paths holds a path that is not a server's")
			return false
		}
	}
	return true
}

// printableASCII says s is visible ASCII only (no space or control).
func printableASCII(s string) bool {
	for i := range len(s) {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// SetRunEnv makes this API a host's server's (tests of one process).
func (a *API) SetRunEnv(on bool) { a.opts.RunEnv = on }
