package toolbroker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/redact"
)

// childEnv is proc's allowlisted host environment plus the names the person
// listed, their values from the secret source. Names are compared
// case-insensitively for Windows' sake ("Path").
func (b *Broker) childEnv(ctx context.Context, cfg ServerConfig) []string {
	environ := b.environ()
	names := append(proc.BaseEnv(), proc.WindowsEnv()...)
	var allow []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if k == "" || forbiddenEnvName(k) {
			continue
		}
		if slices.ContainsFunc(names, func(a string) bool { return strings.EqualFold(a, k) }) {
			allow = append(allow, k)
		}
	}
	listed := map[string]string{}
	for _, name := range cfg.Env {
		if forbiddenEnvName(name) {
			continue
		}
		if v, ok := b.secretSource().Get(ctx, name); ok {
			listed[name] = v
		}
	}
	return proc.AllowEnv(environ, allow, nil, listed)
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
