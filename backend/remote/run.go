package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawboo/desktop/backend/board"
	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/hosts"
	"github.com/clawboo/desktop/backend/worktree"
)

// run is one run on a host, as this computer follows it.
type run struct {
	a   *adapter
	req executor.StartRequest
	id  executor.RunID
	em  *executor.Emitter

	mu      sync.Mutex
	conn    hosts.Conn
	hostRun string

	// A task run's worktree here, its task on the host and git's way there.
	wt        *worktree.Worktree
	hostTask  string
	transport worktree.Transport

	verified  *board.Verification // the host's verify of the task (supervisor.HostVerified)
	last      int64               // the host's last sequence number taken
	abortSent atomic.Bool         // the host took the stop
	stopOnce  sync.Once
	stopped   chan struct{} // closed when a person (or the supervisor) stops it
}

// HostVerification is the verification the host ran of the task
// (supervisor.HostVerified): the command is not run again here.
func (r *run) HostVerification() *board.Verification {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.verified == nil {
		return nil
	}
	v := *r.verified
	return &v
}

// maxAnswer bounds an API answer read from the host.
const maxAnswer = 4 << 20

// launch reaches the host and starts the run there.
func (r *run) launch(ctx context.Context) error {
	o := r.a.p.o
	conn, err := o.Hosts.Connect(ctx, r.a.host)
	if err != nil {
		return err
	}
	r.conn = conn
	body := map[string]any{"wait": false, "message": r.req.Message, "context": r.req.Context, "model": r.req.Model}
	if taskID, ok := strings.CutPrefix(r.req.SessionKey, "task:"); ok && r.req.WorkDir != "" && o.Board != nil {
		hostTask, err := r.sendTask(ctx, taskID)
		if err != nil {
			return err
		}
		body["taskId"] = hostTask
	}
	if env := r.env(ctx); len(env) > 0 {
		body["env"] = env
	}
	if m, err := r.mcp(ctx); err != nil {
		return err
	} else if m != nil {
		body["mcp"] = m
	}
	var out struct {
		RunID string `json:"runId"`
	}
	if err := r.call(ctx, "POST", "/api/runtimes/"+string(r.a.inner.ID())+"/run", body, &out); err != nil {
		return fmt.Errorf("%s did not start the run: %w", conn.Host.Name, err)
	}
	if out.RunID == "" {
		return fmt.Errorf("%s did not start the run: it named no run", conn.Host.Name)
	}
	r.mu.Lock()
	r.hostRun = out.RunID
	r.mu.Unlock()
	return nil
}

// env is what the run's child needs from here: the runtime's keys and the
// task's secrets. This computer's ports are not sent (the host's
// worktree has its own).
func (r *run) env(ctx context.Context) map[string]string {
	out := map[string]string{}
	if k := r.a.p.o.Keys; k != nil {
		for name, v := range k(ctx, r.a.inner.ID()) {
			out[name] = v
		}
	}
	for name, v := range r.req.Env {
		if name != "CLAWBOO_PORT" && name != "CLAWBOO_PORTS" {
			out[name] = v
		}
	}
	return out
}

// mcp is the run's attachment to this computer's MCP servers, for a
// runtime that takes MCP servers on a connection that forwards them back;
// nil otherwise. ctx bounds the run's life (the token's).
func (r *run) mcp(ctx context.Context) (*executor.CarriedMCP, error) {
	o := r.a.p.o
	if o.Attach == nil || r.conn.Remote.MCPSocket == "" || !r.a.inner.Capabilities().MCP {
		return nil, nil
	}
	token, paths, ok, err := o.Attach(ctx, r.req)
	if err != nil || !ok {
		return nil, err
	}
	return &executor.CarriedMCP{Socket: r.conn.Remote.MCPSocket, Token: token, Paths: paths}, nil
}

