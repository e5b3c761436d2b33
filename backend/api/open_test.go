package api

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawboo/desktop/backend/board"
)

// openFixture is a task whose worktree record names a real folder with a
// hostile name: quotes, a command substitution, a newline.
func openFixture(t *testing.T) (*fixture, board.Task, string) {
	t.Helper()
	f := newFixture(t, nil)
	task := f.createTask(t, `{"title":"open me","repoPath":"`+gitRepo(t)+`"}`)
	dir := filepath.Join(t.TempDir(), "it's $(touch pwned) `touch pwned2`; \"q\"\nnl")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.board.SetWorktree(t.Context(), board.Worktree{
		TaskID: task.ID, RepoPath: dir, Path: dir, Branch: "clawboo/task-x",
		BaseCommit: strings.Repeat("a", 40), Status: "active",
	}); err != nil {
		t.Fatal(err)
	}
	return f, task, dir
}

type openAnswer struct {
	Available        bool   `json:"available"`
	Opened           bool   `json:"opened"`
	Command          string `json:"command"`
	URL              string `json:"url"`
	Why              string `json:"why"`
	Reason           string `json:"reason"`
	Path             string `json:"path"`
	Desktop          bool   `json:"desktop"`
	PreviewPort      int    `json:"previewPort"`
	PreviewListening bool   `json:"previewListening"`
}

func (f *fixture) open(t *testing.T, id, body string, want int) openAnswer {
	t.Helper()
	method := "POST"
	if body == "" {
		method = "GET"
	}
	code, _, b := f.do(t, method, "/api/board/"+id+"/open", body)
	if code != want {
		t.Fatalf("%s open %s: %d %s", method, body, code, b)
	}
	return decode[openAnswer](t, b)
}

// In a browser the answer is a command to copy. The path in it is the
// worktree's from the board record (a path in the request is ignored), and
// a shell running the command lands in that folder and runs nothing else.
func TestOpenInABrowserAnswersACommandThatQuotesThePath(t *testing.T) {
	f, task, dir := openFixture(t)
	info := f.open(t, task.ID, "", 200)
	if !info.Available || info.Desktop || info.Path != dir || info.PreviewPort != 0 || info.PreviewListening {
		t.Fatalf("%+v", info)
	}
	term := f.open(t, task.ID, `{"what":"terminal","path":"/etc"}`, 200)
	if term.Opened || !strings.HasSuffix(term.Command, " && $SHELL") || strings.Contains(term.Command, "/etc") {
		t.Fatalf("%+v", term)
	}
	ed := f.open(t, task.ID, `{"what":"editor"}`, 200)
	if ed.Opened || !strings.HasPrefix(ed.Command, "code '") {
		t.Fatalf("%+v", ed)
	}
	work := t.TempDir()
	run := func(script string, env ...string) string {
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir, cmd.Env = work, append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v %s", script, err, out)
		}
		return string(out)
	}
	// $SHELL is `pwd` here: the terminal command prints where it landed.
	if got := run(term.Command, "SHELL=pwd"); got != dir+"\n" {
		t.Fatalf("landed in %q, not %q", got, dir)
	}
	if got := run(`code() { printf %s "$1"; }; ` + ed.Command); got != dir {
		t.Fatalf("the editor got %q, not %q", got, dir)
	}
	for _, p := range []string{filepath.Join(work, "pwned"), filepath.Join(work, "pwned2"), filepath.Join(dir, "pwned")} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("the path's text ran as a command: %s exists", p)
		}
	}
}

