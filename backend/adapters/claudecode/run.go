package claudecode

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
)

// run is one CLI process (rarely two: see relaunch) and its events.
type run struct {
	a         *Adapter
	req       executor.StartRequest
	em        *executor.Emitter
	bin       string
	dir       string
	removeDir func()
	args      []string
	env       []string
	scrub     scrubber
	resumed   bool
	mark      string // this run's MarkerEnv value: its id and a random suffix

	abortReq  chan struct{}
	abortOnce sync.Once
	// reaped closes when the loop is over: the child is gone, its output
	// drained, its FIFO and throwaway folder removed.
	reaped chan struct{}
	// lastResultAt is when the loop read the latest result line (for the
	// overhead benchmark: result line to done).
	lastResultAt time.Time

	mu       sync.Mutex // guards what Steer, Abort and the loop share
	child    *proc.Child
	stdin    *os.File
	cleanup  func()
	ended    bool            // the final result was taken (or the child is gone)
	aborting bool            // the host asked for a stop
	unread   map[string]bool // steers written but not yet read by the CLI
	tail     stderrTail
}

// launch starts the CLI (resuming session when set) and writes the run's
// message as its first user line.
func (r *run) launch(session string) error {
	args := r.args
	if session != "" {
		args = append(append([]string(nil), args...), "--resume", session)
	}
	child, stdin, cleanup, err := startWithStdin(context.Background(), proc.Spec{
		Path: r.bin, Args: args, Dir: r.dir, Env: r.env, Grace: r.a.opts.AbortGrace, MaxLine: r.a.opts.MaxLine,
	})
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.child, r.stdin, r.cleanup, r.resumed = child, stdin, cleanup, session != ""
	r.mu.Unlock()
	r.a.opts.Log.Debug("claude started", "run", r.req.RunID, "pid", child.Pid(), "dir", r.dir, "resume", session != "")
	msg := r.req.Message
	if c := strings.TrimSpace(r.req.Context); c != "" {
		msg = c + "\n\n" + msg
	}
	if err := r.write(userLine(msg, newUUID(), "")); err != nil {
		r.mu.Lock()
		r.stdin = nil
		r.mu.Unlock()
		r.stop(child, stdin, cleanup)
		return err
	}
	return nil
}

// userLine is a stream-json user message; priority is "" for the run's
// own message, "next" or "later" for a steer.
func userLine(text, uuid, priority string) map[string]any {
	m := map[string]any{
		"type": "user", "session_id": "", "parent_tool_use_id": nil, "uuid": uuid,
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}},
	}
	if priority != "" {
		m["priority"] = priority
	}
	return m
}

// write sends one line to the CLI's stdin, bounded so a wedged child
// cannot hold a caller.
func (r *run) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stdin == nil {
		return os.ErrClosed
	}
	_ = r.stdin.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err = r.stdin.Write(append(b, '\n'))
	return err
}

// closeStdin tells the CLI there is nothing more: it finishes and exits.
func (r *run) closeStdin() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stdin != nil {
		_ = r.stdin.Close()
		r.stdin = nil
	}
}

func (r *run) emit(ev executor.Event) bool {
	return r.em.Emit(context.Background(), r.scrub.event(ev)) == nil
}

func (r *run) emitAll(evs []executor.Event) bool {
	for _, ev := range evs {
		if !r.emit(ev) {
			return false
		}
	}
	return true
}

