package codex

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The managed CODEX_HOME: one folder per agent under
// <clawboo home>/runtimes/codex/<agentId>/, so an agent's sessions
// survive between runs and never mix with the user's own.
//
// Rules:
//   - auth.json is copied in from the user's CODEX_HOME only when the
//     user's copy is newer than the managed one (its time is kept, so a
//     token Codex refreshed in the managed copy is never overwritten by an
//     older login), and nothing is ever written back.
//   - config.toml is the user's own config.toml (model, providers,
//     settings) with any clawboo-* MCP tables removed and ours appended;
//     it is rewritten at every run.
//   - A home with no usable login, no API key and no key for the active
//     provider is refused before anything starts.

// homeSetup says how to prepare a home.
type homeSetup struct {
	Dir      string // the managed home
	UserHome string // the user's CODEX_HOME (their auth.json, config.toml)
	MCP      string // our [mcp_servers.*] tables
	// HasKey reports whether a secret named name can be put in the child's
	// environment.
	HasKey func(name string) bool
}

// provisioned is what a prepared home needs from the run's environment.
type provisioned struct {
	// ProviderEnv is the env_key of the active custom provider ("" for
	// OpenAI's own, which reads OPENAI_API_KEY).
	ProviderEnv string
	Model       string
}

// errNoCredentials is the message the user sees for a home without them.
func errNoCredentials(dir string) error {
	return fmt.Errorf("no Codex credentials provisioned for managed home %s: run `codex login` (or connect an OpenAI API key) and try again", dir)
}

// prepareHome makes the home ready for a run.
func prepareHome(s homeSetup) (provisioned, error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return provisioned{}, fmt.Errorf("codex home: %w", err)
	}
	if err := copyAuthIfNewer(filepath.Join(s.UserHome, "auth.json"), filepath.Join(s.Dir, "auth.json")); err != nil {
		return provisioned{}, err
	}
	user, err := os.ReadFile(filepath.Join(s.UserHome, "config.toml"))
	if err != nil && !os.IsNotExist(err) {
		return provisioned{}, fmt.Errorf("read your codex config: %w", err)
	}
	cfg := mergeConfig(string(user), s.MCP)
	if err := writeAtomic(filepath.Join(s.Dir, "config.toml"), []byte(cfg), 0o600); err != nil {
		return provisioned{}, err
	}
	p := activeProvider(string(user))
	switch {
	case AuthUsable(filepath.Join(s.Dir, "auth.json")):
	case s.HasKey("OPENAI_API_KEY"), s.HasKey("CODEX_API_KEY"):
	case p.custom && p.envKey == "":
		// A provider that needs no key (a local server).
	case p.custom && s.HasKey(p.envKey):
	default:
		return provisioned{}, errNoCredentials(s.Dir)
	}
	return provisioned{ProviderEnv: p.envKey, Model: p.model}, nil
}

// copyAuthIfNewer copies src over dst when src exists and is newer, and
// gives dst src's time.
func copyAuthIfNewer(src, dst string) error {
	st, err := os.Stat(src)
	if err != nil || !st.Mode().IsRegular() || st.Size() > 1<<20 {
		return nil // no login to copy
	}
	if dt, err := os.Stat(dst); err == nil && !st.ModTime().After(dt.ModTime()) {
		return nil
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("read your codex login: %w", err)
	}
	if err := writeAtomic(dst, b, 0o600); err != nil {
		return err
	}
	return os.Chtimes(dst, st.ModTime(), st.ModTime())
}

func writeAtomic(path string, b []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("codex home: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("codex home: %w", err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("codex home: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("codex home: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("codex home: %w", err)
	}
	return nil
}

// header matches a TOML table header and captures its key path.
var header = regexp.MustCompile(`^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$`)

// ours reports a key path inside one of our MCP tables.
func ours(path string) bool {
	path = strings.ReplaceAll(strings.ReplaceAll(path, `"`, ""), "'", "")
	return strings.HasPrefix(path, "mcp_servers.clawboo-")
}

// mergeConfig is the user's config.toml without our MCP tables, then ours.
// It works on lines: a table runs from its header to the next header.
func mergeConfig(user, mcp string) string {
	var b strings.Builder
	skip := false
	sc := bufio.NewScanner(strings.NewReader(user))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := header.FindStringSubmatch(line); m != nil {
			skip = ours(m[1])
		}
		if !skip {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	if mcp != "" {
		if b.Len() > 0 {
			b.WriteString("\n# Clawboo's MCP servers (rewritten at every run)\n")
		}
		b.WriteString(mcp)
	}
	return b.String()
}

type provider struct {
	custom bool
	envKey string
	model  string
}

// activeProvider reads the root model and model_provider keys and the
// active provider's env_key from a config.toml.
func activeProvider(cfg string) provider {
	root := map[string]string{}
	tables := map[string]map[string]string{}
	cur := root
	sc := bufio.NewScanner(strings.NewReader(cfg))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if m := header.FindStringSubmatch(line); m != nil {
			name := strings.ReplaceAll(strings.ReplaceAll(m[1], `"`, ""), "'", "")
			cur = map[string]string{}
			tables[name] = cur
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		v = strings.TrimSpace(v)
		if i := strings.Index(v, " #"); i >= 0 && (strings.HasPrefix(v, `"`) || strings.HasPrefix(v, "'")) {
			v = strings.TrimSpace(v[:i])
		}
		cur[strings.TrimSpace(k)] = strings.Trim(v, `"'`)
	}
	p := provider{model: root["model"]}
	id := root["model_provider"]
	if id == "" || id == "openai" {
		return p
	}
	p.custom = true
	p.envKey = tables["model_providers."+id]["env_key"]
	return p
}
