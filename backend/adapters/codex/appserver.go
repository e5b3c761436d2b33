package codex

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/clawboo/desktop/backend/executor"
	"github.com/clawboo/desktop/backend/proc"
)

// The app-server session: one loop owns the child and every piece of
// protocol state; requests carry integer ids and a callback run on the
// loop when the answer comes.

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type rpcMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

type session struct {
	r       *run
	c       *child
	nextID  int
	pending map[int]func(json.RawMessage, *rpcError)
	m       AppMapper
	// phase names the handshake step awaited ("" once the turn runs).
	phase      string
	deadline   *time.Timer
	ready      bool // initialize answered
	steers     []control
	done       bool
	abortTimer <-chan time.Time
	lines      int
}

// appServer runs the turn on `codex app-server`. It returns true when
// app-server is unavailable (it never initialized and nothing was
// emitted), so the caller can fall back to exec.
func (r *run) appServer() (fallback bool) {
	c, err := startChild(r.ctx, proc.Spec{
		Path: r.bin, Args: []string{"app-server"}, Dir: r.dir(), Env: r.env,
		Grace: r.a.opts.Grace, MaxLine: r.a.opts.MaxLine,
	})
	if err != nil {
		r.keepStderr(err.Error())
		return true
	}
	s := &session{r: r, c: c, pending: map[int]func(json.RawMessage, *rpcError){}, deadline: time.NewTimer(r.a.opts.Handshake)}
	s.m = AppMapper{Model: r.model, Totals: r.handle.Totals}
	defer s.deadline.Stop()
	defer r.release(c)
	s.phase = "initialize"
	s.call("initialize", map[string]any{
		"clientInfo":   map[string]string{"name": "clawboo", "title": "Clawboo", "version": "1"},
		"capabilities": map[string]any{"experimentalApi": false},
	}, s.initialized)
	aborted := r.aborted
	for !s.done {
		select {
		case l, ok := <-c.Lines():
			if !ok {
				return s.exited()
			}
			s.line(l)
		case <-aborted:
			aborted = nil // handled once; the abort timer takes over
			s.abort()
		case ctl := <-r.ctl:
			s.steer(ctl)
		case <-s.deadline.C:
			if s.phase == "" {
				continue
			}
			c.Stop()
			if !s.ready && r.a.opts.Mode == Auto && !r.isAborted() {
				r.keepStderr("codex app-server did not answer initialize")
				return true
			}
			r.fail(fmt.Sprintf("codex app-server did not answer %s within %s", s.phase, r.a.opts.Handshake))
			return false
		case <-s.abortTimer:
			c.Stop()
			s.finish(executor.Done(executor.DoneAborted, "aborted"))
		}
	}
	return false
}

// release lets the child go after the run: stdin closed (app-server exits
// on EOF), its output drained, and a stop after the grace period.
func (r *run) release(c *child) {
	c.closeStdin()
	go func() {
		for range c.Lines() {
		}
	}()
	r.reap(c)
}

// call sends a request; then runs on the loop with its answer.
func (s *session) call(method string, params any, then func(json.RawMessage, *rpcError)) {
	s.nextID++
	id := s.nextID
	s.pending[id] = then
	p, _ := json.Marshal(params)
	s.send(rpcMsg{ID: json.RawMessage(strconv.Itoa(id)), Method: method, Params: p})
}

func (s *session) send(m rpcMsg) {
	b, _ := json.Marshal(m)
	if s.r.a.opts.tap != nil {
		s.r.a.opts.tap(true, string(b))
	}
	if err := s.c.write(b, 10*time.Second); err != nil {
		s.r.keepStderr("write to codex: " + err.Error())
		s.c.Stop() // the loop sees the exit and fails the run
	}
}

func (s *session) expect(phase string) {
	s.phase = phase
	s.deadline.Reset(s.r.a.opts.Handshake)
}

