package codex

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/clawboo/desktop/backend/proc"
)

// child is a process with a writable stdin, for `codex app-server`. It
// keeps proc's rules (own process group, bounded lines, SIGTERM then
// SIGKILL to the group, Wait never hangs on grandchildren holding the
// pipes); proc.Start has no stdin, so this is the small part redone here.
type child struct {
	cmd      *exec.Cmd
	stdin    *os.File
	grace    time.Duration
	lines    chan proc.Line
	done     chan struct{}
	exit     proc.Exit
	stopOnce sync.Once
	inMu     sync.Mutex
}

// startChild launches s with a stdin pipe. Cancelling ctx stops it.
func startChild(ctx context.Context, s proc.Spec) (*child, error) {
	if s.Grace <= 0 {
		s.Grace = 3 * time.Second
	}
	if s.MaxLine <= 0 {
		s.MaxLine = 64 << 10
	}
	cmd := exec.Command(s.Path, s.Args...)
	cmd.Dir, cmd.Env = s.Dir, s.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.SysProcAttr = groupAttr()
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (*os.File, *os.File, error) {
		r, w, err := os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	c := &child{cmd: cmd, stdin: inW, grace: s.Grace, lines: make(chan proc.Line, 64), done: make(chan struct{})}
	var readers sync.WaitGroup
	readers.Add(2)
	go c.scan(outR, false, s.MaxLine, &readers)
	go c.scan(errR, true, s.MaxLine, &readers)
	drained := make(chan struct{})
	go func() {
		readers.Wait()
		close(c.lines)
		close(drained)
	}()
	go func() {
		err := cmd.Wait()
		c.exit = exitOf(cmd, err)
		close(c.done)
		c.closeStdin()
		t := time.NewTimer(c.grace + time.Second)
		defer t.Stop()
		select {
		case <-drained:
		case <-t.C:
		}
		outR.Close()
		errR.Close()
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

// write sends one line to the child's stdin, bounded by timeout so a child
// that stopped reading cannot hang the caller.
func (c *child) write(b []byte, timeout time.Duration) error {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	_ = c.stdin.SetWriteDeadline(time.Now().Add(timeout))
	_, err := c.stdin.Write(append(b, '\n'))
	return err
}

func (c *child) closeStdin() {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	c.stdin.Close()
}

func (c *child) scan(r io.Reader, stderr bool, max int, wg *sync.WaitGroup) {
	defer wg.Done()
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	truncated := false
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			end := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
			body := chunk
			if end {
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
			if end {
				c.lines <- proc.Line{Stderr: stderr, Text: string(buf), Truncated: truncated}
				buf, truncated = buf[:0], false
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if len(buf) > 0 || truncated {
				c.lines <- proc.Line{Stderr: stderr, Text: string(buf), Truncated: truncated}
			}
			return
		}
	}
}

func (c *child) Lines() <-chan proc.Line { return c.lines }
func (c *child) Done() <-chan struct{}   { return c.done }
func (c *child) Wait() proc.Exit         { <-c.done; return c.exit }

// Stop sends SIGTERM to the group, then SIGKILL after the grace period
// (and to whatever the leader left behind once it is gone).
func (c *child) Stop() {
	c.stopOnce.Do(func() {
		pid := c.cmd.Process.Pid
		signalGroup(pid, syscall.SIGTERM)
		go func() {
			t := time.NewTimer(c.grace)
			defer t.Stop()
			select {
			case <-c.done:
			case <-t.C:
			}
			signalGroup(pid, syscall.SIGKILL)
		}()
	})
}

func exitOf(cmd *exec.Cmd, err error) proc.Exit {
	st := cmd.ProcessState
	if st == nil {
		return proc.Exit{Code: -1, Err: err}
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return proc.Exit{Code: -1, Signal: ws.Signal().String()}
	}
	return proc.Exit{Code: st.ExitCode()}
}
