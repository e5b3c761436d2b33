package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawboo/desktop/backend/store"
	"github.com/clawboo/desktop/internal/testkit"
)

func TestServeWritesPortFileAndAnswers(t *testing.T) {
	s := startServe(t, nil, "--addr", "127.0.0.1:0")
	port, err := os.ReadFile(filepath.Join(s.home, "api-port.txt"))
	if err != nil || !strings.HasSuffix(s.url, ":"+strings.TrimSpace(string(port))) {
		t.Fatalf("port file %q vs %s: %v", port, s.url, err)
	}
	if code, b := s.get(t, "/api/health"); code != 200 || !strings.Contains(string(b), `"ok":true`) {
		t.Fatal(code, string(b))
	}
	if _, err := os.Stat(filepath.Join(s.home, "clawboo.db")); err != nil {
		t.Fatal("database not created in home:", err)
	}
}

func TestServeTakesNextFreePort(t *testing.T) {
	// Hold the first port (when free) so serve must move on.
	if ln, err := net.Listen("tcp", "127.0.0.1:18790"); err == nil {
		defer ln.Close()
	}
	s := startServe(t, nil)
	var port int
	fmt.Sscanf(s.url, "http://127.0.0.1:%d", &port)
	if port <= 18790 || port > 18809 {
		t.Fatalf("chose %s", s.url)
	}
	b, _ := os.ReadFile(filepath.Join(s.home, "api-port.txt"))
	if strings.TrimSpace(string(b)) != fmt.Sprint(port) {
		t.Fatalf("port file says %q", b)
	}
}

func TestMockOnlyWhenExactlyOne(t *testing.T) {
	for _, v := range []string{"", "true", "yes", "01", " 1"} {
		s := startServe(t, []string{"CLAWBOO_ENABLE_MOCK_RUNTIME=" + v}, "--addr", "127.0.0.1:0")
		_, b := s.get(t, "/api/runtimes")
		if strings.Contains(string(b), "clawboo-mock") {
			t.Fatalf("mock offered with %q: %s", v, b)
		}
		if code, b := s.post(t, "/api/runtimes/clawboo-mock/run", `{"message":"x"}`); code != 404 {
			t.Fatalf("%q: %d %s", v, code, b)
		}
	}
	s := startServe(t, []string{"CLAWBOO_ENABLE_MOCK_RUNTIME=1"}, "--addr", "127.0.0.1:0")
	if code, b := s.post(t, "/api/runtimes/clawboo-mock/run", `{"message":"!ok yes"}`); code != 200 || !strings.Contains(string(b), `"summary":"yes"`) {
		t.Fatal(code, string(b))
	}
}

func TestSignalsShutDownCleanly(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			s := startServe(t, []string{"CLAWBOO_ENABLE_MOCK_RUNTIME=1"}, "--addr", "127.0.0.1:0")
			_, b := s.post(t, "/api/runtimes/clawboo-mock/run", `{"message":"!abort","wait":false}`)
			var started struct{ RunID string }
			if err := json.Unmarshal(b, &started); err != nil || started.RunID == "" {
				t.Fatal(string(b))
			}
			// A client waiting on a run gets its result during shutdown.
			waited := make(chan string, 1)
			go func() {
				req, _ := http.NewRequest(http.MethodPost, s.url+"/api/runtimes/clawboo-mock/run", strings.NewReader(`{"message":"!abort"}`))
				req.Header.Set("Content-Type", "application/json")
				resp, err := s.do(t, req)
				if err != nil {
					waited <- err.Error()
					return
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				waited <- string(b)
			}()
			time.Sleep(200 * time.Millisecond)
			if err := s.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := s.wait(t); code != 0 {
				t.Fatalf("exit %d; stderr: %s", code, s.errs.String())
			}
			if got := <-waited; !strings.Contains(got, `"status":"aborted"`) {
				t.Fatalf("waiting caller got %q", got)
			}
			st, err := store.Open(context.Background(), filepath.Join(s.home, "clawboo.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			r, err := st.GetRun(context.Background(), started.RunID)
			if err != nil || r.Status != store.RunAborted {
				t.Fatalf("run after shutdown: %+v %v", r, err)
			}
		})
	}
}

func TestCommandLineErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"serve", "extra"}, 2, "unexpected argument"},
		{[]string{"serve", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"serve", "--addr", "0.0.0.0:0", "--home", "HOME"}, 1, "only loopback"},
		{[]string{"serve", "--addr", "nonsense", "--home", "HOME"}, 1, "--addr"},
		{[]string{}, 2, "serve"},
		{[]string{"version"}, 0, "clawboo"},
		{[]string{"--help"}, 0, "clawboo serve"},
	}
	for _, tc := range cases {
		for i, a := range tc.args {
			if a == "HOME" {
				tc.args[i] = t.TempDir()
			}
		}
		out, err := exec.Command(bin, tc.args...).CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != tc.code || !strings.Contains(string(out), tc.want) {
			t.Errorf("%v: exit %d, output %q", tc.args, code, out)
		}
	}
}

