package runtimes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
)

// InstallEvent is one event of an install stream (seed 002): progress
// {step, message}, output {line}, error {code, message}, complete {success,
// warning?}.
type InstallEvent struct {
	Type    string `json:"type"`
	Step    string `json:"step,omitempty"`
	Message string `json:"message,omitempty"`
	Line    string `json:"line,omitempty"`
	Stream  string `json:"stream,omitempty"`
	Code    string `json:"code,omitempty"`
	Success *bool  `json:"success,omitempty"`
	Warning string `json:"warning,omitempty"`
}

// Errors an install can be refused with before any stream opens.
var (
	ErrUnknownRuntime = errors.New("unknown runtime")
	ErrBuiltIn        = errors.New("built in")
	ErrInstalling     = errors.New("already installing")
)

// BeginInstall checks that an install of id may start and claims the
// runtime's install slot; call the returned function to run it. It fails
// with ErrUnknownRuntime, ErrBuiltIn or ErrInstalling.
func (c *Catalog) BeginInstall(id executor.ID) (func(ctx context.Context, emit func(InstallEvent)), error) {
	d, ok := c.Descriptor(id)
	if !ok || d.ID == executor.Mock {
		return nil, ErrUnknownRuntime
	}
	if d.BuiltIn || d.Installer == "" {
		return nil, ErrBuiltIn
	}
	c.mu.Lock()
	if c.installing[id] {
		c.mu.Unlock()
		return nil, ErrInstalling
	}
	c.installing[id] = true
	c.mu.Unlock()
	c.opts.OnChange()
	return func(ctx context.Context, emit func(InstallEvent)) {
		defer func() {
			c.mu.Lock()
			delete(c.installing, id)
			c.mu.Unlock()
			if c.opts.Resolver != nil {
				c.opts.Resolver.Invalidate()
			}
			c.opts.OnChange()
		}()
		c.install(ctx, d, emit)
	}, nil
}

func (c *Catalog) install(ctx context.Context, d Descriptor, emit func(InstallEvent)) {
	emit(InstallEvent{Type: "progress", Step: "installing", Message: "Installing " + d.Name + "…"})
	var ok bool
	switch d.Installer {
	case InstallNpm:
		ok = c.installNpm(ctx, d, emit)
	case InstallPip:
		ok = c.installPip(ctx, d, emit)
	}
	if !ok {
		return
	}
	if c.opts.Resolver != nil {
		c.opts.Resolver.Invalidate()
	}
	done := true
	ev := InstallEvent{Type: "complete", Success: &done}
	if _, found := c.find(*d.HealthBin); !found {
		ev.Warning = fmt.Sprintf("%s was installed, but `%s` is not on PATH or in the user install folders yet; "+
			"add the installer's bin folder to PATH, then restart Clawboo", d.Name, *d.HealthBin)
	}
	emit(ev)
}

func (c *Catalog) installNpm(ctx context.Context, d Descriptor, emit func(InstallEvent)) bool {
	npm, ok := c.find("npm")
	if !ok {
		emit(InstallEvent{Type: "error", Code: "NPM_MISSING", Message: "npm was not found. Install Node.js (which includes npm), then try again."})
		return false
	}
	code := c.runInstaller(ctx, npm, []string{"install", "-g", d.Package}, *d.InstallCommand, npmAdvice, emit, nil)
	return code == ""
}

func (c *Catalog) installPip(ctx context.Context, d Descriptor, emit func(InstallEvent)) bool {
	if pipx, ok := c.find("pipx"); ok {
		emit(InstallEvent{Type: "progress", Step: "installing", Message: "Installing via pipx…"})
		return c.runInstaller(ctx, pipx, []string{"install", d.Package}, *d.InstallCommand, pipAdvice, emit, nil) == ""
	}
	python, ok := c.find("python3")
	if !ok {
		python, ok = c.find("python")
	}
	if !ok {
		emit(InstallEvent{Type: "error", Code: "PYTHON_MISSING", Message: "Neither pipx nor Python was found. Install pipx (recommended) or Python 3, then try again."})
		return false
	}
	emit(InstallEvent{Type: "progress", Step: "installing", Message: "pipx not found; installing with pip --user…"})
	args := []string{"-m", "pip", "install", "--user", d.Package}
	managed := false
	code := c.runInstaller(ctx, python, args, "python -m pip install --user '"+d.Package+"'", pipAdvice, emit, &managed)
	if code != "" && managed {
		emit(InstallEvent{Type: "progress", Step: "retrying", Message: "This Python is externally managed (PEP 668); retrying once with --break-system-packages…"})
		code = c.runInstaller(ctx, python, append(args, "--break-system-packages"), "python -m pip install --user --break-system-packages '"+d.Package+"'", pipAdvice, emit, nil)
	}
	return code == ""
}

// runInstaller runs one installer, streaming its output, and returns "" on
// success or the error code it emitted. When retry is non-nil, an
// externally-managed Python failure is reported through it instead of as a
// final error, so the caller can retry.
// The better way than sudo, per installer family.
const (
	npmAdvice = "use a Node version manager (nvm or fnm) or Homebrew, so global installs need no sudo"
	pipAdvice = "install as your own user with pipx (recommended) or `python -m pip install --user`, which need no sudo"
)

func (c *Catalog) runInstaller(ctx context.Context, bin string, args []string, shown, advice string, emit func(InstallEvent), retry *bool) (code string) {
	defer func() {
		if p := recover(); p != nil {
			code = "SPAWN_THROW"
			emit(InstallEvent{Type: "error", Code: code, Message: fmt.Sprintf("could not start the installer: %v", p)})
		}
	}()
	child, err := proc.Start(ctx, proc.Spec{Path: bin, Args: args, Env: c.childEnv(nil), Grace: 3 * time.Second})
	if err != nil {
		emit(InstallEvent{Type: "error", Code: "SPAWN_ERROR", Message: fmt.Sprintf("could not start %s: %v", bin, err)})
		return "SPAWN_ERROR"
	}
	eacces, managed := false, false
	for l := range child.Lines() {
		ev := InstallEvent{Type: "output", Line: l.Text, Stream: "stdout"}
		if l.Stderr {
			ev.Stream = "stderr"
		}
		emit(ev)
		lower := strings.ToLower(l.Text)
		if strings.Contains(lower, "externally-managed-environment") {
			managed = true
		}
		if l.Stderr && !eacces && (strings.Contains(l.Text, "EACCES") || strings.Contains(lower, "permission denied")) {
			eacces = true
			emit(InstallEvent{Type: "error", Code: "EACCES", Message: "Permission denied while installing. " +
				"Try: sudo " + shown + " — or better, " + advice + "."})
		}
	}
	ex := child.Wait()
	switch {
	case ctx.Err() != nil:
		return "CANCELLED" // the client went away; nobody is listening
	case ex.Code == 0 && ex.Err == nil:
		return ""
	case retry != nil && managed:
		*retry = true
		return "EXIT_MANAGED"
	}
	code = fmt.Sprintf("EXIT_%d", ex.Code)
	msg := fmt.Sprintf("The installer exited with status %d.", ex.Code)
	if ex.Signal != "" {
		code = "EXIT_" + strings.ToUpper(strings.ReplaceAll(ex.Signal, " ", "_"))
		msg = "The installer was stopped by a signal (" + ex.Signal + ")."
	}
	emit(InstallEvent{Type: "error", Code: code, Message: msg})
	return code
}