func (s *session) initialized(_ json.RawMessage, e *rpcError) {
	if e != nil {
		s.r.fail("codex app-server refused initialize: " + e.Message)
		s.done = true
		return
	}
	s.ready = true
	s.send(rpcMsg{Method: "initialized"})
	// No account/rateLimits/read here: codex 0.171.0 answers it only for
	// a ChatGPT login (an API key gets -32600 "codex account
	// authentication required to read rate limits"); for a ChatGPT login
	// it is a GET of <chatgpt_base_url>/wham/usage (chatgpt.com), a
	// network call per run. The windows arrive instead as
	// account/rateLimits/updated after each model answer (quota.go).
	r := s.r
	params := map[string]any{"cwd": r.dir(), "approvalPolicy": "never", "sandbox": "danger-full-access"}
	if r.req.Model != "" {
		params["model"] = r.req.Model
	}
	if r.mcp != nil && len(r.mcp.URLs) > 0 {
		servers := map[string]any{}
		for name, u := range r.mcp.URLs {
			srv := map[string]any{"url": u}
			if r.mcp.TokenEnv != "" {
				srv["bearer_token_env_var"] = r.mcp.TokenEnv
			}
			servers[name] = srv
		}
		params["config"] = map[string]any{"mcp_servers": servers}
	}
	if r.handle.Thread != "" {
		resume := map[string]any{"threadId": r.handle.Thread, "excludeTurns": true}
		for k, v := range params {
			resume[k] = v
		}
		s.expect("thread/resume")
		s.call("thread/resume", resume, func(res json.RawMessage, e *rpcError) {
			if e != nil {
				// The thread is gone (a cleared home): start afresh.
				s.r.emit(executor.Status(executor.PhaseInit, "could not resume the Codex thread ("+cut(e.Message)+"); starting a new one"))
				s.m.Totals = Totals{}
				s.expect("thread/start")
				s.call("thread/start", params, s.threadReady)
				return
			}
			s.threadReady(res, nil)
		})
		return
	}
	s.expect("thread/start")
	s.call("thread/start", params, s.threadReady)
}

func (s *session) threadReady(res json.RawMessage, e *rpcError) {
	if e != nil {
		s.r.fail("codex could not start a thread: " + e.Message)
		s.done = true
		return
	}
	var t struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
		Model string `json:"model"`
	}
	_ = json.Unmarshal(res, &t)
	if t.Thread.ID == "" {
		s.r.fail("codex answered the thread request without a thread id")
		s.done = true
		return
	}
	s.m.Thread = t.Thread.ID
	if t.Model != "" {
		s.m.Model = t.Model
	}
	s.r.emit(executor.SessionStarted(Handle{Thread: t.Thread.ID, Totals: s.m.Totals}.Encode(), s.m.Model))
	if s.r.isAborted() {
		s.abort()
		return
	}
	s.expect("turn/start")
	s.call("turn/start", map[string]any{"threadId": t.Thread.ID, "input": textInput(s.r.prompt())}, s.turnStarted)
}

func textInput(text string) []map[string]any {
	return []map[string]any{{"type": "text", "text": text, "text_elements": []any{}}}
}

func (s *session) turnStarted(res json.RawMessage, e *rpcError) {
	if e != nil {
		s.r.fail("codex could not start the turn: " + e.Message)
		s.done = true
		return
	}
	var t struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	_ = json.Unmarshal(res, &t)
	s.m.Turn = t.Turn.ID
	s.phase = ""
	if s.r.isAborted() {
		s.abort()
	}
	queued := s.steers
	s.steers = nil
	for _, c := range queued {
		s.steer(c)
	}
}

// steer sends turn/steer into the live turn (queued until it has an id).
func (s *session) steer(c control) {
	if s.m.Turn == "" {
		s.steers = append(s.steers, c)
		return
	}
	s.call("turn/steer", map[string]any{"threadId": s.m.Thread, "expectedTurnId": s.m.Turn, "input": textInput(c.text)},
		func(_ json.RawMessage, e *rpcError) {
			switch {
			case e == nil:
				c.reply <- executor.SteerDelivered
			case s.done:
				c.reply <- executor.SteerRunEnded
			default:
				c.reply <- executor.SteerRejected
			}
		})
}

// abort interrupts the turn; with no turn yet there is nothing to keep,
// so the child is stopped. A turn that does not confirm in the grace
// period is stopped too.
func (s *session) abort() {
	if s.abortTimer != nil {
		return
	}
	s.abortTimer = time.After(s.r.a.opts.Grace)
	if s.m.Turn == "" {
		s.c.Stop()
		s.finish(executor.Done(executor.DoneAborted, "aborted"))
		return
	}
	s.call("turn/interrupt", map[string]any{"threadId": s.m.Thread, "turnId": s.m.Turn}, func(json.RawMessage, *rpcError) {})
}

var (
	idPrefix     = regexp.MustCompile(`^\{\s*"id"\s*:\s*(\d+)`)
	methodPrefix = regexp.MustCompile(`"method"\s*:\s*"([^"]+)"`)
	itemPrefix   = regexp.MustCompile(`"type"\s*:\s*"([A-Za-z]+)"\s*,\s*"id"\s*:\s*"([^"]+)"`)
)

