package vault

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// openClawEnvPath is <stateDir>/.env, where stateDir is
// OPENCLAW_STATE_DIR, MOLTBOT_STATE_DIR or CLAWDBOT_STATE_DIR, else
// ~/.openclaw; the legacy ~/.clawdbot or ~/.moltbot only when ~/.openclaw
// does not exist and they do. "" when no home folder is known.
func openClawEnvPath(getenv func(string) string) string {
	home := getenv("HOME")
	if home == "" {
		home = getenv("USERPROFILE")
	}
	for _, k := range []string{"OPENCLAW_STATE_DIR", "MOLTBOT_STATE_DIR", "CLAWDBOT_STATE_DIR"} {
		if d := strings.TrimSpace(getenv(k)); d != "" {
			if home != "" && (d == "~" || strings.HasPrefix(d, "~/")) {
				d = filepath.Join(home, d[1:])
			}
			return filepath.Join(d, ".env")
		}
	}
	if home == "" {
		return ""
	}
	dir := filepath.Join(home, ".openclaw")
	if _, err := os.Stat(dir); err != nil {
		for _, legacy := range []string{".clawdbot", ".moltbot"} {
			if fi, err := os.Stat(filepath.Join(home, legacy)); err == nil && fi.IsDir() {
				dir = filepath.Join(home, legacy)
				break
			}
		}
	}
	return filepath.Join(dir, ".env")
}

// scanDotEnv walks .env lines exactly as OpenClaw's readDotEnvVar does:
// each line trimmed; blank, '#' and '='-less lines skipped; split at the
// first '='; key and value trimmed. No quote stripping, no "export ", no
// expansion. fn returns false to stop.
func scanDotEnv(data string, fn func(key, value string) bool) {
	for line := range strings.SplitSeq(data, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, val, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		if !fn(strings.TrimSpace(k), strings.TrimSpace(val)) {
			return
		}
	}
}

// lookupDotEnv is the first non-empty value for name.
func lookupDotEnv(data, name string) (string, bool) {
	var out string
	scanDotEnv(data, func(k, val string) bool {
		if k == name && val != "" {
			out = val
			return false
		}
		return true
	})
	return out, out != ""
}

// dotEnv is OpenClaw's .env. Presence is cached by the file's version
// (identity, mtime, size); values are re-read per lookup, so the vault
// never holds another program's plaintext keys in memory.
type dotEnv struct {
	path string

	mu    sync.Mutex
	info  os.FileInfo
	ready bool
	names map[string]bool // names with a non-empty value
}

func newDotEnv(path string) *dotEnv { return &dotEnv{path: path} }

func (d *dotEnv) has(name string) bool {
	if d.path == "" {
		return false
	}
	cur := statVersion(d.path)
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.ready || !sameVersion(d.info, cur) {
		data, info, err := readSmall(d.path)
		names := map[string]bool{}
		if err == nil {
			scanDotEnv(string(data), func(k, val string) bool {
				if val != "" {
					names[k] = true
				}
				return true
			})
		}
		d.info, d.ready, d.names = info, true, names
	}
	return d.names[name]
}

func (d *dotEnv) lookup(name string) (string, bool) {
	if d.path == "" {
		return "", false
	}
	data, _, err := readSmall(d.path)
	if err != nil || data == nil {
		return "", false
	}
	return lookupDotEnv(string(data), name)
}
