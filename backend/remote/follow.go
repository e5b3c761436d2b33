package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/worktree"
)

// maxEventLine bounds one line of the host's event stream.
const maxEventLine = 8 << 20

// orphaned starts the done event a host's server writes for a run it
// found live when it started (backend/supervisor's recovery): the server
// that ran it stopped mid-run.
const orphaned = "orphaned:"

// errNoDone is a stream that ended before its run's done event.
var errNoDone = errors.New("the host's event stream ended before the run did")

// follow takes the host's events until its run is done, re-attaching
// after a dropped link (resuming after the last sequence number taken),
// then brings the task's branch back and ends the run here.
func (r *run) follow() {
	o := r.a.p.o
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer func() {
		if r.stopping() {
			go r.abortLater() // a person's stop reaches the host when the link is back
		}
	}()
	go func() {
		select {
		case <-r.em.Abandoned(): // the supervisor stopped reading: nothing more is wanted
			cancel()
		case <-ctx.Done():
		}
	}()
	go r.askHome(ctx)
	deadline := time.Now().Add(o.Reattach)
	wait := 250 * time.Millisecond
	for {
		before := r.last
		done, err := r.stream(ctx)
		if done != nil {
			r.end(ctx, *done)
			return
		}
		if ctx.Err() != nil {
			return
		}
		if r.last > before {
			deadline = time.Now().Add(o.Reattach) // it was flowing: the window starts again
		}
		o.Log.Info("the link to a host's run dropped; re-attaching", "host", r.conn.Host.Name, "run", r.id, "after", r.last, "err", err)
		if lost, why := r.reattach(ctx); lost {
			r.lose(ctx, why)
			return
		}
		if r.stopping() {
			_ = r.sendAbort(ctx) // asked while the link was down
		}
		if time.Now().After(deadline) {
			r.lose(ctx, fmt.Sprintf("%s could not be reached for %s (%v)", r.conn.Host.Name, o.Reattach, err))
			return
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return
		}
		wait = min(wait*2, 5*time.Second)
	}
}

// abortLater keeps asking the host to stop a run a person stopped while
// the link was down, for the re-attach window: Stop stops there too.
func (r *run) abortLater() {
	o := r.a.p.o
	ctx, cancel := context.WithTimeout(context.Background(), o.Reattach)
	defer cancel()
	for wait := 250 * time.Millisecond; ; wait = min(wait*2, 5*time.Second) {
		if conn, err := o.Hosts.Connect(ctx, r.a.host); err == nil { // a dead link is made again
			r.mu.Lock()
			r.conn = conn
			r.mu.Unlock()
			if r.sendAbort(ctx) == nil {
				return
			}
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			o.Log.Warn("a stopped run on a host could not be told to stop", "host", r.conn.Host.Name, "run", r.id)
			return
		}
	}
}

// stream reads the host run's events after r.last and emits each here; it
// answers the done event when the stream reaches it.
func (r *run) stream(ctx context.Context) (*executor.Event, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", "http://localhost/api/runs/"+r.hostRun+"/events", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Last-Event-ID", strconv.FormatInt(r.last, 10))
	res, err := r.do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the host answered %s for the run's events", res.Status)
	}
	var done *executor.Event
	errDone := errors.New("done")
	err = readSSE(res.Body, func(_, data string) error {
		var ev executor.Event
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return fmt.Errorf("the host sent an event that is not one: %w", err)
		}
		if ev.Seq <= r.last {
			return nil // already taken before the link dropped
		}
		r.last = ev.Seq
		if ev.Kind == executor.KindDone {
			done = &ev
			return errDone
		}
		ev.RunID, ev.Seq = "", 0
		return r.em.Emit(ctx, ev)
	})
	switch {
	case done != nil:
		return done, nil
	case err != nil:
		return nil, err
	}
	return nil, errNoDone
}

// newLineScanner reads an event stream's lines, each up to maxEventLine.
func newLineScanner(body io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), maxEventLine)
	return sc
}

