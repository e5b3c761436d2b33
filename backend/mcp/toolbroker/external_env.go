package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/clawboo/desktop/backend/redact"
)

// stdioBaseEnv is what every stdio server sees of the host's environment (the
// same allowlist as run_command's children), compared case-insensitively
// for Windows' sake.
var stdioBaseEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TERM",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "APPDATA", "LOCALAPPDATA", "USERPROFILE", "TEMP", "TMP",
	"PROGRAMDATA", "PROGRAMFILES",
}

// childEnv is the allowlisted host environment plus the names the person
// listed, their values from the secret source.
func (b *Broker) childEnv(ctx context.Context, cfg ServerConfig) []string {
	var env []string
	for _, kv := range b.environ() {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		for _, allowed := range stdioBaseEnv {
			if strings.EqualFold(k, allowed) && !forbiddenEnvName(k) {
				env = append(env, kv)
				break
			}
		}
	}
	for _, name := range cfg.Env {
		if forbiddenEnvName(name) {
			continue
		}
		if v, ok := b.secretSource().Get(ctx, name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// describeFailure is why a server failed, with the end of its stderr,
// scrubbed and cut.
func describeFailure(name string, err error, tail *tailBuffer) string {
	msg := err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		msg = fmt.Sprintf("no answer within %s", connectTimeout)
	}
	if t := strings.TrimSpace(tail.String()); t != "" {
		msg += "; stderr: " + lastLinesOf(t, 5)
	}
	return cutBytes(redact.Secrets(msg), 1024)
}

func lastLinesOf(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// tailBuffer keeps the last max bytes written to it (a child's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
