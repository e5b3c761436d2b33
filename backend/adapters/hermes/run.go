package hermes

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
)

// childEnvNames is what a Hermes child may see of the server's
// environment: proc's base set, and what a pip or pipx install of a Python
// program needs to start and to verify TLS.
func childEnvNames() []string {
	return slices.Concat(proc.BaseEnv(), proc.PythonEnv(), proc.TLSEnv(), proc.XDGEnv())
}

// run is one host run: one or more hermes processes in sequence.
type run struct {
	a    *Adapter
	req  executor.StartRequest
	em   *executor.Emitter
	ctx  context.Context
	bin  string
	home home

	mu      sync.Mutex
	child   *proc.Child
	steers  []string
	aborted bool
	ended   bool
	session string // the latest Hermes session id
	// reported is the session last reported as the resume handle (loop
	// goroutine only).
	reported string
}

func newRun(ctx context.Context, a *Adapter, req executor.StartRequest, bin string, h home) *run {
	return &run{a: a, req: req, em: req.Emitter, ctx: ctx, bin: bin, home: h}
}

func (r *run) ID() executor.RunID            { return r.req.RunID }
func (r *run) Events() <-chan executor.Event { return r.em.Events() }

// Abort stops the running process (SIGTERM to its group, SIGKILL after the
// grace period); the run ends in Done{aborted}.
func (r *run) Abort(context.Context) error {
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		return nil
	}
	r.aborted = true
	c := r.child
	r.mu.Unlock()
	if c != nil {
		c.Stop()
	}
	return nil
}

// SetModel is ignored: the model is fixed when a process starts.
func (*run) SetModel(context.Context, string) error { return nil }

// WriteContext writes value to .clawboo/context/<key>.md inside the run's
// working folder, where Hermes's file tools can read it; a run without a
// working folder writes nothing.
func (r *run) WriteContext(_ context.Context, key, value string) error {
	return executor.WriteContextFile(r.req.WorkDir, key, value)
}

// Steer with mode next stops the running process and resumes its session
// with the text as the next message, in this same run; steers that arrive
// while no process runs go in when the current one ends. A passive steer is
// refused: delivering it would stop the run.
func (r *run) Steer(_ context.Context, s executor.Steer) (executor.SteerResult, error) {
	text := strings.TrimSpace(s.Text)
	if s.Mode == executor.SteerPassive || text == "" {
		return executor.SteerRejected, nil
	}
	r.mu.Lock()
	if r.ended || r.aborted {
		r.mu.Unlock()
		return executor.SteerRunEnded, nil
	}
	r.steers = append(r.steers, text)
	c := r.child
	r.mu.Unlock()
	if c == nil {
		return executor.SteerQueued, nil
	}
	c.Stop()
	return executor.SteerDelivered, nil
}

// emit sends one event; false means the host is gone and the run should
// wind down.
func (r *run) emit(ev executor.Event) bool { return r.em.Emit(r.ctx, ev) == nil }

// finish marks the run ended and removes a throwaway home, before the
// host can see the end.
func (r *run) finish() {
	r.mu.Lock()
	r.ended = true
	r.mu.Unlock()
	r.home.cleanup()
}

// abandon ends a stream the host stopped reading, without a Done.
func (r *run) abandon() {
	r.finish()
	r.em.Close()
}

// end emits the terminal events (an error first for a failure).
func (r *run) end(reason executor.DoneReason, summary, errMsg string) {
	r.finish()
	if errMsg != "" {
		r.emit(executor.Error("", errMsg, true))
	}
	if r.emit(executor.Done(reason, summary)) {
		return
	}
	r.em.Close() // the host stopped reading: end the stream without a Done
}

