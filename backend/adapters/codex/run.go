package codex

import (
	"context"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
)

// control is a request from the host's goroutine (Steer) to the run's
// loop, which owns all protocol state.
type control struct {
	text  string
	reply chan executor.SteerResult
}

// run is one Codex run.
type run struct {
	a         *Adapter
	req       executor.StartRequest
	em        *executor.Emitter
	bin, home string
	throwaway bool
	mcp       *MCP
	model     string
	env       []string
	handle    Handle

	ctx    context.Context
	cancel context.CancelFunc

	ctl       chan control
	abortOnce sync.Once
	aborted   chan struct{}
	ended     chan struct{} // closed after done (or the stream closed)
	execMode  bool          // set before the fallback starts
	modeMu    sync.Mutex

	stderr []string       // the child's last stderr lines, for a failure message
	kids   sync.WaitGroup // children not yet reaped
	// lastLine is when the child's last stdout line arrived (Unix ns), so
	// a benchmark can time the adapter from the CLI's final line to done.
	lastLine atomic.Int64
}

func (r *run) ID() executor.RunID            { return r.em.RunID() }
func (r *run) Events() <-chan executor.Event { return r.em.Events() }

// Abort asks the turn to stop (turn/interrupt on app-server, a stop of the
// process on exec); the run then ends with done aborted. Harmless after
// the end.
func (r *run) Abort(context.Context) error {
	r.abortOnce.Do(func() { close(r.aborted) })
	return nil
}

// SetModel is ignored: the model is fixed when the run starts.
func (r *run) SetModel(context.Context, string) error { return nil }

// WriteContext writes key's value to .clawboo/context/<key>.md in the run's
// working folder; a run without a folder keeps nothing.
func (r *run) WriteContext(_ context.Context, key, value string) error {
	return executor.WriteContextFile(r.req.WorkDir, key, value)
}

// Steer goes into the live turn with turn/steer. On the exec fallback a
// steer is refused.
func (r *run) Steer(ctx context.Context, s executor.Steer) (executor.SteerResult, error) {
	select {
	case <-r.ended:
		return executor.SteerRunEnded, nil
	default:
	}
	if r.isExec() {
		return executor.SteerRejected, nil
	}
	reply := make(chan executor.SteerResult, 1)
	select {
	case r.ctl <- control{text: s.Text, reply: reply}:
	case <-r.ended:
		return executor.SteerRunEnded, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
	select {
	case res := <-reply:
		return res, nil
	case <-r.ended:
		return executor.SteerRunEnded, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (r *run) isExec() bool {
	r.modeMu.Lock()
	defer r.modeMu.Unlock()
	return r.execMode
}

func (r *run) isAborted() bool {
	select {
	case <-r.aborted:
		return true
	default:
		return false
	}
}

// main drives the run: app-server first, exec when it is unavailable.
func (r *run) main() {
	defer r.cleanup()
	if r.a.opts.Mode != Exec {
		if fallback := r.appServer(); !fallback {
			return
		}
		if r.a.opts.Mode == AppServer {
			r.fail("codex app-server is unavailable: " + r.tail())
			return
		}
		r.emit(executor.Status(executor.PhaseInit, "codex app-server is unavailable; using codex exec"))
	}
	r.modeMu.Lock()
	r.execMode = true
	r.modeMu.Unlock()
	r.execRun()
}

func (r *run) cleanup() {
	if !r.em.Finished() {
		r.fail("codex ended without a result")
	}
	r.em.Close()
	close(r.ended)
	go func() {
		r.kids.Wait()
		r.cancel()
		if r.throwaway {
			os.RemoveAll(r.home)
		}
		r.a.live.Done()
	}()
}

// exiter is a child being let go.
type exiter interface {
	Done() <-chan struct{}
	Stop()
}

// reap lets a child go after the run's result: it has the grace period to
// exit on its own (app-server exits when its stdin closes, exec after its
// last line), then its process group is stopped.
func (r *run) reap(c exiter) {
	r.kids.Add(1)
	go func() {
		defer r.kids.Done()
		t := time.NewTimer(r.a.opts.Grace)
		defer t.Stop()
		select {
		case <-c.Done():
		case <-t.C:
		}
		c.Stop()
		<-c.Done()
	}()
}

// emit sends one event, bounded so a host that stopped reading cannot
// hang the run.
func (r *run) emit(ev executor.Event) bool {
	return r.em.Emit(context.Background(), ev) == nil
}

// fail ends the run with a fatal error.
func (r *run) fail(msg string) {
	msg = r.redact(msg)
	r.emit(executor.Error("codex", msg, true))
	r.emit(executor.Done(executor.DoneError, msg))
}

// prompt is the first user message: the context above the message.
func (r *run) prompt() string {
	if strings.TrimSpace(r.req.Context) == "" {
		return r.req.Message
	}
	return r.req.Context + "\n\n" + r.req.Message
}

// dir is the child's working folder.
func (r *run) dir() string {
	if r.req.WorkDir != "" {
		return r.req.WorkDir
	}
	return r.home
}

// keepStderr remembers the last few stderr lines, cut short.
func (r *run) keepStderr(s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	r.stderr = append(r.stderr, s)
	if len(r.stderr) > 5 {
		r.stderr = r.stderr[len(r.stderr)-5:]
	}
}

// tail is what stderr last said, redacted; codex's warnings are left out
// when there is anything else.
func (r *run) tail() string {
	var lines []string
	for _, l := range r.stderr {
		if !strings.HasPrefix(l, "WARNING:") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		lines = r.stderr
	}
	if len(lines) == 0 {
		return "no output"
	}
	return r.redact(strings.Join(lines, " | "))
}

// redact removes every secret the child was given from s.
func (r *run) redact(s string) string {
	for _, kv := range r.env {
		k, v, _ := strings.Cut(kv, "=")
		if len(v) >= 8 && proc.IsCredentialName(k) {
			s = strings.ReplaceAll(s, v, "[redacted]")
		}
	}
	return s
}
