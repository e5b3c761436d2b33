package hermes

import (
	"fmt"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
	"github.com/clawboo/desktop/backend/redact"
)

// Bounds of what a segment keeps to explain a failure.
const (
	tailLines = 6
	tailWidth = 300
	batchMax  = 32 << 10 // text coalesced into one event while lines are queued
)

// segResult is how one process went.
type segResult struct {
	exit     proc.Exit
	text     string // this process's response (bounded)
	wrote    bool   // it wrote any response text
	errMsg   string // its last "Error:" line
	tail     []string
	fault    string // why the adapter stopped it (flood, silence)
	hostGone bool   // the host stopped reading or its context ended
}

// segment runs one process to its end, reporting its output as events.
func (r *run) segment(prompt, resume string, c Choice, env []string) (segResult, error) {
	var res segResult
	r.mu.Lock()
	if r.aborted {
		r.mu.Unlock()
		return res, nil
	}
	child, err := proc.Start(r.ctx, proc.Spec{
		Path: r.bin, Args: args(prompt, resume, c), Dir: r.req.WorkDir, Env: env,
		Grace: r.a.opts.Grace, MaxLine: maxLine,
	})
	if err != nil {
		r.mu.Unlock()
		return res, err
	}
	r.child = child
	r.mu.Unlock()

	r.consume(child, c, &res)
	res.exit = child.Wait()
	child.Stop() // reap what the program left in its group
	r.mu.Lock()
	r.child = nil
	r.mu.Unlock()
	if r.ctx.Err() != nil {
		res.hostGone = true
	}
	return res, nil
}

// consume reads the process's lines until both streams end: stdout text
// becomes text events (lines queued together go in one event), the session
// line becomes the resume handle, and the rest is kept, bounded, to explain
// a failure. A flood or a silence stops the process; its exit stops its
// group, so nothing it started outlives it.
func (r *run) consume(child *proc.Child, c Choice, res *segResult) {
	lines := child.Lines()
	exited := child.Done()
	var silence <-chan time.Time
	var timer *time.Timer
	if d := r.a.opts.Silence; d > 0 {
		timer = time.NewTimer(d)
		defer timer.Stop()
		silence = timer.C
	}
	var total int64
	var text, batch strings.Builder
	scrub := hideKey(c.Key)
	stop := func(fault string) {
		if res.fault == "" && !res.hostGone {
			res.fault = fault
		}
		child.Stop()
	}
	flush := func() {
		if batch.Len() == 0 {
			return
		}
		if !res.hostGone && res.fault == "" && !r.emit(executor.Text(scrub(batch.String()))) {
			res.hostGone = true
			child.Stop()
		}
		batch.Reset()
	}
	for {
		select {
		case <-exited:
			// The program is gone: whatever it left in its group (a
			// crashed run's helpers) goes too, and the pipes they hold close.
			exited = nil
			child.Stop()
			continue
		case <-silence:
			stop(fmt.Sprintf("hermes wrote nothing for %s; stopped it", r.a.opts.Silence))
			continue
		case l, ok := <-lines:
			if !ok {
				flush()
				res.text = text.String()
				return
			}
			if timer != nil {
				timer.Reset(r.a.opts.Silence)
			}
			total += int64(len(l.Text)) + 1
			if total > r.a.opts.MaxOutput {
				batch.Reset()
				stop(fmt.Sprintf("hermes wrote more than %d bytes of output; stopped it", r.a.opts.MaxOutput))
			}
			if res.fault != "" || res.hostGone {
				continue // drain what is left, report nothing more
			}
			f := frameOf(l)
			if f.Kind != FrameText {
				flush()
			}
			switch f.Kind {
			case FrameText:
				res.wrote = true
				batch.WriteString(f.Text)
				if text.Len() < maxSummary+1 {
					text.WriteString(f.Text)
				}
				if len(lines) == 0 || batch.Len() >= batchMax {
					flush()
				}
			case FrameSession:
				r.sessionSeen(f.Session, c.Model, res, child)
			case FrameError:
				res.errMsg = scrub(redact.Secrets(cut(f.Text)))
			case FrameDiagnostic:
				if t := strings.TrimSpace(f.Text); t != "" {
					res.keepTail(scrub(redact.Secrets(cut(t))))
				}
			}
		}
	}
}

// sessionSeen records a session id and reports it as the resume handle
// when it is new.
func (r *run) sessionSeen(id, model string, res *segResult, child *proc.Child) {
	if !usableSession(id) {
		return
	}
	r.mu.Lock()
	r.session = id
	r.mu.Unlock()
	if id == r.reported || r.home.Throwaway {
		return // a throwaway home's sessions are gone when the run ends
	}
	r.reported = id
	if !r.emit(executor.SessionStarted(encodeHandle(r.req.AgentID, id), model)) {
		res.hostGone = true
		child.Stop()
	}
}

func cut(s string) string {
	if len(s) > tailWidth {
		return s[:tailWidth] + "…"
	}
	return s
}

// verdict is how a finished process ends the run when no steer follows.
func (s segResult) verdict() (executor.DoneReason, string) {
	if s.fault != "" {
		return executor.DoneError, s.fault
	}
	detail := s.errMsg
	if detail == "" {
		detail = strings.Join(s.tail, " | ")
	}
	var msg string
	switch {
	case s.exit.Signal != "":
		msg = "hermes was killed by signal " + s.exit.Signal
	case s.exit.Err != nil:
		msg = "hermes: " + s.exit.Err.Error()
	case s.exit.Code == 0 && s.wrote:
		return executor.DoneSuccess, ""
	case s.exit.Code == 0:
		msg = "hermes exited without a reply"
	case s.exit.Code == 130:
		msg = "hermes was interrupted (exit 130)"
	default:
		msg = fmt.Sprintf("hermes failed (exit %d)", s.exit.Code)
	}
	if detail != "" {
		msg += ": " + detail
	}
	return executor.DoneError, msg
}

// frameOf reads one line of hermes's output as a frame.
func frameOf(l proc.Line) Frame {
	if l.Stderr {
		return ParseStderr(l.Text)
	}
	return ParseStdout(l.Text)
}

// keepTail keeps a diagnostic line, the last tailLines of them.
func (res *segResult) keepTail(line string) {
	res.tail = append(res.tail, line)
	if len(res.tail) > tailLines {
		res.tail = res.tail[1:]
	}
}

// hideKey replaces the run's provider key wherever hermes echoes it.
func hideKey(key string) func(string) string {
	return func(s string) string {
		if key != "" && strings.Contains(s, key) {
			s = strings.ReplaceAll(s, key, "[REDACTED]")
		}
		return s
	}
}
