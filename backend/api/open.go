package api

import (
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/board"
)

// Opening a task's worktree where people work: a terminal, an editor, or
// the preview a task's setup serves on its first leased port.
//
//	GET  /api/board/{id}/open → what can be opened now
//	POST /api/board/{id}/open {"what":"terminal"|"editor"|"preview"}
//
// Invariants:
//   - The client names only what to open, never a program or a path: the
//     folder is always the task's own worktree path from its board record,
//     and the program is picked here from a fixed list (or $VISUAL).
//   - Programs are started only for the desktop's own webview (a request
//     marked in-process) with a display; anything else gets a command to
//     copy, every path in it single-quoted for a POSIX shell.
//   - A preview URL is answered only when a TCP connect to 127.0.0.1 on the
//     task's first leased port succeeds.
func (a *API) openRoutes() {
	a.mux.Handle("/api/board/{id}/open", methods{"GET": a.openInfo, "POST": a.openTask})
}

// desktop starts programs on the person's desktop. The zero value is the
// real one; tests put a fake in API.desk.
type desktop struct {
	getenv   func(string) string
	lookPath func(string) (string, error)
	start    func(prog string, args []string, dir string) error
	goos     string
}

func (a *API) desktop() desktop {
	d := a.desk
	if d.getenv == nil {
		d.getenv = os.Getenv
	}
	if d.lookPath == nil {
		d.lookPath = exec.LookPath
	}
	if d.start == nil {
		d.start = startDetached
	}
	if d.goos == "" {
		d.goos = runtime.GOOS
	}
	return d
}