// Preview answers the URL only while something listens on the task's
// first leased port; without ports or a listener it says why.
func TestOpenPreviewOnlyWhenItsPortListens(t *testing.T) {
	f, task, _ := openFixture(t)
	if a := f.open(t, task.ID, `{"what":"preview"}`, 409); a.Reason != "no_ports" {
		t.Fatalf("%+v", a)
	}
	// A lease takes only a port that is free, so the task's server starts
	// listening on its port after the lease, as a dev server would.
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := probe.Addr().(*net.TCPAddr).Port
	_ = probe.Close()
	if err := f.board.SetPortRange(t.Context(), board.PortRange{First: port, Last: port, Block: 1}); err != nil {
		t.Fatal(err)
	}
	if ps, err := f.board.LeasePorts(t.Context(), task.ID); err != nil || len(ps) != 1 || ps[0] != port {
		t.Fatal(ps, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	if info := f.open(t, task.ID, "", 200); info.PreviewPort != port || !info.PreviewListening {
		t.Fatalf("%+v", info)
	}
	want := "http://127.0.0.1:" + itoa(port)
	if a := f.open(t, task.ID, `{"what":"preview"}`, 200); a.URL != want || a.Opened {
		t.Fatalf("%+v", a)
	}
	_ = ln.Close()
	<-served
	if info := f.open(t, task.ID, "", 200); info.PreviewListening {
		t.Fatalf("%+v", info)
	}
	if a := f.open(t, task.ID, `{"what":"preview"}`, 409); a.Reason != "not_listening" {
		t.Fatalf("%+v", a)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// Refusals: an unknown what, and a task without a live worktree.
func TestOpenRefusals(t *testing.T) {
	f, task, _ := openFixture(t)
	f.open(t, task.ID, `{"what":"bash -c 'rm -rf /'"}`, 400)
	other := f.createTask(t, `{"title":"no worktree"}`)
	if a := f.open(t, other.ID, `{"what":"terminal"}`, 409); a.Reason != "no_worktree" {
		t.Fatalf("%+v", a)
	}
	if a := f.open(t, other.ID, "", 200); a.Available || a.Why == "" {
		t.Fatalf("%+v", a)
	}
	if err := f.board.SetWorktreeStatus(t.Context(), task.ID, "archived"); err != nil {
		t.Fatal(err)
	}
	if a := f.open(t, task.ID, `{"what":"editor"}`, 409); a.Reason != "no_worktree" {
		t.Fatalf("%+v", a)
	}
	f.open(t, "01NOSUCHTASK0000000000000", `{"what":"terminal"}`, 404)
}

// The desktop's own webview (an in-process request) with a display gets
// the program started in the worktree: the first terminal of the list that
// is installed, $VISUAL (a console editor inside that terminal), else code.
// Without a display it gets the command, like a browser.
func TestOpenOnTheDesktopStartsThePickedProgram(t *testing.T) {
	f, task, dir := openFixture(t)
	type started struct {
		prog, dir string
		args      []string
	}
	var got []started
	env := map[string]string{"DISPLAY": ":0"}
	installed := map[string]bool{"konsole": true, "code": true, "vim": true}
	f.api.desk = desktop{
		goos:   "linux",
		getenv: func(k string) string { return env[k] },
		lookPath: func(n string) (string, error) {
			if installed[n] {
				return "/usr/bin/" + n, nil
			}
			return "", errors.New("not found")
		},
		start: func(prog string, args []string, d string) error {
			got = append(got, started{prog, d, args})
			return nil
		},
	}
	call := func(body string) openAnswer {
		t.Helper()
		req := httptest.NewRequest("POST", "/api/board/"+task.ID+"/open", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req = req.WithContext(MarkInProcess(context.Background()))
		rec := httptest.NewRecorder()
		f.api.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", body, rec.Code, rec.Body)
		}
		return decode[openAnswer](t, rec.Body.Bytes())
	}
	if a := call(`{"what":"terminal"}`); !a.Opened || a.Command != "" {
		t.Fatalf("%+v", a)
	}
	if a := call(`{"what":"editor"}`); !a.Opened {
		t.Fatalf("%+v", a)
	}
	env["VISUAL"] = "vim"
	if a := call(`{"what":"editor"}`); !a.Opened {
		t.Fatalf("%+v", a)
	}
	want := []started{
		{"/usr/bin/konsole", dir, []string{"--workdir", dir}},
		{"/usr/bin/code", dir, []string{dir}},
		{"/usr/bin/konsole", dir, []string{"--workdir", dir, "-e", "/usr/bin/vim", dir}},
	}
	if len(got) != len(want) {
		t.Fatalf("started %+v", got)
	}
	for i := range want {
		if got[i].prog != want[i].prog || got[i].dir != want[i].dir || strings.Join(got[i].args, "|") != strings.Join(want[i].args, "|") {
			t.Fatalf("start %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	installed = map[string]bool{}
	if a := call(`{"what":"terminal"}`); a.Opened || !strings.Contains(a.Why, "No terminal") || !strings.HasPrefix(a.Command, "cd '") {
		t.Fatalf("%+v", a)
	}
	delete(env, "DISPLAY")
	installed["konsole"] = true
	if a := call(`{"what":"terminal"}`); a.Opened || a.Command == "" || len(got) != 3 {
		t.Fatalf("no display, yet %+v (started %d)", a, len(got))
	}
}