func gitRepoForTest(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, "README.md"), []byte("# repo\n"), 0o644)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}

// restartServe starts serve again on the same home and port.
func restartServe(t *testing.T, home, addr string) *server {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--home", home, "--addr", addr)
	cmd.Env = append(os.Environ(), "CLAWBOO_ENABLE_MOCK_RUNTIME=1", "CLAWBOO_MOCK_WORKTREES=1", "CLAWBOO_VAULT=file")
	errs := &testkit.SyncBuffer{}
	cmd.Stderr = errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, url: "http://" + addr, home: home, errs: errs, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-s.done })
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(s.url + "/api/health"); err == nil {
			resp.Body.Close()
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("serve did not come back: %s", errs.String())
	return nil
}

func TestSIGKILLDuringATaskRunLosesNothing(t *testing.T) {
	// The worktree mock: its !write leaves the work the crash must not lose.
	s := startServe(t, []string{"CLAWBOO_ENABLE_MOCK_RUNTIME=1", "CLAWBOO_MOCK_WORKTREES=1", "CLAWBOO_VAULT=file"}, "--addr", "127.0.0.1:0")
	repo := gitRepoForTest(t)
	_, b := s.post(t, "/api/board", `{"title":"long job","repoPath":"`+repo+`"}`)
	var created struct{ Task struct{ ID string } }
	_ = json.Unmarshal(b, &created)
	id := created.Task.ID
	s.post(t, "/api/board", `{"title":"bystander"}`)
	s.post(t, "/api/board/"+id+"/comments", `{"body":"before the crash"}`)
	_, b = s.post(t, "/api/runtimes/clawboo-mock/run", `{"taskId":"`+id+`","wait":false,"message":"!write wip.txt halfway\n!abort"}`)
	var started struct{ RunID string }
	if err := json.Unmarshal(b, &started); err != nil || started.RunID == "" {
		t.Fatal(string(b))
	}
	// Wait until the run has written into its worktree.
	var wt struct {
		Worktree struct{ Path, Branch string }
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, b = s.get(t, "/api/board/"+id)
		_ = json.Unmarshal(b, &wt)
		if wt.Worktree.Path != "" {
			if _, err := os.Stat(filepath.Join(wt.Worktree.Path, "wip.txt")); err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run never wrote: %s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	addr := strings.TrimPrefix(s.url, "http://")
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.wait(t)

	s2 := restartServe(t, s.home, addr)
	_, b = s2.get(t, "/api/runs/"+started.RunID)
	var run struct{ Status, Error string }
	_ = json.Unmarshal(b, &run)
	if run.Status != "failed" || !strings.Contains(run.Error, "orphaned") {
		t.Fatalf("run after restart: %s\nfirst server said: %s", b, s.errs.String())
	}
	_, b = s2.get(t, "/api/board/"+id)
	var detail struct {
		Task struct {
			Status string
			RunID  *string
		}
		Comments []struct{ Body string }
	}
	_ = json.Unmarshal(b, &detail)
	if detail.Task.Status != "todo" || detail.Task.RunID != nil || len(detail.Comments) != 2 || detail.Comments[0].Body != "before the crash" {
		t.Fatalf("task after restart: %s", b)
	}
	if _, err := os.Stat(filepath.Join(wt.Worktree.Path, "wip.txt")); err != nil {
		t.Fatal("the worktree did not survive the crash:", err)
	}
	if err := exec.Command("git", "-C", repo, "rev-parse", "--verify", "-q", "refs/heads/"+wt.Worktree.Branch).Run(); err != nil {
		t.Fatal("the task's branch did not survive the crash")
	}
	_, b = s2.get(t, "/api/board")
	if strings.Count(string(b), `"title"`) != 2 {
		t.Fatalf("tasks lost: %s", b)
	}
	// The work continues where it stopped.
	code, b := s2.post(t, "/api/runtimes/clawboo-mock/run", `{"taskId":"`+id+`","message":"!write done.txt finished"}`)
	if code != 200 || !strings.Contains(string(b), `"status":"in_review"`) {
		t.Fatal(code, string(b))
	}
	_, b = s2.get(t, "/api/board/"+id+"/diff")
	if !strings.Contains(string(b), "wip.txt") || !strings.Contains(string(b), "done.txt") {
		t.Fatalf("diff lost the earlier work: %s", b)
	}
}
