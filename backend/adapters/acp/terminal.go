package acp

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawboo/desktop/backend/proc"
)

// Terminal bounds.
const (
	maxTerminals      = 16
	maxTerminalOutput = 1 << 20 // bytes kept per terminal (its tail)
)

// terminals are one run's commands started through terminal/create.
type terminals struct {
	r    *run
	mu   sync.Mutex
	next int
	live map[string]*terminal
}

// terminal is one command: its process and its output's tail.
type terminal struct {
	c         *proc.Child
	mu        sync.Mutex
	out       []byte
	limit     int
	truncated bool
	drained   chan struct{}
}

func newTerminals(r *run) *terminals { return &terminals{r: r, live: map[string]*terminal{}} }

// CreateTerminal runs a command, argv only, in the working folder, once a
// person allowed it.
func (c *client) CreateTerminal(ctx context.Context, p acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	r := c.r
	argv := append([]string{p.Command}, p.Args...)
	line := cut(proc.QuoteArgv(argv), 2000)
	dir := r.req.WorkDir
	if p.Cwd != nil && *p.Cwd != "" {
		rel, err := r.path(*p.Cwd)
		if err != nil {
			return acpsdk.CreateTerminalResponse{}, refusal(err)
		}
		dir = filepath.Join(r.req.WorkDir, rel)
	}
	bin, err := r.lookPath(p.Command)
	if err != nil {
		return acpsdk.CreateTerminalResponse{}, refusal(err)
	}
	r.status("waiting for your approval to run: " + cut(line, 200))
	ans := r.ask(ctx, Question{Kind: AskCommand, Title: "Run " + filepath.Base(p.Command), Command: line, Folder: dir})
	if ans.Outcome != Allowed && ans.Outcome != AllowedAlways {
		msg := "the person did not allow running " + cut(line, 200)
		if ans.Note != "" {
			msg += ": " + cut(ans.Note, 300)
		}
		return acpsdk.CreateTerminalResponse{}, refusal(errors.New(msg))
	}
	limit := maxTerminalOutput
	if p.OutputByteLimit != nil && *p.OutputByteLimit >= 0 {
		limit = min(limit, *p.OutputByteLimit)
	}
	id, err := r.terms.start(bin, p.Args, dir, r.terminalEnv(p.Env), limit)
	if err != nil {
		return acpsdk.CreateTerminalResponse{}, refusal(err)
	}
	return acpsdk.CreateTerminalResponse{TerminalId: id}, nil
}

// lookPath finds a command: an absolute path as it is, a bare name on the
// resolver's folders or PATH. A path with a folder in it that is not
// absolute is refused (it would name a file the agent may have written).
func (r *run) lookPath(cmd string) (string, error) {
	switch {
	case cmd == "" || strings.ContainsAny(cmd, "\x00\n"):
		return "", errors.New("no command to run")
	case filepath.IsAbs(cmd):
		return cmd, nil
	case strings.ContainsRune(cmd, filepath.Separator) || strings.ContainsRune(cmd, '/'):
		return "", errors.New("a command must be a program name or an absolute path: " + cut(cmd, 100))
	}
	if p, ok := r.a.opts.Find(cmd); ok {
		return p, nil
	}
	if p, err := exec.LookPath(cmd); err == nil && filepath.IsAbs(p) {
		return p, nil
	}
	return "", errors.New(cut(cmd, 100) + " was not found")
}

// terminalEnv is the allowlisted environment plus what the agent asked
// for, minus any credential or host-owned name.
func (r *run) terminalEnv(vars []acpsdk.EnvVariable) []string {
	extra := map[string]string{}
	for _, v := range vars[:min(len(vars), 64)] {
		if v.Name != "" && !proc.IsCredentialName(v.Name) && !proc.HostOwned(v.Name) && !strings.ContainsAny(v.Name, "=\x00") {
			extra[v.Name] = v.Value
		}
	}
	names := slices.Concat(proc.BaseEnv(), proc.TLSEnv(), proc.XDGEnv())
	return proc.AllowEnv(r.a.opts.Environ(), names, nil, extra)
}