// loop reads the CLI until the run is over, then reaps it.
func (r *run) loop() {
	defer close(r.reaped)
	defer r.removeDir()
	m := NewMapper()
	var last *Result
	var steerWait, grace <-chan time.Time
	abortReq := r.abortReq
	lines := r.child.Lines()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				r.exited(last)
				return
			}
			if l.Stderr {
				r.tail.add(l.Text)
				continue
			}
			got := time.Now()
			p := m.Line([]byte(l.Text), l.Truncated)
			if !r.emitAll(p.Events) {
				r.reap(true)
				return
			}
			if p.Replay != "" || len(p.Events) > 0 {
				steerWait = nil // the CLI took up what was waiting
			}
			if p.Replay != "" {
				r.mu.Lock()
				delete(r.unread, p.Replay)
				r.mu.Unlock()
			}
			if p.ControlRequest != "" {
				_ = r.write(map[string]any{"type": "control_response", "response": map[string]any{
					"subtype": "error", "request_id": p.ControlRequest, "error": "not supported by Clawboo",
				}})
			}
			if p.Result == nil {
				continue
			}
			r.lastResultAt = got
			res := *p.Result
			if res.NoConversation() && r.resumed && !r.isAborting() {
				if !r.relaunch() {
					return
				}
				m, lines = NewMapper(), r.child.Lines()
				continue
			}
			if c := m.Cost(res); c != nil && !r.emit(*c) {
				r.reap(true)
				return
			}
			last = &res
			if r.finalize() {
				r.finish(res)
				return
			}
			// A steer is still unread: the CLI runs it as a turn of its own.
			if !r.emit(executor.Status(executor.PhaseTurnComplete, "")) {
				r.reap(true)
				return
			}
			steerWait = time.After(r.a.opts.SteerWait)
		case <-abortReq:
			abortReq = nil
			_ = r.write(map[string]any{
				"type": "control_request", "request_id": "clawboo_interrupt_" + newUUID(),
				"request": map[string]any{"subtype": "interrupt"},
			})
			grace = time.After(r.a.opts.AbortGrace)
		case <-grace:
			grace = nil
			r.closeStdin()
			r.child.Stop() // the lines close once the group is gone
		case <-steerWait:
			r.mu.Lock()
			r.ended = true
			r.mu.Unlock()
			r.finish(*last)
			return
		}
	}
}

// finalize decides, atomically with Steer, whether a result ends the run:
// it does unless a steer is still unread (an abort always ends it).
func (r *run) finalize() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.unread) > 0 && !r.aborting {
		return false
	}
	r.ended = true
	return true
}

func (r *run) isAborting() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.aborting
}

// finish ends the run on its final result: stdin closes first (the CLI
// exits on its own), then done goes out, then the child is reaped.
func (r *run) finish(res Result) {
	r.closeStdin()
	r.emitAll(Outcome(res, r.isAborting()))
	r.reap(false)
}

// exited ends a run whose CLI closed its output without a final result.
func (r *run) exited(last *Result) {
	child := r.child
	r.reap(false)
	ex := child.Wait()
	switch {
	case r.isAborting():
		r.emit(executor.Done(executor.DoneAborted, "aborted"))
	case last != nil:
		r.emitAll(Outcome(*last, false))
	default:
		status := fmt.Sprintf("exit status %d", ex.Code)
		if ex.Signal != "" {
			status = "ended by signal: " + ex.Signal
		}
		msg := "runtime ended without a result (claude " + status + ")"
		if t := r.tail.String(); t != "" {
			msg += ": " + t
		}
		r.emitAll([]executor.Event{executor.Error("exit", msg, true), executor.Done(executor.DoneError, msg)})
	}
}

// reap waits for the child to exit after its stdin closed, stopping its
// process group if it takes longer than the grace period (at once when
// kill), drains its output, and removes the stdin FIFO.
func (r *run) reap(kill bool) {
	r.mu.Lock()
	r.ended = true
	child, stdin, cleanup := r.child, r.stdin, r.cleanup
	r.stdin = nil
	r.mu.Unlock()
	if kill {
		child.Stop()
	}
	r.stop(child, stdin, cleanup)
}

// stop closes stdin, gives the child the grace period to exit, then stops
// its group; it returns once the child is reaped and its output drained.
func (r *run) stop(child *proc.Child, stdin *os.File, cleanup func()) {
	if stdin != nil {
		_ = stdin.Close()
	}
	t := time.NewTimer(r.a.opts.AbortGrace)
	defer t.Stop()
	select {
	case <-child.Done():
	case <-t.C:
	}
	child.Stop() // also reaps what the leader left in its group
	for range child.Lines() {
	}
	ex := child.Wait()
	cleanup()
	left := sweep(r.marker(), r.a.opts.AbortGrace)
	r.a.opts.Log.Debug("claude reaped", "run", r.req.RunID, "pid", child.Pid(), "exit", ex.Code, "signal", ex.Signal, "orphans", left)
}

