package proc

import (
	"sort"
	"strings"
)

// BaseEnv is what every child gets from the server's environment: enough to
// find programs, use the user's locale and home, and reach the network
// through the user's proxy. Nothing that could be a credential.
var BaseEnv = []string{
	"PATH", "HOME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "LOGNAME", "TERM", "USER",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
}

// InstallerEnv adds what package managers read for their own configuration
// (registry, prefix, CA bundle, Python user folders).
var InstallerEnv = []string{
	"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "PYTHONUSERBASE", "VIRTUAL_ENV",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_BIN_HOME",
}

// InstallerPrefixes are configuration families passed through whole.
var InstallerPrefixes = []string{"npm_config_", "NPM_CONFIG_", "PIPX_", "PIP_"}

// secretish refuses names that look like credentials even inside an allowed
// prefix family (npm_config__authToken, PIP_INDEX_URL with a password is a
// URL and passes; a *_TOKEN never does).
func secretish(name string) bool {
	u := strings.ToUpper(name)
	for _, s := range []string{"TOKEN", "SECRET", "PASSWORD", "API_KEY", "APIKEY", "AUTH"} {
		if strings.Contains(u, s) {
			return true
		}
	}
	return false
}

// AllowEnv builds a child environment from environ ("K=V" entries, as
// os.Environ returns) keeping only the names in allow and the families in
// prefixes, then adding extra on top. The server's ambient environment is
// never passed whole: a child that is not a runtime must not see provider
// keys.
func AllowEnv(environ []string, allow []string, prefixes []string, extra map[string]string) []string {
	keep := map[string]bool{}
	for _, a := range allow {
		keep[a] = true
	}
	out := make([]string, 0, len(allow)+len(extra))
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if _, over := extra[k]; over {
			continue
		}
		pass := keep[k]
		if !pass {
			for _, p := range prefixes {
				if strings.HasPrefix(k, p) && !secretish(k) {
					pass = true
					break
				}
			}
		}
		if pass {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+extra[k])
	}
	return out
}
