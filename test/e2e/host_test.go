package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/config"
	"github.com/clawboo/desktop/internal/testkit"
)

// hostAPI talks to a host server on its socket with its home's token.
type hostAPI struct {
	t    *testing.T
	c    *http.Client
	home string
}

func (h hostAPI) do(method, path string, body any) map[string]any {
	h.t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, "http://localhost"+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if tok, err := config.ReadAPIToken(h.home); err == nil {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	res, err := h.c.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	out := map[string]any{}
	_ = json.NewDecoder(res.Body).Decode(&out)
	return out
}

// TestHostServerIsReplacedOnlyWhenIdle: `clawboo host --start` of a newer
// version leaves an older server alone while it has a run going (exit 3,
// in words), and replaces it once the run has ended.
func TestHostServerIsReplacedOnlyWhenIdle(t *testing.T) {
	next := filepath.Join(t.TempDir(), "clawboo-next")
	if out, err := exec.Command("go", "build", "-ldflags", "-X main.version=host-next", "-o", next, module).CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	home := filepath.Join(t.TempDir(), "host")
	t.Cleanup(func() { _ = exec.Command("pkill", "-TERM", "-f", "host --serve --home "+home).Run() })
	out, err := exec.Command(bin, "host", "--start", "--home", home, "--enable-mock").Output()
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	sock := strings.TrimSpace(string(out))
	if sock != filepath.Join(home, "host.sock") {
		t.Fatalf("socket %q", sock)
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the socket: %v %v", fi, err)
	}
	api := hostAPI{t: t, home: home, c: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		},
	}}}
	first := api.do("GET", "/api/health", nil)["version"]
	run := api.do("POST", "/api/runtimes/clawboo-mock/run", map[string]any{"message": "!silent 60000\n!ok late", "wait": false})
	runID, _ := run["runId"].(string)
	if runID == "" {
		t.Fatalf("run: %v", run)
	}
	cmd := exec.Command(next, "host", "--start", "--home", home, "--enable-mock")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 || !strings.Contains(stderr.String(), "is still running 1 run(s) here") {
		t.Fatalf("a newer --start while a run goes: %v %q", err, stderr.String())
	}
	if v := api.do("GET", "/api/health", nil)["version"]; v != first {
		t.Fatalf("the server was replaced under its run: %v", v)
	}
	api.do("POST", "/api/runs/"+runID+"/abort", map[string]any{})
	testkit.EventuallySays(t, 30*time.Second, "the run to end", func() (bool, string) {
		s, _ := api.do("GET", "/api/runs/"+runID, nil)["status"].(string)
		return s != "running" && s != "starting", s
	})
	if out, err := exec.Command(next, "host", "--start", "--home", home, "--enable-mock").CombinedOutput(); err != nil {
		t.Fatalf("a newer --start once idle: %v %s", err, out)
	}
	if v := api.do("GET", "/api/health", nil)["version"]; v != "host-next" {
		t.Fatalf("after the replacement the server is %v", v)
	}
}