// sendTask pushes the task's branch to the host's clone of its repository
// and makes the host's own task of it there: its worktree, setup and ports
// are the host's.
func (r *run) sendTask(ctx context.Context, taskID string) (string, error) {
	o := r.a.p.o
	rec, err := o.Board.Worktree(ctx, taskID)
	if err != nil {
		return "", fmt.Errorf("the task's worktree: %w", err)
	}
	t, err := o.Board.Get(ctx, taskID)
	if err != nil {
		return "", err
	}
	wt := worktree.Worktree{TaskID: taskID, RepoPath: rec.RepoPath, RepoHash: worktree.RepoHash(rec.RepoPath), Path: rec.Path, Branch: rec.Branch, BaseCommit: rec.BaseCommit}
	key := wt.RepoHash
	p := r.a.p
	p.mu.Lock()
	repo, cloned := p.clones[r.a.host+"\x00"+key]
	p.mu.Unlock()
	if !cloned {
		if repo, err = o.Hosts.HostRepo(ctx, r.conn, key); err != nil {
			return "", err
		}
	}
	sshCmd, err := o.Hosts.GitSSHCommand()
	if err != nil {
		return "", err
	}
	r.transport = worktree.Transport{URL: r.conn.GitURL(".clawboo-host/repos/" + key), SSHCommand: sshCmd}
	branch := "clawboo-desktop/" + taskID
	var tip string
	err = retry(ctx, func() error {
		var err error
		tip, err = o.Worktrees.SendTo(ctx, wt, r.transport, "refs/heads/"+branch)
		return err
	})
	if err != nil {
		p.mu.Lock()
		delete(p.clones, r.a.host+"\x00"+key) // the clone may be gone there: made again next time
		p.mu.Unlock()
		return "", err
	}
	if !cloned {
		if err := o.Hosts.BornHead(ctx, r.conn, key, tip); err != nil {
			return "", err
		}
		p.mu.Lock()
		p.clones[r.a.host+"\x00"+key] = repo
		p.mu.Unlock()
	}
	body := map[string]any{
		"title": t.Title, "kind": string(t.Kind), "repoPath": repo, "baseRef": branch, "baseBranch": branch,
		// The critic, merges and pull requests are this computer's.
		"critic": "off",
	}
	if t.VerifyCommand != nil {
		body["verifyCommand"] = *t.VerifyCommand
	}
	var made struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	if err := r.call(ctx, "POST", "/api/board", body, &made); err != nil {
		return "", fmt.Errorf("%s did not take the task: %w", r.conn.Host.Name, err)
	}
	r.wt, r.hostTask = &wt, made.Task.ID
	return made.Task.ID, nil
}

// do sends req to the host's API over the run's current connection.
func (r *run) do(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	remote := r.conn.Remote
	r.mu.Unlock()
	return remote.Do(req)
}

// call sends one request to the host's API and decodes its answer into
// out (nil: dropped); an answer that is not 2xx is an error in the host's
// words.
func (r *run) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://localhost"+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := r.do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return err
	}
	if res.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			return &hostError{code: res.StatusCode, msg: e.Error}
		}
		return &hostError{code: res.StatusCode, msg: http.StatusText(res.StatusCode)}
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

// hostError is the host's API refusing a request.
type hostError struct {
	code int
	msg  string
}

func (e *hostError) Error() string { return e.msg }

// ID, and the run's controls, reach the host's run.
func (r *run) ID() executor.RunID            { return r.id }
func (r *run) Events() <-chan executor.Event { return r.em.Events() }

func (r *run) Abort(ctx context.Context) error {
	r.stopOnce.Do(func() { close(r.stopped) })
	return r.sendAbort(ctx)
}

// sendAbort asks the host to stop the run; an answer that it has nothing
// to stop (unknown, already finished) is a stop delivered too.
func (r *run) sendAbort(ctx context.Context) error {
	err := r.call(ctx, "POST", "/api/runs/"+r.hostRun+"/abort", map[string]any{}, nil)
	var he *hostError
	if err != nil && !(errors.As(err, &he) && (he.code == http.StatusNotFound || he.code == http.StatusConflict)) {
		return err
	}
	r.abortSent.Store(true)
	return nil
}

// stopping reports a stop asked for that the host has not yet taken.
func (r *run) stopping() bool {
	select {
	case <-r.stopped:
		return !r.abortSent.Load()
	default:
		return false
	}
}

func (r *run) SetModel(ctx context.Context, model string) error {
	return r.call(ctx, "POST", "/api/runs/"+r.hostRun+"/model", map[string]any{"model": model}, nil)
}

func (r *run) WriteContext(context.Context, string, string) error { return executor.ErrUnsupported }

func (r *run) Steer(ctx context.Context, s executor.Steer) (executor.SteerResult, error) {
	var out struct {
		Result executor.SteerResult `json:"result"`
	}
	if err := r.call(ctx, "POST", "/api/runs/"+r.hostRun+"/steer", s, &out); err != nil {
		return executor.SteerRejected, err
	}
	return out.Result, nil
}

// retry tries a git transfer up to three times: the host's clone is busy
// with its own worktrees, and a ref one of them is half-way through
// writing fails a transfer that succeeds a moment later.
func retry(ctx context.Context, f func() error) error {
	wait := 200 * time.Millisecond
	for i := 0; ; i++ {
		err := f()
		if err == nil || i == 2 || errors.Is(err, worktree.ErrNoHostBranch) || ctx.Err() != nil {
			return err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
		wait *= 2
	}
}