// line handles one line from the child.
func (s *session) line(l proc.Line) {
	if l.Stderr {
		s.r.keepStderr(l.Text)
		return
	}
	s.r.lastLine.Store(time.Now().UnixNano())
	if s.r.a.opts.tap != nil {
		s.r.a.opts.tap(false, l.Text)
	}
	if s.lines++; s.lines > s.r.a.opts.MaxLines {
		s.c.Stop()
		s.r.fail(fmt.Sprintf("codex sent more than %d lines without finishing the turn", s.r.a.opts.MaxLines))
		s.done = true
		return
	}
	if l.Truncated {
		s.truncated(l.Text)
		return
	}
	var m rpcMsg
	if json.Unmarshal([]byte(l.Text), &m) != nil {
		return // not protocol (a stray print): ignored
	}
	switch {
	case len(m.ID) > 0 && m.Method != "":
		s.serverRequest(m)
	case len(m.ID) > 0:
		id, err := strconv.Atoi(string(m.ID))
		if then, ok := s.pending[id]; ok && err == nil {
			delete(s.pending, id)
			then(m.Result, m.Error)
		}
	case m.Method != "":
		evs, done := s.m.Notify(m.Method, m.Params)
		for _, ev := range evs {
			s.r.emit(ev)
		}
		if done != nil {
			s.finish(*done)
		}
	}
}

// truncated handles a line cut at MaxLine: an answer is failed, a tool's
// result is reported as too large, anything else is dropped.
func (s *session) truncated(text string) {
	if m := idPrefix.FindStringSubmatch(text); m != nil {
		id, _ := strconv.Atoi(m[1])
		if then, ok := s.pending[id]; ok {
			delete(s.pending, id)
			then(nil, &rpcError{Message: "answer larger than the line limit"})
		}
		return
	}
	mm := methodPrefix.FindStringSubmatch(text)
	it := itemPrefix.FindStringSubmatch(text)
	if mm == nil || mm[1] != "item/completed" || it == nil {
		return
	}
	if name := (item{Type: it[1]}).toolName(); name != "" {
		if n, ok := s.m.tools[it[2]]; ok {
			name = n
		}
		delete(s.m.tools, it[2])
		s.r.emit(executor.ToolResult(it[2], name, fmt.Sprintf("[output over %d bytes not recorded]", s.r.a.opts.MaxLine), false))
	}
}

// serverRequest answers a request from Codex. Runs use approval policy
// never, so approvals should not come; if one does, it is accepted (the
// run was started with full access). Anything else is declined.
func (s *session) serverRequest(m rpcMsg) {
	switch m.Method {
	case "item/commandExecution/requestApproval", "item/fileChange/requestApproval":
		s.send(rpcMsg{ID: m.ID, Result: json.RawMessage(`{"decision":"accept"}`)})
	case "execCommandApproval", "applyPatchApproval":
		s.send(rpcMsg{ID: m.ID, Result: json.RawMessage(`{"decision":"approved"}`)})
	default:
		s.send(rpcMsg{ID: m.ID, Error: &rpcError{Code: -32601, Message: "not supported by Clawboo"}})
	}
}

// exited handles the end of the child's output before the run ended.
func (s *session) exited() (fallback bool) {
	exit := s.c.Wait()
	r := s.r
	if r.isAborted() {
		s.finish(executor.Done(executor.DoneAborted, "aborted"))
		return false
	}
	if !s.ready && r.a.opts.Mode == Auto {
		return true
	}
	r.fail(fmt.Sprintf("codex app-server exited without a result (%s): %s", exitText(exit), r.tail()))
	return false
}

func exitText(e proc.Exit) string {
	if e.Signal != "" {
		return "killed by " + e.Signal
	}
	return fmt.Sprintf("exit code %d", e.Code)
}

// finish emits the final handle (with this run's token totals) and done.
func (s *session) finish(done executor.Event) {
	if s.done {
		return
	}
	s.done = true
	if s.m.Thread != "" && s.m.Totals != s.r.handle.Totals {
		s.r.emit(executor.SessionStarted(Handle{Thread: s.m.Thread, Totals: s.m.Totals}.Encode(), s.m.Model))
	}
	if s.r.isAborted() && done.Reason == executor.DoneError {
		done = executor.Done(executor.DoneAborted, "aborted")
	}
	s.r.emit(done)
}
