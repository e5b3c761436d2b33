package codex

import (
	"fmt"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
)

// execArgs is the `codex exec --json` command line for a run: a new
// thread, or `exec resume <thread>` to continue one. MCP servers come
// from the home's config.toml.
func (r *run) execArgs() []string {
	args := []string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "-C", r.dir()}
	if r.req.Model != "" {
		args = append(args, "-m", r.req.Model)
	}
	if r.handle.Thread != "" {
		return append(args, "resume", "--", r.handle.Thread, r.prompt())
	}
	return append(args, "--", r.prompt())
}

// execRun runs the turn as one `codex exec --json` process. Its stdin is
// empty (exec would otherwise wait for more input); a steer is refused. A
// resume of a thread this home does not have starts a new thread.
func (r *run) execRun() {
	if !r.execOnce() {
		return
	}
	r.emit(executor.Status(executor.PhaseInit, "could not resume the Codex thread ("+r.tail()+"); starting a new one"))
	r.handle = Handle{}
	r.stderr = nil
	r.execOnce()
}

// execOnce runs one exec process; it returns true when a resume failed
// because the thread is gone (nothing was reported yet).
func (r *run) execOnce() (gone bool) {
	c, err := proc.Start(r.ctx, proc.Spec{
		Path: r.bin, Args: r.execArgs(), Dir: r.dir(), Env: r.env,
		Grace: r.a.opts.Grace, MaxLine: r.a.opts.MaxLine,
	})
	if err != nil {
		r.fail("start codex exec: " + err.Error())
		return false
	}
	// After the result the process is let go: its output drained, and a
	// stop once the grace period is over.
	defer func() {
		go func() {
			for range c.Lines() {
			}
		}()
		r.reap(c)
	}()
	m := ExecMapper{Model: r.model, Prev: r.handle.Totals}
	lines, aborted := c.Lines(), r.aborted
	n := 0
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				exit := c.Wait()
				if r.isAborted() {
					r.emit(executor.Done(executor.DoneAborted, "aborted"))
					return false
				}
				if r.handle.Thread != "" && m.Thread == "" && strings.Contains(r.tail(), "no rollout found") {
					return true
				}
				r.fail(fmt.Sprintf("codex exec exited without a result (%s): %s", exitText(exit), r.tail()))
				return false
			}
			if l.Stderr {
				r.keepStderr(l.Text)
				continue
			}
			r.lastLine.Store(time.Now().UnixNano())
			if n++; n > r.a.opts.MaxLines {
				r.fail(fmt.Sprintf("codex sent more than %d lines without finishing the turn", r.a.opts.MaxLines))
				return false
			}
			evs, done := m.Line([]byte(l.Text))
			for _, ev := range evs {
				r.emit(ev)
			}
			if done != nil {
				if r.isAborted() && done.Reason == executor.DoneError {
					d := executor.Done(executor.DoneAborted, "aborted")
					done = &d
				}
				r.emit(*done)
				return false
			}
		case <-aborted:
			c.Stop()
			aborted = nil // keep reading until the process is gone
		case ctl := <-r.ctl:
			ctl.reply <- executor.SteerRejected
		}
	}
}
