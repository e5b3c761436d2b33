package proc

import (
	"slices"
	"sort"
	"strings"
)

// The names of the server's environment that children may see are written
// here once, as functions that hand out a fresh copy: a caller may append
// to what it gets, and nothing can change the lists for everyone else.

// BaseEnv is what every child gets from the server's environment: enough to
// find programs, use the user's locale and home, and reach the network
// through the user's proxy. Nothing that could be a credential.
func BaseEnv() []string {
	return []string{
		"PATH", "HOME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "LOGNAME", "TERM", "USER",
		"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
	}
}

// TLSEnv is where programs find the CA certificates the user trusts (Node,
// OpenSSL, Python's requests): a child reaching the network through a
// company proxy needs them.
func TLSEnv() []string {
	return []string{"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE"}
}

// XDGEnv is the user's XDG base folders (configuration, data, cache, the
// runtime folder where the session bus and ssh agents live).
func XDGEnv() []string {
	return []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"}
}

// PythonEnv is where a pip or pipx install of a Python program finds itself.
func PythonEnv() []string { return []string{"PYTHONUSERBASE", "VIRTUAL_ENV"} }

// WindowsEnv is what a program on Windows also needs to start (BaseEnv is
// the Unix set).
func WindowsEnv() []string {
	return []string{
		"SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "APPDATA", "LOCALAPPDATA",
		"USERPROFILE", "TEMP", "TMP", "PROGRAMDATA", "PROGRAMFILES",
	}
}

// InstallerEnv adds what package managers read for their own configuration
// (CA bundle, Python user folders, the XDG folders and XDG_BIN_HOME).
func InstallerEnv() []string {
	return slices.Concat(TLSEnv(), PythonEnv(), XDGEnv(), []string{"XDG_BIN_HOME"})
}

// InstallerPrefixes are configuration families passed through whole (less
// any name IsCredentialName refuses).
func InstallerPrefixes() []string { return []string{"npm_config_", "NPM_CONFIG_", "PIPX_", "PIP_"} }

// IsCredentialName reports a variable name that looks like it holds a
// credential (…KEY, …TOKEN, …SECRET, …PASSWORD, …AUTH…, any case): such a
// name never passes inside an allowed prefix family (npm_config__authToken),
// and its value is hidden where a child's environment is shown. The one
// rule for what counts as a credential's name.
func IsCredentialName(name string) bool {
	u := strings.ToUpper(name)
	for _, s := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "AUTH"} {
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
				if strings.HasPrefix(k, p) && !IsCredentialName(k) {
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

// hostOwned are variables a child's environment takes from the host (the
// allowlists above) or that change how a shell, a loader or an interpreter
// starts; a task's own variables (its secrets) may not take these names.
var hostOwned = map[string]bool{
	"PWD": true, "OLDPWD": true, "IFS": true, "ENV": true, "BASH_ENV": true, "CDPATH": true, "PS4": true,
	"SHELLOPTS": true, "BASHOPTS": true, "TEMP": true, "TMP": true, "CI": true, "HOSTNAME": true,
	"NODE_OPTIONS": true, "NODE_PATH": true, "PYTHONPATH": true, "PYTHONSTARTUP": true, "PYTHONHOME": true,
	"PERL5LIB": true, "PERL5OPT": true, "PERLLIB": true, "RUBYOPT": true, "RUBYLIB": true, "JAVA_TOOL_OPTIONS": true,
	"GOFLAGS": true, "CARGO_HOME": true, "RUSTC_WRAPPER": true,
	// Names that make a library or a tool load, run or trust something else
	// (issue 26 §2.5b): the C library's loaders, OpenSSL's config, make's
	// flags, a shell's prompt hook, the editor, pager and browser a tool
	// starts, the compilers a build uses, curl's and wget's config files.
	"GCONV_PATH": true, "GLIBC_TUNABLES": true, "NLSPATH": true, "LOCPATH": true, "HOSTALIASES": true, "RESOLV_HOST_CONF": true,
	"OPENSSL_CONF": true, "OPENSSL_ENGINES": true, "OPENSSL_MODULES": true, "SSLKEYLOGFILE": true,
	"MAKEFLAGS": true, "MFLAGS": true, "MAKELEVEL": true, "MAKEFILES": true, "GNUMAKEFLAGS": true,
	"PROMPT_COMMAND": true, "PS1": true, "PS2": true, "PS3": true, "ZDOTDIR": true, "INPUTRC": true, "HISTFILE": true, "TERMINFO": true,
	"EDITOR": true, "VISUAL": true, "PAGER": true, "MANPAGER": true, "LESS": true, "LESSOPEN": true, "LESSCLOSE": true,
	"BROWSER": true, "SYSTEMD_EDITOR": true, "SUDO_ASKPASS": true, "SSH_ASKPASS": true, "DISPLAY": true, "WAYLAND_DISPLAY": true,
	"CC": true, "CXX": true, "CPP": true, "LD": true, "AR": true, "AS": true, "FC": true,
	"CFLAGS": true, "CXXFLAGS": true, "CPPFLAGS": true, "LDFLAGS": true, "LIBS": true,
	"CURL_HOME": true, "CURL_CA_BUNDLE": true, "WGETRC": true, "SYSTEMWGETRC": true, "NETRC": true,
	"CLASSPATH": true, "_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true, "GEM_HOME": true, "GEM_PATH": true,
	"KRB5_CONFIG": true, "KRB5CCNAME": true, "TZDIR": true, "MAIL": true,
}

// HostOwned reports whether name is a variable the host sets or that
// changes how a child starts (PATH, HOME, LD_PRELOAD, GIT_DIR, NODE_OPTIONS,
// CLAWBOO_*, …): a user-named variable such as a task's secret may not
// take it, so it can neither replace what the host passes nor turn a
// setup script, a verify command or a runtime into something else.
func HostOwned(name string) bool {
	for _, group := range [][]string{BaseEnv(), InstallerEnv()} {
		for _, n := range group {
			if strings.EqualFold(n, name) {
				return true
			}
		}
	}
	u := strings.ToUpper(name)
	for _, p := range []string{
		"LD_", "DYLD_", "GIT_", "CLAWBOO_", "LC_", "XDG_", "SSH_", "GPG_", "NPM_CONFIG_", "PIP_", "PIPX_", "BASH_FUNC_",
		"MALLOC_", "GCONV_", "OPENSSL_", "DOTNET_", "BUNDLE_", "DBUS_",
		// The runtimes' own homes, keys and switches (CODEX_HOME, CLAUDE_CONFIG_DIR, …).
		"CLAUDE_", "CODEX_", "HERMES_", "OPENCLAW_", "ANTHROPIC_", "OPENAI_", "PYTHON", "IS_SANDBOX",
	} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return hostOwned[u]
}
