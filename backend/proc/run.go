package proc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Spec describes a child process.
type Spec struct {
	Path string
	Args []string // not including the program
	Dir  string
	Env  []string // the whole environment (see AllowEnv); nil means empty
	// Grace is how long a stop waits between SIGTERM and SIGKILL (default 3 s).
	Grace time.Duration
	// MaxLine bounds one output line; longer lines are cut (default 64 KiB).
	MaxLine int
	// Stdin gives the child a pipe for its standard input, written through
	// Child.Stdin (for programs driven over stdio); without it the child
	// reads from /dev/null.
	Stdin bool
	// RawStdout leaves standard output unsplit: the caller reads it through
	// Child.Stdout on its own goroutine (a framed protocol, one hand-off
	// fewer per message), and Lines carries standard error only. The pipe
	// is closed once the caller read it to its end, or a grace after the
	// child exited (a grandchild may hold it open).
	RawStdout bool
}

// Line is one line of a child's output, without its newline.
type Line struct {
	Stderr    bool
	Text      string
	Truncated bool // the line was longer than MaxLine; the rest was dropped
}

// Exit is how a child ended.
type Exit struct {
	Code   int    // exit status; -1 when killed by a signal or never started
	Signal string // the signal that killed it, if any
	Err    error  // a wait error other than a non-zero exit
}

// Child is a running process in its own process group, so stopping it also
// stops whatever it started.
type Child struct {
	cmd      *exec.Cmd
	grace    time.Duration
	lines    chan Line
	done     chan struct{}
	exit     Exit
	stopOnce sync.Once
	stdin    *os.File // the write end of the child's stdin (Spec.Stdin), else nil
	stdout   *rawOut  // the child's stdout (Spec.RawStdout), else nil
}

// Start launches the child. Cancelling ctx stops it (SIGTERM to its group,
// SIGKILL after the grace period). The caller must drain Lines and call Wait.
func Start(ctx context.Context, s Spec) (*Child, error) {
	if s.Grace <= 0 {
		s.Grace = 3 * time.Second
	}
	if s.MaxLine <= 0 {
		s.MaxLine = 64 << 10
	}
	cmd := exec.Command(s.Path, s.Args...)
	cmd.Dir = s.Dir
	cmd.Env = s.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	InGroup(cmd)
	outR, outW, errR, errW, inR, inW, err := childPipes(s.Stdin)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	if inR != nil {
		cmd.Stdin = inR
	}
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if inR != nil {
		inR.Close()
	}
	if err != nil {
		outR.Close()
		errR.Close()
		if inW != nil {
			inW.Close()
		}
		return nil, err
	}
	c := &Child{cmd: cmd, grace: s.Grace, lines: make(chan Line, 64), done: make(chan struct{}), stdin: inW}
	var readers sync.WaitGroup
	readers.Add(1)
	if s.RawStdout {
		c.stdout = &rawOut{f: outR, ended: make(chan struct{})}
	} else {
		readers.Add(1)
		go c.scan(outR, false, s.MaxLine, &readers)
	}
	go c.scan(errR, true, s.MaxLine, &readers)
	drained := make(chan struct{})
	go func() {
		readers.Wait()
		close(c.lines)
		if c.stdout != nil {
			<-c.stdout.ended
		}
		close(drained)
	}()
	go func() {
		err := cmd.Wait()
		c.exit = exitOf(cmd, err)
		close(c.done)
		// A grandchild that kept the pipes open must not keep the reader
		// waiting forever: give it the grace period, then cut the pipes.
		t := time.NewTimer(c.grace + time.Second)
		defer t.Stop()
		select {
		case <-drained:
		case <-t.C:
		}
		outR.Close()
		if c.stdout != nil {
			c.stdout.once.Do(func() { close(c.stdout.ended) }) // a reader that stopped early ends here
		}
		errR.Close()
		if inW != nil {
			inW.Close() // a write after the child is gone fails instead of blocking
		}
	}()
	go func() {
		select {
		case <-ctx.Done():
			c.Stop()
		case <-c.done:
		}
	}()
	return c, nil
}

