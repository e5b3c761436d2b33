//go:build desktopsmoke

package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/clawboo/desktop/backend/fakes/fakeprovider"
	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

// sentinelKey must never show up anywhere but the provider's request.
const sentinelKey = "sk-ant-SENTINEL-desktop-7f3a"

// notifications stands in for the desktop's notification server on the
// private session bus the test runs in, recording what the app sends.
type notifications struct {
	mu     sync.Mutex
	shown  []string // summary|body
	closed int
	next   uint32
}

func (n *notifications) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32,
) (uint32, *dbus.Error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.next++
	n.shown = append(n.shown, summary+"|"+body)
	return n.next, nil
}

func (n *notifications) CloseNotification(id uint32) *dbus.Error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed++
	return nil
}

func (n *notifications) has(summary, bodyPart string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, s := range n.shown {
		if strings.HasPrefix(s, summary+"|") && strings.Contains(s, bodyPart) {
			return true
		}
	}
	return false
}

func serveNotifications(t *testing.T) *notifications {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatalf("session bus (run under dbus-run-session): %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	n := &notifications{}
	if err := conn.Export(n, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	if r, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications: %v %v", r, err)
	}
	return n
}

// apiCall sends a JSON request to the app's loopback API.
func apiCall(t *testing.T, method, url string, body any, out any) int {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		_ = json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

// popupWindow is the visible popup whose title starts with "Clawboo
// approval", or "".
func popupWindow() string {
	out, err := run(5*time.Second, "xdotool", "search", "--onlyvisible", "--name", "^Clawboo approval ")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# repo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// testApprovals: a native agent asks to run `echo hi`; its native popup is
// answered with the keyboard and the output reaches the transcript; a
// second request answered in the page withdraws its popup; notifications
// go out for both requests and for the finished task; with no tray host
// the app says so and carries on.
func testApprovals(t *testing.T, bin string) {
	notes := serveNotifications(t)
	fake := fakeprovider.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.Push("/v1/messages",
		fakeprovider.Tools(fakeprovider.ToolCall{ID: "toolu_1", Name: "run_command", Args: `{"argv":["echo","hi"],"why":"to greet you, 100% sure"}`}),
		fakeprovider.Tools(fakeprovider.ToolCall{ID: "toolu_2", Name: "run_command", Args: `{"argv":["echo","second"],"why":"once more"}`}),
		fakeprovider.Text("all done"),
	)
	d := startDesktop(t, bin, "ANTHROPIC_API_KEY="+sentinelKey, "ANTHROPIC_BASE_URL="+srv.URL, "CLAWBOO_VAULT=file")
	base := d.baseURL(t)
	p := page{t: t, base: base}
	p.waitTrue(30*time.Second, "the page", `document.body.dataset.ready === "1"`)
	if !strings.Contains(d.output(), "no tray host is running") {
		t.Fatalf("without a tray host the app must say the tray is not shown:\n%s", d.output())
	}

	var agent struct{ Agent struct{ ID string } }
	cfg := map[string]any{
		"primaryProvider": "anthropic", "primaryModel": "claude-haiku-4-5", "envVar": "ANTHROPIC_API_KEY",
		"tools": map[string]any{"memory": false, "tools": false, "tasks": false, "teamchat": false, "shell": true}, "maxTurns": 6,
	}
	if code := apiCall(t, "POST", base+"/api/agents", map[string]any{"name": "Greeter", "runtime": "clawboo-native", "config": cfg}, &agent); code != http.StatusCreated {
		t.Fatalf("create agent: %d", code)
	}
	var task struct{ Task struct{ ID string } }
	if code := apiCall(t, "POST", base+"/api/board", map[string]any{
		"title": "Say hi", "kind": "code", "status": "todo",
		"repoPath": gitRepo(t),
	}, &task); code != http.StatusCreated {
		t.Fatalf("create task: %d", code)
	}
	var started struct{ RunID string }
	if code := apiCall(t, "POST", base+"/api/runtimes/clawboo-native/run", map[string]any{
		"taskId":          task.Task.ID,
		"assigneeAgentId": agent.Agent.ID, "wait": false,
	}, &started); code != http.StatusAccepted {
		t.Fatalf("start: %d %+v", code, started)
	}

	// The first request: a native popup, answered with Alt+A.
	var win string
	testkit.EventuallySays(t, 30*time.Second, "the first approval popup", func() (bool, string) {
		win = popupWindow()
		return win != "", "none"
	})
	if !notes.has("Clawboo: approval needed", "Allow echo to run?") {
		t.Fatalf("no notification for the request: %+v", notes.shown)
	}
	win = strings.Fields(win)[0]
	checkPopupAbove(t, win) // under the window manager (smokewm_test.go)
	if dir := os.Getenv("CLAWBOO_SMOKE_ARTIFACTS"); dir != "" {
		_ = os.MkdirAll(dir, 0o755)
		if out, err := run(20*time.Second, "/usr/bin/import", "-window", win, filepath.Join(dir, "approval-popup.png")); err != nil {
			t.Logf("popup screenshot: %v %s", err, out)
		}
	}
	if out, err := run(5*time.Second, "xdotool", "windowfocus", "--sync", win); err != nil {
		t.Fatalf("focus the popup: %v %s", err, out)
	}
	if out, err := run(5*time.Second, "xdotool", "key", "--clearmodifiers", "alt+a"); err != nil {
		t.Fatalf("press Alt+A: %v %s", err, out)
	}

	// The second request: answered in the page, its popup withdrawn.
	var second string
	testkit.EventuallySays(t, 30*time.Second, "the second request", func() (bool, string) {
		var ps struct {
			Approvals []struct{ ID, Command string }
		}
		_ = getJSON(base+"/api/approvals", &ps)
		for _, a := range ps.Approvals {
			if a.Command == "echo second" {
				second = a.ID
			}
		}
		return second != "" && popupWindow() != "", fmt.Sprint(ps)
	})
	p.mustEval(`(location.hash = "#/approvals", true)`)
	p.waitTrue(15*time.Second, "the second request's card", `!!q('approval-deny')`)
	p.mustEval(`(q('approval-deny').click(), true)`)
	testkit.EventuallySays(t, 15*time.Second, "the popup to be withdrawn", func() (bool, string) { return popupWindow() == "", "still up" })

	// The run finishes: `echo hi` ran with its output in the transcript,
	// the second was refused, the task notification went out.
	testkit.EventuallySays(t, 30*time.Second, "the run to end", func() (bool, string) {
		var r struct{ Status string }
		_ = getJSON(base+"/api/runs/"+started.RunID, &r)
		return terminal[r.Status], r.Status
	})
	testkit.EventuallySays(t, 10*time.Second, "a notification for the second request and the task's end", func() (bool, string) {
		return notes.has("Clawboo: approval needed", "echo") && (notes.has("Clawboo: task finished", "Say hi") || notes.has("Clawboo: task failed", "Say hi")),
			fmt.Sprint(notes.shown)
	})
	notes.mu.Lock()
	closed := notes.closed
	notes.mu.Unlock()
	if closed < 2 {
		t.Fatalf("answered requests' notifications must be closed; %d were", closed)
	}
	for _, req := range fake.Requests() {
		if !strings.Contains(req.Key, sentinelKey) {
			t.Fatalf("the provider got key %q", req.Key)
		}
	}
	if strings.Contains(d.output(), sentinelKey) {
		t.Fatal("the key leaked into the app's output")
	}
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.done:
	case <-time.After(15 * time.Second):
		t.Fatal("the app did not exit after SIGTERM")
	}
	if code := d.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	results := runCommandResults(t, d.home, started.RunID)
	if len(results) != 2 || !strings.HasPrefix(results[0], "ok:") || !strings.Contains(results[0], "hi") || !strings.HasPrefix(results[1], "error:") {
		t.Fatalf("run_command results: %q", results)
	}
	db, _ := os.ReadFile(filepath.Join(d.home, "clawboo.db"))
	if bytes.Contains(db, []byte(sentinelKey)) {
		t.Fatal("the key is in the database")
	}
}

// runCommandResults reads a run's run_command results from the database
// the app left, as "ok:<output>" or "error:<output>".
func runCommandResults(t *testing.T, home, runID string) []string {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(home, "clawboo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.ListEvents(context.Background(), runID, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		var e struct {
			Kind, Name, Output string
			IsError            bool
		}
		_ = json.Unmarshal(r.Data, &e)
		if e.Kind == "tool-result" && e.Name == "run_command" {
			tag := "ok:"
			if e.IsError {
				tag = "error:"
			}
			out = append(out, tag+e.Output)
		}
	}
	return out
}
