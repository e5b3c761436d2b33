package hermes

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// home is one run's HERMES_HOME.
type home struct {
	Path string
	// Throwaway homes (a run with no agent) are removed when the run ends.
	Throwaway bool
	// Created is true when this run made the folder, so no earlier session
	// can be in it and --resume would fail.
	Created bool
}

// maxConfig bounds the user's config.yaml we copy (a real one is a few KiB).
const maxConfig = 1 << 20

// safeID is what may name an agent's folder.
// Compiled on first use: a counted repetition compiles to a state per
// count, which cost start-up time as a package-level var.
var safeID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`) })

// prepareHome makes the run's HERMES_HOME: the agent's own folder under
// root (created 0700 on first use), or a throwaway one for a run with no
// agent; seeds config.yaml once from userConfig; and writes mcp.json
// (0600, ours, rewritten every run) or removes it when mcpJSON is empty.
func prepareHome(root, agentID, userConfig, mcpJSON string) (home, error) {
	var h home
	if agentID == "" {
		dir := filepath.Join(root, ".throwaway")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return h, err
		}
		p, err := os.MkdirTemp(dir, "run-")
		if err != nil {
			return h, err
		}
		h = home{Path: p, Throwaway: true, Created: true}
	} else {
		if !safeID().MatchString(agentID) || strings.Contains(agentID, "..") {
			return h, fmt.Errorf("agent id %q cannot name a Hermes home", agentID)
		}
		p := filepath.Join(root, agentID)
		_, err := os.Stat(p)
		h = home{Path: p, Created: errors.Is(err, fs.ErrNotExist)}
		if err := os.MkdirAll(p, 0o700); err != nil {
			return h, err
		}
		if err := os.Chmod(p, 0o700); err != nil {
			return h, err
		}
	}
	if err := seedConfig(filepath.Join(h.Path, "config.yaml"), userConfig); err != nil {
		h.cleanup()
		return h, fmt.Errorf("seed config.yaml: %w", err)
	}
	if err := writeMCP(filepath.Join(h.Path, "mcp.json"), mcpJSON); err != nil {
		h.cleanup()
		return h, fmt.Errorf("write mcp.json: %w", err)
	}
	return h, nil
}

// staleThrowaway is how old a throwaway home must be before a new adapter
// sweeps it: one left by a crash (another Clawboo on the same home may
// still be using a younger one).
const staleThrowaway = 24 * time.Hour

// sweepThrowaway removes throwaway homes a crashed process left behind.
func sweepThrowaway(root string, now time.Time) {
	dir := filepath.Join(root, ".throwaway")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > staleThrowaway {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// cleanup removes a throwaway home (it holds the attach token).
func (h home) cleanup() {
	if h.Throwaway && h.Path != "" {
		_ = os.RemoveAll(h.Path)
	}
}

// seedConfig copies the user's config.yaml into a home that has none. It
// never overwrites the home's copy (the agent may have changed it) and
// never writes back to the user's.
func seedConfig(dst, src string) error {
	if src == "" {
		return nil
	}
	if _, err := os.Lstat(dst); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	in, err := os.Open(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer in.Close()
	body, err := io.ReadAll(io.LimitReader(in, maxConfig+1))
	if err != nil {
		return err
	}
	if len(body) > maxConfig {
		return fmt.Errorf("%s is larger than %d bytes", src, maxConfig)
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil // a concurrent run of the same agent seeded it
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeMCP replaces mcp.json atomically, or removes it.
func writeMCP(path, text string) error {
	if text == "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mcp-*.json")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ConfigProvider is model.provider in a Hermes config.yaml, "" when it has
// none. It reads the two shapes Hermes writes, a block
//
//	model:
//	  provider: openrouter
//	  default: anthropic/claude-sonnet-4
//
// and a flow map (model: {provider: anthropic, default: …}); a plain
// `model: <slug>` names no provider.
func ConfigProvider(yaml string) string {
	inModel, indent := false, -1
	for _, raw := range strings.Split(yaml, "\n") {
		line := stripComment(strings.TrimRight(raw, "\r"))
		if strings.TrimSpace(line) == "" {
			continue
		}
		lead := len(line) - len(strings.TrimLeft(line, " \t"))
		if lead == 0 {
			inModel, indent = false, -1
			k, v, ok := strings.Cut(line, ":")
			if !ok || strings.TrimSpace(k) != "model" {
				continue
			}
			v = strings.TrimSpace(v)
			if v == "" {
				inModel = true
			} else if strings.HasPrefix(v, "{") {
				return flowProvider(v)
			}
			continue
		}
		if !inModel {
			continue
		}
		if indent < 0 {
			indent = lead
		}
		if lead != indent {
			continue // deeper: a nested map inside model
		}
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && strings.TrimSpace(k) == "provider" {
			return unquote(v)
		}
	}
	return ""
}

func flowProvider(v string) string {
	v = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(v), "{"), "}")
	for _, part := range strings.Split(v, ",") {
		if k, val, ok := strings.Cut(part, ":"); ok && strings.TrimSpace(k) == "provider" {
			return unquote(val)
		}
	}
	return ""
}

func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			return line[:i]
		}
	}
	return line
}

func unquote(v string) string { return strings.Trim(strings.TrimSpace(v), `"'`) }