// startDetached starts prog in dir and reaps it when it exits; its output
// goes nowhere.
func startDetached(prog string, args []string, dir string) error {
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// display says whether programs can open windows here.
func (d desktop) display() bool {
	return d.goos == "darwin" || d.getenv("DISPLAY") != "" || d.getenv("WAYLAND_DISPLAY") != ""
}

// terminals are tried in order; each opens a shell in dir (args), or runs
// a command in it (exec).
var terminals = []struct {
	name string
	args func(dir string) []string
	exec func(dir string, cmd []string) []string
}{
	{"x-terminal-emulator", func(string) []string { return nil }, func(_ string, c []string) []string { return append([]string{"-e"}, c...) }},
	{
		"gnome-terminal", func(d string) []string { return []string{"--working-directory=" + d} },
		func(d string, c []string) []string { return append([]string{"--working-directory=" + d, "--"}, c...) },
	},
	{
		"konsole", func(d string) []string { return []string{"--workdir", d} },
		func(d string, c []string) []string { return append([]string{"--workdir", d, "-e"}, c...) },
	},
	{"xterm", func(string) []string { return nil }, func(_ string, c []string) []string { return append([]string{"-e"}, c...) }},
}

// consoleEditors run inside a terminal, not in a window of their own.
var consoleEditors = map[string]bool{
	"vi": true, "vim": true, "nvim": true, "nano": true, "micro": true, "hx": true,
	"helix": true, "kak": true, "emacs": true, "ed": true, "joe": true, "mg": true,
}

// launch picks the program for what and starts it in dir. found is false
// when no fitting program is installed.
func (d desktop) launch(what, dir string) (found bool, err error) {
	switch what {
	case "terminal":
		if d.goos == "darwin" {
			return true, d.start("open", []string{"-a", "Terminal", dir}, dir)
		}
		for _, t := range terminals {
			if p, err := d.lookPath(t.name); err == nil {
				return true, d.start(p, t.args(dir), dir)
			}
		}
	case "editor":
		if v := strings.Fields(d.getenv("VISUAL")); len(v) > 0 {
			if p, err := d.lookPath(v[0]); err == nil {
				cmd := append(append([]string{p}, v[1:]...), dir)
				if !consoleEditors[filepath.Base(v[0])] {
					return true, d.start(p, cmd[1:], dir)
				}
				for _, t := range terminals {
					if tp, err := d.lookPath(t.name); err == nil && d.goos != "darwin" {
						return true, d.start(tp, t.exec(dir, cmd), dir)
					}
				}
			}
		}
		if p, err := d.lookPath("code"); err == nil {
			return true, d.start(p, []string{dir}, dir)
		}
	case "preview":
		opener := "xdg-open"
		if d.goos == "darwin" {
			opener = "open"
		}
		if p, err := d.lookPath(opener); err == nil {
			return true, d.start(p, []string{dir}, "")
		}
	}
	return false, nil
}

// shellQuote quotes s for a POSIX shell: inside single quotes nothing is
// special, and a single quote is closed, escaped and reopened.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// copyCommand is what a person pastes into a terminal to do it by hand.
func copyCommand(what, dir string) string {
	if what == "editor" {
		return "code " + shellQuote(dir)
	}
	return "cd " + shellQuote(dir) + " && $SHELL"
}

// listening reports whether something accepts TCP connections on the port.
func listening(port int) bool {
	if port <= 0 {
		return false
	}
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 500*time.Millisecond)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// openWorktree is the task's live worktree record; ok is false when it has
// answered (no task, no worktree, its folder gone).
func (a *API) openWorktree(w http.ResponseWriter, r *http.Request) (board.Worktree, bool) {
	rec, why, err := a.liveWorktree(r)
	switch {
	case err != nil:
		boardError(w, err)
	case why != "":
		writeJSON(w, http.StatusConflict, map[string]any{"reason": "no_worktree", "error": why})
	default:
		return rec, true
	}
	return board.Worktree{}, false
}

// liveWorktree is the task's worktree record when its folder is there to
// open; otherwise why not, in words (err: no such task, or the board failed).
func (a *API) liveWorktree(r *http.Request) (board.Worktree, string, error) {
	ctx, id := r.Context(), r.PathValue("id")
	if _, err := a.opts.Board.Get(ctx, id); err != nil {
		return board.Worktree{}, "", err
	}
	rec, err := a.opts.Board.Worktree(ctx, id)
	if errors.Is(err, board.ErrNotFound) || (err == nil && rec.Status == "archived") {
		return board.Worktree{}, "the task has no worktree to open: it has not run yet, or its work was merged or closed", nil
	}
	if err != nil {
		return board.Worktree{}, "", err
	}
	if st, err := os.Stat(rec.Path); err != nil || !st.IsDir() {
		return board.Worktree{}, "the task's worktree folder is not there any more: " + rec.Path, nil
	}
	return rec, "", nil
}

func firstPort(rec board.Worktree) int {
	if len(rec.Ports) == 0 {
		return 0
	}
	return rec.Ports[0]
}

// openInfo says what the drawer can offer: whether there is a worktree to
// open (available; why not in words), its path, whether this client is the
// desktop (programs open) or a browser (commands to copy), and the preview
// port with whether something listens on it. A task without a live
// worktree is a 200 with available false: the drawer asks whenever a task
// changes, and that is an answer, not an error.
func (a *API) openInfo(w http.ResponseWriter, r *http.Request) {
	rec, why, err := a.liveWorktree(r)
	if err != nil {
		boardError(w, err)
		return
	}
	if why != "" {
		writeJSON(w, http.StatusOK, map[string]any{"available": false, "why": why})
		return
	}
	port := firstPort(rec)
	writeJSON(w, http.StatusOK, map[string]any{
		"available": true, "path": rec.Path, "desktop": inProcess(r) && a.desktop().display(),
		"previewPort": port, "previewListening": listening(port),
	})
}

func (a *API) openTask(w http.ResponseWriter, r *http.Request) {
	var b struct {
		What string `json:"what"`
	}
	if !decodeJSON(w, r, &b) {
		return
	}
	if b.What != "terminal" && b.What != "editor" && b.What != "preview" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"reason": "invalid", "error": "what must be terminal, editor or preview"})
		return
	}
	rec, ok := a.openWorktree(w, r)
	if !ok {
		return
	}
	d := a.desktop()
	here := inProcess(r) && d.display()
	if b.What == "preview" {
		port := firstPort(rec)
		if port == 0 {
			writeJSON(w, http.StatusConflict, map[string]any{"reason": "no_ports", "error": "the task holds no ports, so it has no preview"})
			return
		}
		if !listening(port) {
			writeJSON(w, http.StatusConflict, map[string]any{
				"reason": "not_listening",
				"error":  "nothing listens on port " + strconv.Itoa(port) + " yet: the task's setup has not started a server there",
			})
			return
		}
		url := "http://127.0.0.1:" + strconv.Itoa(port)
		opened := false
		if here {
			if found, err := d.launch("preview", url); found && err == nil {
				opened = true
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{"opened": opened, "url": url})
		return
	}
	ans := map[string]any{"opened": false, "command": copyCommand(b.What, rec.Path)}
	if here {
		found, err := d.launch(b.What, rec.Path)
		switch {
		case err != nil:
			a.opts.Log.Warn("could not open the worktree", "what", b.What, "task", rec.TaskID, "err", err)
			ans["why"] = "Starting the " + b.What + " failed: " + err.Error()
		case !found && b.What == "terminal":
			ans["why"] = "No terminal was found (x-terminal-emulator, gnome-terminal, konsole or xterm)."
		case !found:
			ans["why"] = "No editor was found: set $VISUAL, or install VS Code's `code` command."
		default:
			writeJSON(w, http.StatusOK, map[string]any{"opened": true})
			return
		}
	}
	writeJSON(w, http.StatusOK, ans)
}