func (t *terminals) start(bin string, args []string, dir string, env []string, limit int) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.live) >= maxTerminals {
		return "", fmt.Errorf("at most %d terminals at once: release one first", maxTerminals)
	}
	c, err := proc.Start(t.r.ctx, proc.Spec{Path: bin, Args: args, Dir: dir, Env: env, Grace: t.r.a.opts.Grace})
	if err != nil {
		return "", fmt.Errorf("could not start %s: %w", filepath.Base(bin), err)
	}
	t.next++
	id := "term-" + strconv.Itoa(t.next)
	term := &terminal{c: c, limit: limit, drained: make(chan struct{})}
	go term.collect()
	t.live[id] = term
	return id, nil
}

// collect keeps the tail of the output within limit bytes.
func (t *terminal) collect() {
	defer close(t.drained)
	for l := range t.c.Lines() {
		t.mu.Lock()
		t.out = append(t.out, l.Text...)
		t.out = append(t.out, '\n')
		if over := len(t.out) - t.limit; over > 0 {
			t.out, t.truncated = append(t.out[:0:0], t.out[over:]...), true
		}
		t.mu.Unlock()
	}
}

func (t *terminals) get(id string) (*terminal, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if term, ok := t.live[id]; ok {
		return term, nil
	}
	return nil, refusal(errors.New("no terminal " + cut(id, 40)))
}

func (t *terminals) closeAll() {
	t.mu.Lock()
	live := t.live
	t.live = map[string]*terminal{}
	t.mu.Unlock()
	for _, term := range live {
		term.c.Stop()
		<-term.c.Done()
	}
}

func exitStatus(x proc.Exit) (*int, *string) {
	if x.Signal != "" {
		s := x.Signal
		return nil, &s
	}
	code := x.Code
	return &code, nil
}

// TerminalOutput is the output so far and, once it ended, how.
func (c *client) TerminalOutput(_ context.Context, p acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	term, err := c.r.terms.get(p.TerminalId)
	if err != nil {
		return acpsdk.TerminalOutputResponse{}, err
	}
	resp := acpsdk.TerminalOutputResponse{}
	select {
	case <-term.c.Done():
		<-term.drained
		code, sig := exitStatus(term.c.Wait())
		resp.ExitStatus = &acpsdk.TerminalExitStatus{ExitCode: code, Signal: sig}
	default:
	}
	term.mu.Lock()
	resp.Output, resp.Truncated = string(term.out), term.truncated
	term.mu.Unlock()
	return resp, nil
}

// WaitForTerminalExit waits for the command to end.
func (c *client) WaitForTerminalExit(ctx context.Context, p acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	term, err := c.r.terms.get(p.TerminalId)
	if err != nil {
		return acpsdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-term.c.Done():
	case <-ctx.Done():
		return acpsdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
	code, sig := exitStatus(term.c.Wait())
	return acpsdk.WaitForTerminalExitResponse{ExitCode: code, Signal: sig}, nil
}

// KillTerminal stops the command; its output stays readable.
func (c *client) KillTerminal(_ context.Context, p acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	term, err := c.r.terms.get(p.TerminalId)
	if err != nil {
		return acpsdk.KillTerminalResponse{}, err
	}
	term.c.Stop()
	return acpsdk.KillTerminalResponse{}, nil
}

// ReleaseTerminal stops the command and forgets it.
func (c *client) ReleaseTerminal(_ context.Context, p acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	t := c.r.terms
	t.mu.Lock()
	term, ok := t.live[p.TerminalId]
	delete(t.live, p.TerminalId)
	t.mu.Unlock()
	if !ok {
		return acpsdk.ReleaseTerminalResponse{}, refusal(errors.New("no terminal " + cut(p.TerminalId, 40)))
	}
	term.c.Stop()
	return acpsdk.ReleaseTerminalResponse{}, nil
}