// reattach reaches the host again after the link dropped; it reports the
// run lost (and why) when the host answers but its server no longer has
// the run going.
func (r *run) reattach(ctx context.Context) (bool, string) {
	o := r.a.p.o
	o.Hosts.Forget(r.a.host)
	conn, err := o.Hosts.Connect(ctx, r.a.host)
	if err != nil {
		return false, ""
	}
	r.mu.Lock()
	r.conn = conn
	r.mu.Unlock()
	var st struct {
		Status string `json:"status"`
		Error  string `json:"error"`
	}
	err = r.call(ctx, "GET", "/api/runs/"+r.hostRun, nil, &st)
	var he *hostError
	if errors.As(err, &he) && he.code == http.StatusNotFound {
		return true, fmt.Sprintf("the Clawboo server on %s no longer knows the run", conn.Host.Name)
	}
	return false, "" // live, or ended with its done still to read: the stream says which
}

// lose ends the run failed: its host is lost. The host's branch keeps
// what was done.
func (r *run) lose(ctx context.Context, why string) {
	msg := "Host lost: " + why + "."
	if r.wt != nil {
		msg += " The work so far stays on the host's branch."
	}
	done := executor.Event{Kind: executor.KindDone, Reason: executor.DoneError, Summary: msg, Message: msg, Code: "host_lost"}
	_ = r.em.Emit(ctx, done)
}

// end brings a task's branch back when its run there finished, then
// emits the host's done event here. A run the host's server found
// orphaned (it stopped mid-run) is lost, not finished.
func (r *run) end(ctx context.Context, done executor.Event) {
	if done.Reason == executor.DoneError && (strings.HasPrefix(done.Summary, orphaned) || strings.HasPrefix(done.Message, orphaned)) {
		r.lose(ctx, fmt.Sprintf("the Clawboo server on %s stopped while the run was live", r.conn.Host.Name))
		return
	}
	if r.wt != nil {
		if err := r.takeBack(ctx); err != nil {
			msg := "The run on " + r.conn.Host.Name + " ended, but its work could not be brought back: " + err.Error()
			if done.Reason == executor.DoneSuccess {
				done = executor.Event{
					Kind: executor.KindDone, Reason: executor.DoneError, Summary: msg, Message: msg, Code: "host_fetch",
					CostUSD: done.CostUSD, Usage: done.Usage, Estimated: done.Estimated,
				}
			} else {
				r.a.p.o.Log.Warn("a host's work not brought back", "host", r.conn.Host.Name, "run", r.id, "err", err)
			}
		} else {
			defer r.discardThere() // after the run ended here: nothing waits for it
		}
	}
	done.RunID, done.Seq = "", 0
	_ = r.em.Emit(ctx, done)
}

// discardThere drops the host's task of a run whose work is here now: its
// worktree there only takes room.
func (r *run) discardThere() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.call(ctx, "POST", "/api/board/"+r.hostTask+"/discard", map[string]any{}, nil); err != nil {
		r.a.p.o.Log.Info("a host's worktree not removed", "host", r.conn.Host.Name, "run", r.id, "err", err)
	}
}

// takeBack waits for the host's task to be settled (its work committed)
// and fetches its branch into the task's branch here.
func (r *run) takeBack(ctx context.Context) error {
	var t struct {
		Task struct {
			Status       string              `json:"status"`
			RunID        *string             `json:"runId"`
			Verification *board.Verification `json:"verification"`
		} `json:"task"`
	}
	for deadline := time.Now().Add(r.a.p.o.Reattach); ; {
		err := r.call(ctx, "GET", "/api/board/"+r.hostTask, nil, &t)
		if err == nil && t.Task.RunID == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the host's task did not settle (%v)", err)
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	r.mu.Lock()
	r.verified = t.Task.Verification
	r.mu.Unlock()
	err := retry(ctx, func() error {
		_, err := r.a.p.o.Worktrees.TakeFrom(ctx, *r.wt, r.transport, "refs/heads/clawboo/task-"+r.hostTask)
		return err
	})
	if errors.Is(err, worktree.ErrNoHostBranch) {
		return nil // nothing changed there: the branch here is as it was sent
	}
	return err
}
