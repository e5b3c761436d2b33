//go:build desktopsmoke

// The desktop smoke test drives the real desktop binary in a real window.
// It needs a display and a private session bus, so it is opt-in:
//
//	xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- \
//	    env NO_AT_BRIDGE=1 go test -tags desktopsmoke -run TestDesktopSmoke -v ./app
//
// It builds the binary with the e2e hook (tags desktop,production,
// webkit2_41,e2e) unless CLAWBOO_SMOKE_BIN names one already built, and
// needs the frontend built into frontend/dist. CLAWBOO_SMOKE_ARTIFACTS, if
// set, is a folder that receives the screenshot.

package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

const readyMarker = "clawboo: page ready" // app.ReadyMarker, which needs the desktop tag

func TestDesktopSmoke(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Fatal(`no DISPLAY: run under xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- ...`)
	}
	for _, tool := range []string{"xdotool", "/usr/bin/import", "/usr/bin/identify"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed (apt-get install xdotool imagemagick): %v", tool, err)
		}
	}
	bin := desktopBinary(t)
	ensureWM(t) // openbox, unless a window manager runs already (smokewm_test.go)

	t.Run("no display", func(t *testing.T) { testNoDisplay(t, bin) })
	t.Run("serve", func(t *testing.T) { testServe(t, bin) })
	t.Run("window", func(t *testing.T) { testWindow(t, bin) })
	t.Run("approvals", func(t *testing.T) { testApprovals(t, bin) })
	t.Run("tray", func(t *testing.T) { testTray(t, bin) })
	t.Run("single instance", func(t *testing.T) { testSingleInstance(t, bin) })
	t.Run("wm close", func(t *testing.T) { testWMClose(t, bin) })
	t.Run("wm geometry", func(t *testing.T) { testGeometry(t, bin) })
	t.Run("edit keys", func(t *testing.T) { testEditKeys(t, bin) })
}

// desktopBinary builds the desktop app with the e2e hook into a temp dir.
func desktopBinary(t *testing.T) string {
	if bin := os.Getenv("CLAWBOO_SMOKE_BIN"); bin != "" {
		return bin
	}
	if _, err := os.Stat("../frontend/dist/index.html"); err != nil {
		t.Fatalf("the UI is not built (%v): cd frontend && npm ci && npm run build", err)
	}
	bin := filepath.Join(t.TempDir(), "clawboo")
	start := time.Now()
	cmd := exec.Command("go", "build", "-tags", "desktop,production,webkit2_41,e2e", "-o", bin, ".")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the desktop binary: %v\n%s", err, out)
	}
	t.Logf("built %s in %v", bin, time.Since(start).Round(time.Millisecond))
	return bin
}

// testNoDisplay: without a usable display the desktop binary explains
// itself and fails instead of letting GTK panic: none named, or one named
// that is not there.
func testNoDisplay(t *testing.T, bin string) {
	for _, tc := range []struct{ name, display string }{
		{"unset", ""},
		{"unreachable", ":4093"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var env []string
			for _, kv := range appEnv("CLAWBOO_HOME=" + t.TempDir()) {
				if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
					env = append(env, kv)
				}
			}
			if tc.display != "" {
				env = append(env, "DISPLAY="+tc.display)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin)
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() <= 0 {
				t.Fatalf("want a non-zero exit, got %v\n%s", err, out)
			}
			if !strings.Contains(strings.ToLower(string(out)), "display") || strings.Contains(string(out), "goroutine ") {
				t.Fatalf("want a message about the display and no stack trace, got:\n%s", out)
			}
		})
	}
}

// testServe: the desktop binary still runs headless.
func testServe(t *testing.T, bin string) {
	home := t.TempDir()
	cmd := exec.Command(bin, "serve", "--home", home)
	cmd.Env = appEnv()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-done
	}()
	var port string
	testkit.EventuallySays(t, 30*time.Second, "the serve port file", func() (bool, string) {
		b, err := os.ReadFile(filepath.Join(home, "api-port.txt"))
		port = strings.TrimSpace(string(b))
		return err == nil && port != "", fmt.Sprint(err)
	})
	var health struct{ OK bool }
	if err := getJSON("http://127.0.0.1:"+port+"/api/health", &health); err != nil || !health.OK {
		t.Fatalf("GET /api/health: %+v %v", health, err)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		done <- err // for the deferred cleanup
		if err != nil {
			t.Fatalf("serve exited with %v after SIGTERM, want 0", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not exit within 15s of SIGTERM")
	}
}

func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// postRun starts a run over the loopback API without waiting for it.
func postRun(t *testing.T, base, message string) string {
	t.Helper()
	body := fmt.Sprintf(`{"message": %s, "wait": false}`, strconv.Quote(message))
	resp, err := http.Post(base+"/api/runtimes/clawboo-mock/run", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct{ RunID string }
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("start run: %s %v", resp.Status, err)
	}
	return r.RunID
}

// runStatus reads a run's status from the database file the app left.
func runStatus(t *testing.T, home, id string) string {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(home, "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run, err := st.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return run.Status
}
