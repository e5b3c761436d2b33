package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/redact"
)

// frames is the SDK's reader of the agent's stdout, read on the SDK's own
// reading goroutine straight from the pipe (no goroutine or pipe between,
// so an update costs no hand-off of ours): each line must be one JSON
// value no longer than MaxFrame and is handed over whole. The first breach
// (not JSON, too long, too much) is the run's fault: the child is stopped
// and the reader ends, so the connection ends. stderr is read apart
// (stderrTail) for the words of a crash.
type frames struct {
	r     *run
	c     *proc.Child
	in    *bufio.Reader
	ready chan struct{} // closed once the SDK's logger is set
	line  []byte        // the line being read
	buf   []byte        // the frame being handed over, with its newline
	off   int
	err   error
}

func newFrames(r *run, c *proc.Child) *frames {
	return &frames{r: r, c: c, in: bufio.NewReaderSize(c.Stdout(), 64<<10), ready: make(chan struct{})}
}

func (f *frames) Read(p []byte) (int, error) {
	<-f.ready
	for f.off == len(f.buf) {
		if f.err != nil {
			return 0, f.err
		}
		f.next()
	}
	n := copy(p, f.buf[f.off:])
	f.off += n
	return n, nil
}

// next takes the agent's next frame into buf, or sets err.
func (f *frames) next() {
	r := f.r
	truncated, err := f.readLine()
	if len(f.line) == 0 && !truncated && err != nil {
		f.err = err
		return
	}
	update, msg := r.checkFrame(f.line, truncated)
	if msg != "" {
		r.setFault(msg)
		f.c.Stop()
		f.err = io.ErrUnexpectedEOF
		return
	}
	if err != nil {
		f.err = err // the last line had no newline; it still goes
	}
	if len(bytes.TrimSpace(f.line)) == 0 {
		return
	}
	r.frames.Add(1)
	if update && !r.takeSlot() {
		f.err = io.EOF // the run is over
		return
	}
	f.buf = append(append(f.buf[:0], f.line...), '\n')
	f.off = 0
}

// readLine reads one line into f.line without its newline; a line longer
// than MaxFrame stops the reading at once (truncated).
func (f *frames) readLine() (truncated bool, err error) {
	f.line = f.line[:0]
	max := f.r.a.opts.MaxFrame
	for {
		chunk, err := f.in.ReadSlice('\n')
		body := bytes.TrimSuffix(chunk, []byte("\n"))
		if len(f.line)+len(body) > max {
			return true, nil
		}
		f.line = append(f.line, body...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == nil {
			f.line = bytes.TrimSuffix(f.line, []byte("\r"))
		}
		return false, err
	}
}

// readStderr keeps the tail of the agent's stderr until it ends.
func (r *run) readStderr(c *proc.Child) {
	for l := range c.Lines() {
		r.keepStderr(l.Text)
	}
}

// maxInFlight bounds the session/update notifications handed to the SDK
// and not yet mapped. The SDK queues notifications without waiting (and
// closes the connection past 1,024), so the pump waits here instead: a
// flood slows the agent (its stdout pipe fills) rather than ending the run.
const maxInFlight = 256

// isUpdate says whether a frame is a session/update notification (no
// id), and whether it is JSON at all: one parse serves both.
func isUpdate(frame []byte) (update, valid bool) {
	if !bytes.Contains(frame, []byte(`"session/update"`)) {
		return false, json.Valid(frame)
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	err := json.Unmarshal(frame, &m)
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
func (r *run) checkFrame(line []byte, truncated bool) (update bool, fault string) {
	if n := r.out.Add(int64(len(line) + 1)); n > r.a.opts.MaxOutput {
		return false, fmt.Sprintf("the agent wrote more than %d MiB; it was stopped", r.a.opts.MaxOutput>>20)
	}
	if truncated {
		return false, fmt.Sprintf("the agent sent a message longer than %d MiB, which is not allowed", r.a.opts.MaxFrame>>20)
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return false, ""
	}
	update, valid := isUpdate(line)
	if !valid {
		return false, "the agent sent malformed JSON-RPC (a line that is not JSON): " + cut(redact.Secrets(string(line)), 120)
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
