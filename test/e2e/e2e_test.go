package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clawboo/desktop/internal/testkit"
)

// module is the command under test; `go build` finds it from anywhere in
// the module, so the tests need not know where they sit.
const module = "github.com/clawboo/desktop"

// bin is the headless clawboo built once for these tests (by TestMain, into
// a temporary folder removed after them): the real binary, driven as a user
// would.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "clawboo-main-test")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "clawboo")
	out, err := exec.Command("go", "build", "-o", bin, module).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type server struct {
	cmd  *exec.Cmd
	url  string
	home string
	errs *testkit.SyncBuffer
	out  *testkit.SyncBuffer // stdout after the serving line (the login link)
	done chan error
}

// pipeLines hands the first line of stdout to lines and keeps every later
// one in s.out, reading to the end so the child never blocks on a full
// pipe; then it reaps the child into s.done.
func (s *server) pipeLines(stdout io.Reader, lines chan<- string) {
	s.out = &testkit.SyncBuffer{}
	go func() {
		sc := bufio.NewScanner(stdout)
		first := true
		for sc.Scan() {
			if first {
				lines <- sc.Text()
				first = false
				continue
			}
			fmt.Fprintln(s.out, sc.Text())
		}
		close(lines)
		s.done <- s.cmd.Wait()
	}()
}

// token is the server's API token, read from <home>/api-token as a client
// of the API does.
func (s *server) token(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.home, "api-token"))
	if err != nil {
		t.Fatalf("read the API token: %v", err)
	}
	return strings.TrimSpace(string(b))
}

// do sends req with the server's API token.
func (s *server) do(t *testing.T, req *http.Request) (*http.Response, error) {
	t.Helper()
	req.Header.Set("Authorization", "Bearer "+s.token(t))
	return testClient.Do(req)
}

var servingLine = regexp.MustCompile(`^Clawboo is serving (http://\S+)/ \(home (.+)\)$`)

func startServe(t *testing.T, env []string, args ...string) *server {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(bin, append([]string{"serve", "--home", home}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stdout, _ := cmd.StdoutPipe()
	errs := &testkit.SyncBuffer{}
	cmd.Stderr = errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, home: home, errs: errs, done: make(chan error, 1)}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.done
	})
	lines := make(chan string, 1)
	s.pipeLines(stdout, lines)
	select {
	case l, ok := <-lines:
		m := servingLine.FindStringSubmatch(l)
		if !ok || m == nil {
			t.Fatalf("unexpected first line %q; stderr: %s", l, errs.String())
		}
		if m[2] != home {
			t.Fatalf("home %q, want %q", m[2], home)
		}
		s.url = m[1]
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not start")
	}
	return s
}

// testClient bounds every request, so a server that hangs fails the test
// instead of stalling the whole suite.
var testClient = &http.Client{Timeout: 30 * time.Second}

func (s *server) get(t *testing.T, path string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.do(t, req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (s *server) post(t *testing.T, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.do(t, req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (s *server) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-s.done:
		s.done <- nil // let Cleanup's receive return
		return s.cmd.ProcessState.ExitCode()
	case <-time.After(20 * time.Second):
		t.Fatal("process did not exit")
		return -1
	}
}