func (c *Child) scan(r io.Reader, stderr bool, max int, wg *sync.WaitGroup) {
	defer wg.Done()
	br := bufio.NewReaderSize(r, 4096)
	var buf []byte
	truncated := false
	emit := func() {
		c.lines <- Line{Stderr: stderr, Text: string(buf), Truncated: truncated}
		buf, truncated = buf[:0], false
	}
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			body := chunk
			if body[len(body)-1] == '\n' {
				body = body[:len(body)-1]
			}
			if room := max - len(buf); room > 0 {
				if len(body) > room {
					body, truncated = body[:room], true
				}
				buf = append(buf, body...)
			} else if len(body) > 0 {
				truncated = true
			}
			if chunk[len(chunk)-1] == '\n' {
				if n := len(buf); n > 0 && buf[n-1] == '\r' {
					buf = buf[:n-1]
				}
				emit()
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if len(buf) > 0 || truncated {
				emit()
			}
			return
		}
	}
}

// Stdin is the child's standard input (nil unless Spec.Stdin). Closing it
// sends end-of-file; it is closed for the caller once the child has exited
// and its output drained, so a late write fails rather than blocks.
// It is a pipe, so write deadlines work on it.
func (c *Child) Stdin() *os.File { return c.stdin }

// Stdout is the child's standard output when Spec.RawStdout (else nil):
// the caller reads it to its end.
func (c *Child) Stdout() io.Reader {
	if c.stdout == nil {
		return nil
	}
	return c.stdout
}

// rawOut is a raw stdout that says when its reader reached the end.
type rawOut struct {
	f     *os.File
	once  sync.Once
	ended chan struct{}
}

func (r *rawOut) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	if err != nil {
		r.once.Do(func() { close(r.ended) })
	}
	return n, err
}

// Lines delivers output in arrival order per stream; it is closed when both
// streams end (with Spec.RawStdout, when stderr ends).
func (c *Child) Lines() <-chan Line { return c.lines }

// Wait blocks until the child has exited. Output may still be arriving on
// Lines; drain it to its end to have all of it.
func (c *Child) Wait() Exit {
	<-c.done
	return c.exit
}

// Done is closed when the child has exited.
func (c *Child) Done() <-chan struct{} { return c.done }

// Pid is the child's process id (also its process group id).
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Stop sends SIGTERM to the child's process group and SIGKILL after the
// grace period if it is still running. Safe to call more than once.
func (c *Child) Stop() {
	c.stopOnce.Do(func() {
		signalGroup(c.cmd.Process.Pid, syscall.SIGTERM)
		go func() {
			t := time.NewTimer(c.grace)
			defer t.Stop()
			select {
			case <-c.done:
				// The leader is gone; reap anything it left in its group.
				signalGroup(c.cmd.Process.Pid, syscall.SIGKILL)
			case <-t.C:
				signalGroup(c.cmd.Process.Pid, syscall.SIGKILL)
			}
		}()
	})
}

func exitOf(cmd *exec.Cmd, err error) Exit {
	st := cmd.ProcessState
	if st == nil {
		return Exit{Code: -1, Err: err}
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Exit{Code: -1, Signal: ws.Signal().String()}
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return Exit{Code: st.ExitCode(), Err: fmt.Errorf("wait: %w", err)}
	}
	return Exit{Code: st.ExitCode()}
}

// childPipes makes a child's stdout and stderr pipes, and its stdin's when
// asked. They are our own pipes (not cmd.StdoutPipe): the child gets the
// write ends directly, and waiting for the process never races reading its
// output. On an error none is left open.
func childPipes(stdin bool) (outR, outW, errR, errW, inR, inW *os.File, err error) {
	if outR, outW, err = os.Pipe(); err != nil {
		return
	}
	if errR, errW, err = os.Pipe(); err != nil {
		outR.Close()
		outW.Close()
		return nil, nil, nil, nil, nil, nil, err
	}
	if stdin {
		if inR, inW, err = os.Pipe(); err != nil {
			outR.Close()
			outW.Close()
			errR.Close()
			errW.Close()
			return nil, nil, nil, nil, nil, nil, err
		}
	}
	return outR, outW, errR, errW, inR, inW, nil
}