// MarkerEnv names the environment variable that marks every process of a
// run (the CLI and everything it starts), so what the CLI leaves behind
// can be found and stopped.
const MarkerEnv = "CLAWBOO_RUN"

func (r *run) marker() string { return MarkerEnv + "=" + r.mark }

// relaunch replaces a CLI that could not find the session to resume with
// a fresh session in the same folder. False when the run is over.
func (r *run) relaunch() bool {
	r.mu.Lock()
	child, stdin, cleanup := r.child, r.stdin, r.cleanup
	r.stdin = nil
	r.mu.Unlock()
	r.stop(child, stdin, cleanup)
	if !r.emit(executor.Status(executor.PhaseInit, "the previous Claude Code session was not found; starting a new one")) {
		return false
	}
	if err := r.launch(""); err != nil {
		msg := "claude-code: restart without the lost session: " + err.Error()
		r.mu.Lock()
		r.ended = true
		r.mu.Unlock()
		r.emitAll([]executor.Event{executor.Error("start", msg, true), executor.Done(executor.DoneError, msg)})
		return false
	}
	return true
}

// ID implements executor.Run.
func (r *run) ID() executor.RunID { return r.req.RunID }

// Events implements executor.Run.
func (r *run) Events() <-chan executor.Event { return r.em.Events() }

// Abort implements executor.Run: an interrupt control request now, the
// process group stopped after the grace period if the CLI has not ended
// the turn. Harmless after the end.
func (r *run) Abort(context.Context) error {
	r.mu.Lock()
	if !r.ended {
		r.aborting = true
	}
	r.mu.Unlock()
	r.abortOnce.Do(func() { close(r.abortReq) })
	return nil
}

// SetModel implements executor.Run: ignored, the model is fixed when the
// run starts (seed 000).
func (r *run) SetModel(context.Context, string) error { return nil }

// WriteContext implements executor.Run: the note becomes
// .clawboo/context/<key>.md in the run's working folder, which the agent
// can read; nothing happens when the run has no folder of its own.
func (r *run) WriteContext(_ context.Context, key, value string) error {
	return executor.WriteContextFile(r.req.WorkDir, key, value)
}

// Steer implements executor.Run. Both modes are queued on stdin: next is
// read at the CLI's next turn boundary, passive after the current turn.
func (r *run) Steer(_ context.Context, s executor.Steer) (executor.SteerResult, error) {
	text := strings.TrimSpace(s.Text)
	if text == "" {
		return executor.SteerRejected, nil
	}
	priority := "next"
	if s.Mode == executor.SteerPassive {
		priority = "later"
	}
	id := newUUID()
	r.mu.Lock()
	if r.ended || r.aborting || r.stdin == nil {
		r.mu.Unlock()
		return executor.SteerRunEnded, nil
	}
	r.unread[id] = true
	r.mu.Unlock()
	if err := r.write(userLine(text, id, priority)); err != nil {
		r.mu.Lock()
		delete(r.unread, id)
		ended := r.ended
		r.mu.Unlock()
		if ended {
			return executor.SteerRunEnded, nil
		}
		return executor.SteerRejected, fmt.Errorf("write steer: %w", err)
	}
	return executor.SteerQueued, nil
}

// newUUID is a random (version 4) UUID, the form the CLI gives messages.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// stderrTail keeps the last lines the CLI wrote to stderr (bounded), for
// the message of a run that ends without a result.
type stderrTail struct {
	mu    sync.Mutex
	lines []string
}

const tailLines, tailLineLen = 8, 300

func (t *stderrTail) add(s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if len(s) > tailLineLen {
		s = s[:tailLineLen] + "…"
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, s)
	if len(t.lines) > tailLines {
		t.lines = t.lines[len(t.lines)-tailLines:]
	}
}

func (t *stderrTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, " | ")
}