// loop runs processes until the run ends.
func (r *run) loop() {
	defer r.finish() // also on a panic
	configured := configuredProvider(r.home.Path)
	choice, ok := Choose(configured, r.req.Model, func(v string) string {
		if k := r.req.Env[v]; k != "" {
			return k
		}
		return r.a.opts.Key(r.ctx, v)
	})
	if !ok {
		msg := "no Hermes provider: connect an OpenRouter, Anthropic or OpenAI key, or set model.provider in ~/.hermes/config.yaml"
		r.end(executor.DoneError, msg, msg)
		return
	}
	detail := "provider " + choice.Flag
	if choice.Flag == "" {
		detail = "provider from config.yaml (" + choice.Configured + ")"
	}
	if !r.emit(executor.Event{Kind: executor.KindStatus, Phase: executor.PhaseInit, Model: choice.Model, Detail: detail}) {
		r.abandon()
		return
	}
	env := r.childEnv(choice)
	prompt := r.req.Message
	if c := strings.TrimSpace(r.req.Context); c != "" {
		prompt = c + "\n\n" + r.req.Message
	}
	resume := r.initialResume()
	summary := ""
	for {
		seg, err := r.segment(prompt, resume, choice, env)
		if err != nil {
			msg := "hermes could not start: " + err.Error()
			r.end(executor.DoneError, msg, msg)
			return
		}
		if seg.text != "" {
			summary = seg.text
		}
		r.mu.Lock()
		next := ""
		if !r.aborted && seg.fault == "" && !seg.hostGone && len(r.steers) > 0 {
			next = strings.Join(r.steers, "\n\n")
			r.steers = nil
		}
		if next == "" {
			r.ended = true
		}
		aborted, session := r.aborted, r.session
		r.mu.Unlock()
		switch {
		case seg.hostGone:
			r.abandon()
			return
		case aborted:
			r.end(executor.DoneAborted, firstNonEmpty(trimSummary(summary), "aborted"), "")
			return
		case next != "" && session == "":
			msg := "hermes stopped for a steer without reporting its session id, so the steer cannot resume it"
			r.end(executor.DoneError, msg, msg)
			return
		case next != "":
			if !r.emit(executor.Status(executor.PhaseRunning, "steer: resuming the Hermes session with the new message")) {
				r.abandon()
				return
			}
			prompt, resume = next, session
			continue
		}
		reason, msg := seg.verdict()
		if reason == executor.DoneSuccess {
			r.end(reason, trimSummary(summary), "")
		} else {
			r.end(reason, msg, msg)
		}
		return
	}
}

// initialResume is the session to continue: the host's handle, when it was
// made in this agent's own (already existing) home.
func (r *run) initialResume() string {
	h := decodeHandle(r.req.Resume)
	if r.home.Throwaway || r.home.Created || !usableSession(h.Session) {
		return ""
	}
	if h.Agent != "" && h.Agent != r.req.AgentID {
		return ""
	}
	r.mu.Lock()
	r.session = h.Session
	r.mu.Unlock()
	return h.Session
}

// childEnv is the allowlisted environment plus HERMES_HOME, the program's
// folder first on PATH, and the chosen provider's key alone.
func (r *run) childEnv(c Choice) []string {
	environ := r.a.opts.Environ()
	path := ""
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	extra := map[string]string{
		"HERMES_HOME": r.home.Path, "PYTHONUNBUFFERED": "1",
		"PATH": strings.TrimSuffix(filepath.Dir(r.bin)+string(os.PathListSeparator)+path, string(os.PathListSeparator)),
	}
	for k, v := range r.req.Env {
		if !keyVar(k) && k != "HERMES_HOME" {
			extra[k] = v
		}
	}
	if c.EnvVar != "" {
		extra[c.EnvVar] = c.Key
	}
	return proc.AllowEnv(environ, childEnvNames(), nil, extra)
}

// args is the command line of one process.
func args(prompt, resume string, c Choice) []string {
	a := []string{"chat", "-q", prompt, "-Q", "--yolo", "--accept-hooks"}
	if c.Model != "" {
		a = append(a, "-m", c.Model)
	}
	if resume != "" {
		a = append(a, "--resume", resume)
	}
	if c.Flag != "" {
		a = append(a, "--provider", c.Flag)
	}
	return a
}

func trimSummary(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxSummary {
		s = s[:maxSummary] + "…"
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
