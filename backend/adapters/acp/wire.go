package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/redact"
)

// pump carries the child's output: each stdout line must be one JSON
// value no longer than MaxFrame, and is handed to the SDK's reader (w)
// whole; stderr keeps a short tail for the words of a crash. The first
// breach (not JSON, too long, too much) is the run's fault: the child is
// stopped and w is closed, so the connection ends. pump returns when the
// child's output has ended.
func (r *run) pump(c *proc.Child, w *io.PipeWriter) {
	defer w.Close()
	broken := false
	for l := range c.Lines() {
		if l.Stderr {
			r.keepStderr(l.Text)
			continue
		}
		if broken {
			continue // drain, so the child is never blocked on a full pipe
		}
		update, msg := r.checkFrame(l)
		if msg != "" {
			broken = true
			r.setFault(msg)
			c.Stop()
			w.CloseWithError(io.ErrUnexpectedEOF)
			continue
		}
		if strings.TrimSpace(l.Text) == "" {
			continue
		}
		r.frames.Add(1)
		if update && !r.takeSlot() {
			broken = true // the run is over
			continue
		}
		if _, err := io.WriteString(w, l.Text+"\n"); err != nil {
			broken = true // the SDK stopped reading: the connection is over
		}
	}
}

// maxInFlight bounds the session/update notifications handed to the SDK
// and not yet mapped. The SDK queues notifications without waiting (and
// closes the connection past 1,024), so the pump waits here instead: a
// flood slows the agent (its stdout pipe fills) rather than ending the run.
const maxInFlight = 256

// isUpdate says whether a frame is a session/update notification (no
// id), and whether it is JSON at all: one parse serves both.
func isUpdate(frame string) (update, valid bool) {
	if !strings.Contains(frame, `"session/update"`) {
		return false, json.Valid([]byte(frame))
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	err := json.Unmarshal([]byte(frame), &m)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return false, false
	}
	return err == nil && m.Method == "session/update" && len(m.ID) == 0, true
}

// takeSlot waits for room for one more update; false once the run ended.
func (r *run) takeSlot() bool {
	select {
	case r.inFlight <- struct{}{}:
		return true
	case <-r.quit:
		return false
	}
}

// doneSlot frees the slot of one mapped update.
func (r *run) doneSlot() {
	select {
	case <-r.inFlight:
	default:
	}
}

// checkFrame says what is wrong with one stdout line (fault "" when
// nothing) and whether it is a session/update notification.
func (r *run) checkFrame(l proc.Line) (update bool, fault string) {
	if n := r.out.Add(int64(len(l.Text) + 1)); n > r.a.opts.MaxOutput {
		return false, fmt.Sprintf("the agent wrote more than %d MiB; it was stopped", r.a.opts.MaxOutput>>20)
	}
	if l.Truncated {
		return false, fmt.Sprintf("the agent sent a message longer than %d MiB, which is not allowed", r.a.opts.MaxFrame>>20)
	}
	if strings.TrimSpace(l.Text) == "" {
		return false, ""
	}
	update, valid := isUpdate(l.Text)
	if !valid {
		return false, "the agent sent malformed JSON-RPC (a line that is not JSON): " + cut(redact.Secrets(l.Text), 120)
	}
	return update, ""
}

// keepStderr keeps the last lines of stderr, each cut.
func (r *run) keepStderr(s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	r.a.opts.Log.Debug("agent stderr", "run", r.req.RunID, "line", redact.Secrets(cut(s, maxStderrLine)))
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.stderr) == maxStderrLines {
		r.stderr = r.stderr[1:]
	}
	r.stderr = append(r.stderr, cut(s, maxStderrLine))
}

// stderrTail is the last stderr lines, scrubbed, for an error message.
func (r *run) stderrTail() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.stderr)
	return redact.Secrets(strings.Join(r.stderr[max(0, n-3):], " / "))
}

// setFault records the run's first fault.
func (r *run) setFault(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fault == "" {
		r.fault = msg
	}
}

func (r *run) faultText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fault
}
